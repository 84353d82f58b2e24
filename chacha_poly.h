/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Poly1305 block function, inlined into the core (chacha_core.c) and into
 * every level's fused pass (chacha_vec.h). h and r in radix 2^64: h is
 * h0 + h1 * 2^64 + h2 * 2^128 (h2 a few bits), r is r0 + r1 * 2^64. Per
 * 16-byte block four 64x64->128 products and two 64-bit ones (44-bit
 * limbs take nine 128-bit ones). Clamping clears the low 2 bits of r1, so
 * r1 * 2^128 = (r1 / 4) * 2^130 = (r1 / 4) * 5 mod p: the products that
 * overflow 2^128 use s1 = r1 + r1 / 4 = 5 * r1 / 4 instead of r1.
 */
#ifndef _ESP_CHACHA_POLY_H
#define _ESP_CHACHA_POLY_H

#include "chacha_impl.h"

#define cc_u128 unsigned __int128

/*
 * h = (h + m + hibit * 2^128) * r, partly reduced mod 2^130 - 5: h2 is at
 * most 4 after a block (6 with the next m added), so every product fits in
 * its 128 bits with room for the sums. x86-64 assembly, as GCC keeps the
 * 128-bit sums of the C form on the stack. Two forms: with BMI2's mulx
 * (CC_MULX: the AVX2 and AVX-512 levels, whose CPUs all have it; the
 * module checks), which names its outputs and leaves the flags alone, 27
 * instructions; else mulq, which works through rax and rdx, 33.
 *
 * The reduction: d2 = h's bits from 2^128 up; 2^130 = 5 mod p, so
 * (d2 >> 2) * 2^130 becomes (d2 >> 2) * 5, one lea, and h2 keeps d2 & 3.
 */
#ifdef CC_MULX
static __always_inline void cc_poly_block(u64 *h0, u64 *h1, u64 *h2, u64 r0,
					  u64 r1, u64 s1, const u8 *m,
					  u64 hibit)
{
	u64 a0 = *h0, a1 = *h1, a2 = *h2, t0, t1, t2, t3, t4, rdx;

	asm("addq	0(%[m]), %[a0]\n\t"
	    "adcq	8(%[m]), %[a1]\n\t"
	    "adcq	%[hibit], %[a2]\n\t"
	    /* t1:t0 = a0 * r0, t3:t2 = a0 * r1 */
	    "movq	%[a0], %%rdx\n\t"
	    "mulxq	%[r0], %[t0], %[t1]\n\t"
	    "mulxq	%[r1], %[t2], %[t3]\n\t"
	    /* d0 = t1:t0 += a1 * s1, t3:t2 += a1 * r0 */
	    "movq	%[a1], %%rdx\n\t"
	    "mulxq	%[s1], %[a0], %[t4]\n\t"
	    "addq	%[a0], %[t0]\n\t"
	    "adcq	%[t4], %[t1]\n\t"
	    "mulxq	%[r0], %[a0], %[t4]\n\t"
	    "addq	%[a0], %[t2]\n\t"
	    "adcq	%[t4], %[t3]\n\t"
	    /* d1 = t3:t2 += a2 * s1 */
	    "movq	%[a2], %[a0]\n\t"
	    "imulq	%[s1], %[a0]\n\t"
	    "addq	%[a0], %[t2]\n\t"
	    "adcq	$0, %[t3]\n\t"
	    /* d1 += d0 >> 64; d2 = a2 * r0 + (d1 >> 64) */
	    "imulq	%[r0], %[a2]\n\t"
	    "addq	%[t1], %[t2]\n\t"
	    "adcq	%[t3], %[a2]\n\t"
	    /* h = t0 + t2 * 2^64 + (d2 & 3) * 2^128 + (d2 >> 2) * 5 */
	    "movq	%[a2], %[a0]\n\t"
	    "shrq	$2, %[a0]\n\t"
	    "leaq	(%[a0],%[a0],4), %[a0]\n\t"
	    "andq	$3, %[a2]\n\t"
	    "addq	%[a0], %[t0]\n\t"
	    "adcq	$0, %[t2]\n\t"
	    "adcq	$0, %[a2]\n\t"
	    : [a0] "+&r" (a0), [a1] "+&r" (a1), [a2] "+&r" (a2),
	      [t0] "=&r" (t0), [t1] "=&r" (t1), [t2] "=&r" (t2),
	      [t3] "=&r" (t3), [t4] "=&r" (t4), "=&d" (rdx)
	    : [m] "r" (m), "m" (*(const u8 (*)[16])m), [hibit] "rme" (hibit),
	      [r0] "rm" (r0), [r1] "rm" (r1), [s1] "rm" (s1)
	    : "cc");
	*h0 = t0;
	*h1 = t2;
	*h2 = a2;
}
#else
static __always_inline void cc_poly_block(u64 *h0, u64 *h1, u64 *h2, u64 r0,
					  u64 r1, u64 s1, const u8 *m,
					  u64 hibit)
{
	u64 a0 = *h0, a1 = *h1, a2 = *h2, t0, t1, t2, rax, rdx;

	asm("addq	0(%[m]), %[a0]\n\t"
	    "adcq	8(%[m]), %[a1]\n\t"
	    "adcq	%[hibit], %[a2]\n\t"
	    /* d0 = a0 * r0 + a1 * s1 in t1:t0 */
	    "movq	%[a0], %%rax\n\t"
	    "mulq	%[r0]\n\t"
	    "movq	%%rax, %[t0]\n\t"
	    "movq	%%rdx, %[t1]\n\t"
	    "movq	%[a1], %%rax\n\t"
	    "mulq	%[s1]\n\t"
	    "addq	%%rax, %[t0]\n\t"
	    "adcq	%%rdx, %[t1]\n\t"
	    /* d1 = a0 * r1 + a1 * r0 + a2 * s1 in a0:t2 */
	    "movq	%[a0], %%rax\n\t"
	    "mulq	%[r1]\n\t"
	    "movq	%%rax, %[t2]\n\t"
	    "movq	%%rdx, %[a0]\n\t"
	    "movq	%[a1], %%rax\n\t"
	    "mulq	%[r0]\n\t"
	    "addq	%%rax, %[t2]\n\t"
	    "adcq	%%rdx, %[a0]\n\t"
	    "movq	%[a2], %%rax\n\t"
	    "imulq	%[s1], %%rax\n\t"
	    "addq	%%rax, %[t2]\n\t"
	    "adcq	$0, %[a0]\n\t"
	    /* d1 += d0 >> 64; d2 = a2 * r0 + (d1 >> 64) */
	    "imulq	%[r0], %[a2]\n\t"
	    "addq	%[t1], %[t2]\n\t"
	    "adcq	%[a0], %[a2]\n\t"
	    /* h = t0 + t2 * 2^64 + (d2 & 3) * 2^128 + (d2 >> 2) * 5 */
	    "movq	%[a2], %%rax\n\t"
	    "shrq	$2, %%rax\n\t"
	    "leaq	(%%rax,%%rax,4), %%rax\n\t"
	    "andq	$3, %[a2]\n\t"
	    "addq	%%rax, %[t0]\n\t"
	    "adcq	$0, %[t2]\n\t"
	    "adcq	$0, %[a2]\n\t"
	    : [a0] "+&r" (a0), [a1] "+&r" (a1), [a2] "+&r" (a2),
	      [t0] "=&r" (t0), [t1] "=&r" (t1), [t2] "=&r" (t2),
	      "=&a" (rax), "=&d" (rdx)
	    : [m] "r" (m), "m" (*(const u8 (*)[16])m), [hibit] "rme" (hibit),
	      [r0] "rm" (r0), [r1] "rm" (r1), [s1] "rm" (s1)
	    : "cc");
	*h0 = t0;
	*h1 = t2;
	*h2 = a2;
}
#endif /* CC_MULX */

/* Absorb nblocks 16-byte blocks, each with 2^128 added (hibit 1) or not. */
static __always_inline void cc_poly_blocks(struct cc_poly *p, const u8 *m,
					   unsigned int nblocks, u64 hibit)
{
	const u64 r0 = p->r[0], r1 = p->r[1], s1 = p->s1;
	u64 h0 = p->h[0], h1 = p->h[1], h2 = p->h[2];

	while (nblocks--) {
		cc_poly_block(&h0, &h1, &h2, r0, r1, s1, m, hibit);
		m += 16;
	}
	p->h[0] = h0;
	p->h[1] = h1;
	p->h[2] = h2;
}

/* r from key[0..15] (clamped), the pad s from key[16..31], h = 0 */
static inline void cc_poly_init(struct cc_poly *p, const u8 *key)
{
	/* r &= 0x0ffffffc0ffffffc0ffffffc0fffffff */
	p->r[0] = cc_le64(key) & 0x0ffffffc0fffffffULL;
	p->r[1] = cc_le64(key + 8) & 0x0ffffffc0ffffffcULL;
	p->s1 = p->r[1] + (p->r[1] >> 2);
	p->h[0] = 0;
	p->h[1] = 0;
	p->h[2] = 0;
	p->pad[0] = cc_le64(key + 16);
	p->pad[1] = cc_le64(key + 24);
}

/* tag = ((h mod 2^130 - 5) + s) mod 2^128 */
static inline void cc_poly_final(const struct cc_poly *p, u8 *mac)
{
	u64 h0 = p->h[0], h1 = p->h[1], g0, g1, mask;
	cc_u128 t;

	/*
	 * h2 <= 4, so h < 5 * 2^128 < 2p: h mod p is h - p = h + 5 - 2^130 where that
	 * is not negative, i.e. where g = h + 5 reaches 2^130. Only the low
	 * 128 bits are wanted, and those of h - p are those of g.
	 */
	t = (cc_u128)h0 + 5;
	g0 = (u64)t;
	t = (cc_u128)h1 + (u64)(t >> 64);
	g1 = (u64)t;
	mask = 0 - ((p->h[2] + (u64)(t >> 64)) >> 2);
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);

	t = (cc_u128)h0 + p->pad[0];
	h0 = (u64)t;
	h1 += p->pad[1] + (u64)(t >> 64);
	cc_put_le64(h0, mac);
	cc_put_le64(h1, mac + 8);
}

#endif /* _ESP_CHACHA_POLY_H */
