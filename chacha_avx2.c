// SPDX-License-Identifier: GPL-2.0
/* ChaCha20, 8 blocks per call in AVX2 (built with -mavx2, see Kbuild). */
#define CC_FN(name) name##_avx2
#define CC_WIDE
#define CC_MULX
#include "chacha_vec.h"
