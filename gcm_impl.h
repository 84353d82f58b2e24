/* SPDX-License-Identifier: GPL-2.0 */
/* Internal interface between gcm_simd.c (the AEAD) and gcm_test.c. */
#ifndef _ESP_GCM_IMPL_H
#define _ESP_GCM_IMPL_H

#include "gcm_core.h"

const char *esp_gcm_level_name(unsigned int i);
/* NULL if level i can be used here (the CPU has it, its answers pass) */
const char *esp_gcm_level_unusable(unsigned int i);
bool esp_gcm_level_supported(unsigned int i);
int esp_gcm_level_set(unsigned int i);
int esp_gcm_level_cur(void);
const struct gcm_impl *esp_gcm_level_impl(unsigned int i);
/* every request through the fallback tfm, as without SIMD (test only) */
void esp_gcm_force_fallback(bool on);
unsigned long esp_gcm_fpu_sections(void);

/* esp_gcm_selftest() under the level lock */
int esp_gcm_run_selftest(unsigned int iters);

/* gcm_test.c */
int esp_gcm_selftest(unsigned int iters);
void esp_gcm_test_init(void);

#endif /* _ESP_GCM_IMPL_H */
