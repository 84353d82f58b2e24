// SPDX-License-Identifier: GPL-2.0
/* AES-GCM with AES-NI and PCLMULQDQ, VEX encoding (-mavx, see Kbuild). */
#define GCM_LEVEL(name) name##_aesni_avx
#define GCM_LEVEL_NAME "aesni-avx"
#include "gcm_vec.h"
