// SPDX-License-Identifier: GPL-2.0
/* ChaCha20, 4 blocks per call in SSSE3 (built with -mssse3, see Kbuild). */
#define CC_FN(name) name##_ssse3
#include "chacha_vec.h"
