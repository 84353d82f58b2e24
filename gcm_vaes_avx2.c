// SPDX-License-Identifier: GPL-2.0
/*
 * AES-GCM with VAES and VPCLMULQDQ on 256-bit vectors, two blocks each
 * (-mavx2 -mvaes -mvpclmulqdq, see Kbuild).
 */
#define GCM_LEVEL(name) name##_vaes_avx2
#define GCM_LEVEL_NAME "vaes-avx2"
#define GCM_WIDE 2
#include "gcm_vec.h"
