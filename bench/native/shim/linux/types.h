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

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef __aligned
#define __aligned(x) __attribute__((aligned(x)))
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#endif /* _SHIM_LINUX_TYPES_H */
