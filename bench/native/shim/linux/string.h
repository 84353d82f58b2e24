/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/string.h>. */
#ifndef _SHIM_LINUX_STRING_H
#define _SHIM_LINUX_STRING_H

#include <string.h>

#define memzero_explicit(p, n) explicit_bzero((p), (n))

#endif
