/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interface between chacha_simd.c (AEAD, dispatch, Poly1305) and
 * the per-instruction-set ChaCha20 block functions. Every chacha_xor_*()
 * xors nblocks * 64 bytes of keystream into dst (src == NULL: writes the
 * keystream itself; src == dst is allowed) and adds nblocks to the 32-bit
 * block counter state[12]. The SIMD variants must only be called between
 * kernel_fpu_begin() and kernel_fpu_end().
 */
#ifndef _ESP_CHACHA_IMPL_H
#define _ESP_CHACHA_IMPL_H

#include <linux/types.h>
#include <linux/string.h>
#include <linux/compiler.h>

#define CHACHA_BLOCK_SIZE 64

typedef void (*chacha_xor_fn)(u32 *state, u8 *dst, const u8 *src,
			      unsigned int nblocks);

void chacha_xor_generic(u32 *state, u8 *dst, const u8 *src,
			unsigned int nblocks);
void chacha_xor_ssse3(u32 *state, u8 *dst, const u8 *src,
		      unsigned int nblocks);
void chacha_xor_avx2(u32 *state, u8 *dst, const u8 *src,
		     unsigned int nblocks);
void chacha_xor_avx512(u32 *state, u8 *dst, const u8 *src,
		       unsigned int nblocks);

/* chacha_simd.c, for chacha_test.c */
const char *esp_chacha_level_name(unsigned int i);
bool esp_chacha_level_supported(unsigned int i);
int esp_chacha_level_set(unsigned int i);
int esp_chacha_level_cur(void);
unsigned long esp_chacha_fpu_sections(void);
void esp_chacha_xor_raw(u32 *state, u8 *dst, const u8 *src,
			unsigned int nblocks);

/* chacha_test.c */
int esp_chacha_selftest(const char *level, unsigned int iters);
void esp_chacha_bench(void);

#endif /* _ESP_CHACHA_IMPL_H */
