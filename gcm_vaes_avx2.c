// SPDX-License-Identifier: GPL-2.0
/*
 * AES-GCM with VAES on 256-bit vectors for the counter mode (two blocks per
 * instruction) and 128-bit PCLMULQDQ for GHASH (-mavx2 -mvaes, see Kbuild).
 */
#define GCM_LEVEL(name) name##_vaes_avx2
#define GCM_LEVEL_NAME "vaes-avx2"
#define GCM_VAES
#include "gcm_vec.h"
