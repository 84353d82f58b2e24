// SPDX-License-Identifier: GPL-2.0
/*
 * ChaCha20, 8 blocks per call in AVX-512VL: the AVX2 code on 256-bit
 * registers, where GCC emits vprold for the rotates (built with
 * -mavx512vl, see Kbuild).
 */
#define CC_FN(name) name##_avx512
#define CC_WIDE
#define CC_MULX
#define CC_VPROLD
#include "chacha_vec.h"
