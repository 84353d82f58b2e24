/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in: the attributes the kernel's compiler_types.h gives. */
#ifndef _SHIM_LINUX_COMPILER_TYPES_H
#define _SHIM_LINUX_COMPILER_TYPES_H

#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define __aligned(x)	__attribute__((__aligned__(x)))
#define __maybe_unused	__attribute__((__unused__))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#endif
