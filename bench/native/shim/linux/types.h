/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/types.h>: the kernel's fixed-size types,
 * and the attributes the kernel's build gives every file
 * (<linux/compiler_types.h>, included by the compiler command line there).
 */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* as the kernel's (asm-generic/int-ll64.h): 64 bits are long long */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

/* little-endian values (x86; see asm/byteorder.h) */
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;

#ifndef __aligned
#define __aligned(x) __attribute__((aligned(x)))
#endif
#ifndef __uninitialized
#define __uninitialized __attribute__((uninitialized))
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#endif /* _SHIM_LINUX_TYPES_H */
