// SPDX-License-Identifier: GPL-2.0
/*
 * AES-GCM with VAES and VPCLMULQDQ on 512-bit vectors, four blocks each
 * (-mavx512f -mavx512vl -mavx512bw -mvaes -mvpclmulqdq, see Kbuild).
 */
#define GCM_LEVEL(name) name##_vaes_avx512
#define GCM_LEVEL_NAME "vaes-avx512"
#define GCM_WIDE 4
#include "gcm_vec.h"
