// SPDX-License-Identifier: GPL-2.0
/* AES-GCM with AES-NI and PCLMULQDQ, SSE encoding (-maes -mpclmul, see Kbuild). */
#define GCM_LEVEL(name) name##_aesni
#define GCM_LEVEL_NAME "aesni"
#include "gcm_vec.h"
