/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interface between the core (chacha_core.c: dispatch, buffering,
 * tag) and the level files: chacha_core.c itself for the portable C level,
 * chacha_{ssse3,avx2,avx512}.c (chacha_vec.h built per instruction set) for
 * the SIMD ones. Per level:
 *
 *   chacha_xor_LVL(state, dst, src, nblocks)
 *	xor nblocks * 64 bytes of keystream into dst (src NULL: write the
 *	keystream itself; src == dst is allowed) and add nblocks to the
 *	32-bit block counter state[12].
 *   cc_seal_LVL(a, dst, src, nblocks, pn)	encrypt nblocks * 64 bytes
 *	and absorb the cipher text into a->poly, in one pass.
 *   cc_open_LVL(a, dst, src, nblocks, pn)	absorb the cipher text
 *	src into a->poly and decrypt it, in one pass.
 *	Both first take the pn 16-byte blocks just before dst and src: text
 *	whose keystream is the last 16 * pn bytes of a->ks[..a->ks_len)
 *	(already counted as used by the caller).
 *
 * seal and open are only called with the text 64-byte aligned in the
 * message (so Poly1305 takes whole 16-byte blocks) and no keystream
 * buffered; they may leave the keystream of the blocks that follow in
 * a->ks[a->ks_pos..a->ks_len) (a pass computed more blocks than the text
 * had). The SIMD ones need the FPU usable (see chacha_core.h).
 */
#ifndef _ESP_CHACHA_IMPL_H
#define _ESP_CHACHA_IMPL_H

#include <linux/types.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "chacha_core.h"

#define CC_LEVEL_FNS(lvl)						\
void chacha_xor_##lvl(u32 *state, u8 *dst, const u8 *src,		\
		      unsigned int nblocks);				\
void cc_seal_##lvl(struct cc_aead *a, u8 *dst, const u8 *src,		\
		   unsigned int nblocks, unsigned int pn);		\
void cc_open_##lvl(struct cc_aead *a, u8 *dst, const u8 *src,		\
		   unsigned int nblocks, unsigned int pn)

CC_LEVEL_FNS(generic);
CC_LEVEL_FNS(ssse3);
CC_LEVEL_FNS(avx2);
CC_LEVEL_FNS(avx512);

/* Keystream written to a->ks[0..n): cc_aead_wipe() clears that much */
static __always_inline void cc_ks_written(struct cc_aead *a, unsigned int n)
{
	if (n > a->ks_hi)
		a->ks_hi = n;
}

/* Little-endian loads and stores at any alignment (memcpy: single moves) */
static __always_inline u32 cc_le32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static __always_inline u64 cc_le64(const u8 *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

static __always_inline void cc_put_le32(u32 x, u8 *p)
{
	__le32 v = cpu_to_le32(x);

	memcpy(p, &v, sizeof(v));
}

static __always_inline void cc_put_le64(u64 x, u8 *p)
{
	__le64 v = cpu_to_le64(x);

	memcpy(p, &v, sizeof(v));
}

#endif /* _ESP_CHACHA_IMPL_H */
