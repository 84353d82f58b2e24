/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A SIMD level (see chacha_impl.h): ChaCha20 and the fused ChaCha20 +
 * Poly1305 pass, written once with GCC vector extensions and compiled
 * several times: chacha_ssse3.c, chacha_avx2.c and chacha_avx512.c include
 * this file with their own -m flags.
 *
 * Layout is "vertical": vector word i holds state word i of W consecutive
 * blocks (a group: W = 4 with 128-bit vectors, W = 8 with 256-bit ones),
 * so a round is plain lane-wise adds, xors and rotates. The keystream is
 * put back in block order with a transpose before it is xored with the
 * data. Poly1305 (scalar, chacha_poly.h) runs inside the rounds of a group,
 * on cipher text already known: the previous group's on encryption, the
 * group's own on decryption. A tail of 1 to 3 blocks uses a one-block
 * "horizontal" routine (rows in vectors, diagonals by pshufd; in 256-bit
 * vectors two blocks at once, one per 128-bit lane).
 *
 * The including file defines:
 *   CC_FN(name)  the name of the exported function (per instruction set)
 *   CC_WIDE      to build the 8-block path (256-bit vectors)
 *   CC_VPROLD    rotates by 16 and 8 as shifts (AVX-512VL: vprold)
 * Nothing here may be called outside kernel_fpu_begin()/kernel_fpu_end().
 */

#include "chacha_impl.h"
#include "chacha_poly.h"

#ifdef __CHECKER__
/* sparse does not parse GCC vector extensions: it checks the interface only */
void CC_FN(chacha_xor)(u32 *state, u8 *dst, const u8 *src,
		       unsigned int nblocks)
{
}

void CC_FN(cc_seal)(struct cc_aead *a, u8 *dst, const u8 *src,
		    unsigned int nblocks, unsigned int pn)
{
}

void CC_FN(cc_open)(struct cc_aead *a, u8 *dst, const u8 *src,
		    unsigned int nblocks, unsigned int pn)
{
}
#else

/* ------------------------------------------------------------------ */
/* Poly1305 interleaved with the rounds                                */

/*
 * The Poly1305 state in registers while a group of blocks is computed:
 * its scalar multiply chain and the vector rounds are independent, so an
 * out-of-order core runs them side by side.
 */
struct cc_ph {
	u64 h0, h1, h2;
	u64 r0, r1, s1;
};

static __always_inline void cc_ph_load(struct cc_ph *ph, const struct cc_poly *p)
{
	ph->h0 = p->h[0];
	ph->h1 = p->h[1];
	ph->h2 = p->h[2];
	ph->r0 = p->r[0];
	ph->r1 = p->r[1];
	ph->s1 = p->s1;
}

static __always_inline void cc_ph_store(const struct cc_ph *ph, struct cc_poly *p)
{
	p->h[0] = ph->h0;
	p->h[1] = ph->h1;
	p->h[2] = ph->h2;
}

static __always_inline void cc_ph_blocks(struct cc_ph *ph, const u8 *m,
					 unsigned int n)
{
	while (n--) {
		cc_poly_block(&ph->h0, &ph->h1, &ph->h2, ph->r0, ph->r1,
			      ph->s1, m, 1);
		m += 16;
	}
}

/*
 * @n Poly1305 blocks spread over the 10 double rounds: n / 10 in each, one
 * more in the first n % 10 (one division per group, not two per round).
 */
struct cc_ph_split {
	unsigned int base, extra;
};

static __always_inline struct cc_ph_split cc_ph_split(unsigned int n)
{
	return (struct cc_ph_split){ n / 10, n % 10 };
}

static __always_inline unsigned int cc_ph_share(struct cc_ph_split sp,
						unsigned int i)
{
	return sp.base + (i < sp.extra);
}

/*
 * Absorb @n blocks at *pm and advance it: for up to 4 blocks (a group of
 * eight spreads its 32 over the rounds as 4, 4, 3, ...) straight-line
 * code, not a loop, which lets GCC keep the vector registers of the
 * assembly double rounds (cc_8ks(), cc_4ks()) in place around it.
 */
static __always_inline void cc_ph_round(struct cc_ph *ph, const u8 **pm,
					unsigned int n)
{
	if (n > 0)
		cc_ph_blocks(ph, *pm, 1);
	if (n > 1)
		cc_ph_blocks(ph, *pm + 16, 1);
	if (n > 2)
		cc_ph_blocks(ph, *pm + 32, 1);
	if (n > 3)
		cc_ph_blocks(ph, *pm + 48, 1);
	if (n > 4)
		cc_ph_blocks(ph, *pm + 64, n - 4);
	*pm += 16 * n;
}

/* ------------------------------------------------------------------ */
/* 128-bit vectors                                                     */

typedef u32 cc_v4 __attribute__((vector_size(16)));
typedef u32 cc_v4_un __attribute__((vector_size(16))) __aligned(1);
typedef u8 cc_b16 __attribute__((vector_size(16)));

/*
 * Rotates: by 16 and 8 bits a byte shuffle (pshufb: one instruction, no
 * temporary register), by 12 and 7 two shifts and an or; at AVX-512VL
 * all four are one vprold, which GCC emits for the shift-or form.
 */
static __always_inline cc_v4 cc_rol4(cc_v4 v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static __always_inline cc_v4 cc_rol4_16(cc_v4 v)
{
#ifdef CC_VPROLD
	return cc_rol4(v, 16);
#else
	const cc_b16 m = { 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13 };

	return (cc_v4)__builtin_shuffle((cc_b16)v, m);
#endif
}

static __always_inline cc_v4 cc_rol4_8(cc_v4 v)
{
#ifdef CC_VPROLD
	return cc_rol4(v, 8);
#else
	const cc_b16 m = { 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14 };

	return (cc_v4)__builtin_shuffle((cc_b16)v, m);
#endif
}

static __always_inline void cc_qr4(cc_v4 *a, cc_v4 *b, cc_v4 *c, cc_v4 *d)
{
	*a += *b;
	*d = cc_rol4_16(*d ^ *a);
	*c += *d;
	*b = cc_rol4(*b ^ *c, 12);
	*a += *b;
	*d = cc_rol4_8(*d ^ *a);
	*c += *d;
	*b = cc_rol4(*b ^ *c, 7);
}

static __always_inline void cc_dround4(cc_v4 *x)
{
	cc_qr4(&x[0], &x[4], &x[8], &x[12]);
	cc_qr4(&x[1], &x[5], &x[9], &x[13]);
	cc_qr4(&x[2], &x[6], &x[10], &x[14]);
	cc_qr4(&x[3], &x[7], &x[11], &x[15]);
	cc_qr4(&x[0], &x[5], &x[10], &x[15]);
	cc_qr4(&x[1], &x[6], &x[11], &x[12]);
	cc_qr4(&x[2], &x[7], &x[8], &x[13]);
	cc_qr4(&x[3], &x[4], &x[9], &x[14]);
}

/* One block at counter state[12]: rows in vectors, diagonals by shuffles. */
static __always_inline void cc_1block(const u32 *state, u8 *dst,
				      const u8 *src)
{
	const cc_v4 s0 = *(const cc_v4_un *)&state[0];
	const cc_v4 s1 = *(const cc_v4_un *)&state[4];
	const cc_v4 s2 = *(const cc_v4_un *)&state[8];
	const cc_v4 s3 = *(const cc_v4_un *)&state[12];
	cc_v4 a = s0, b = s1, c = s2, d = s3;
	int i;

	for (i = 0; i < 10; i++) {
		cc_qr4(&a, &b, &c, &d);
		b = __builtin_shuffle(b, (cc_v4){ 1, 2, 3, 0 });
		c = __builtin_shuffle(c, (cc_v4){ 2, 3, 0, 1 });
		d = __builtin_shuffle(d, (cc_v4){ 3, 0, 1, 2 });
		cc_qr4(&a, &b, &c, &d);
		b = __builtin_shuffle(b, (cc_v4){ 3, 0, 1, 2 });
		c = __builtin_shuffle(c, (cc_v4){ 2, 3, 0, 1 });
		d = __builtin_shuffle(d, (cc_v4){ 1, 2, 3, 0 });
	}
	a += s0;
	b += s1;
	c += s2;
	d += s3;
	if (src) {
		a ^= *(const cc_v4_un *)(src + 0);
		b ^= *(const cc_v4_un *)(src + 16);
		c ^= *(const cc_v4_un *)(src + 32);
		d ^= *(const cc_v4_un *)(src + 48);
	}
	*(cc_v4_un *)(dst + 0) = a;
	*(cc_v4_un *)(dst + 16) = b;
	*(cc_v4_un *)(dst + 32) = c;
	*(cc_v4_un *)(dst + 48) = d;
}

#ifndef CC_WIDE
/*
 * The SSSE3 build's double round on four blocks, in assembly as the AVX2
 * one (cc_8ks(), which says why): x0..x13 in xmm0..13, x14 and x15 through
 * xmm14 and memory, xmm15 the temporary. Two-operand SSE forms: a rotate
 * by 12 or 7 copies first (movdqa).
 */
#define CC_QR4_MACRO						\
	".macro cc_qr4 a, b, c, d\n\t"					\
	"paddd	\\b, \\a\n\t"						\
	"pxor	\\a, \\d\n\t"						\
	"pshufb	32(%[m]), \\d\n\t"					\
	"paddd	\\d, \\c\n\t"						\
	"pxor	\\c, \\b\n\t"						\
	"movdqa	\\b, %%xmm15\n\t"					\
	"pslld	$12, %%xmm15\n\t"					\
	"psrld	$20, \\b\n\t"						\
	"por	%%xmm15, \\b\n\t"					\
	"paddd	\\b, \\a\n\t"						\
	"pxor	\\a, \\d\n\t"						\
	"pshufb	48(%[m]), \\d\n\t"					\
	"paddd	\\d, \\c\n\t"						\
	"pxor	\\c, \\b\n\t"						\
	"movdqa	\\b, %%xmm15\n\t"					\
	"pslld	$7, %%xmm15\n\t"					\
	"psrld	$25, \\b\n\t"						\
	"por	%%xmm15, \\b\n\t"					\
	".endm\n\t"

static __always_inline void cc_4ks(const u32 *state, cc_v4 *x,
				   struct cc_ph *ph, const u8 *pm,
				   unsigned int pn)
{
	register cc_v4 x0 asm("xmm0"), x1 asm("xmm1"), x2 asm("xmm2");
	register cc_v4 x3 asm("xmm3"), x4 asm("xmm4"), x5 asm("xmm5");
	register cc_v4 x6 asm("xmm6"), x7 asm("xmm7"), x8 asm("xmm8");
	register cc_v4 x9 asm("xmm9"), x10 asm("xmm10"), x11 asm("xmm11");
	register cc_v4 x12 asm("xmm12"), x13 asm("xmm13");
	cc_v4 m[4] __uninitialized;
	const struct cc_ph_split sp = cc_ph_split(pn);
	int i;

	for (i = 0; i < 16; i++)
		x[i] = (cc_v4){ state[i], state[i], state[i], state[i] };
	x[12] += (cc_v4){ 0, 1, 2, 3 };
	x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
	x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];
	x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11];
	x12 = x[12], x13 = x[13], m[0] = x[14], m[1] = x[15];
	m[2] = (cc_v4)(cc_b16){
		2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13
	};
	m[3] = (cc_v4)(cc_b16){
		3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14
	};

	for (i = 0; i < 10; i++) {
		unsigned int n = cc_ph_share(sp, i);

		asm volatile(CC_QR4_MACRO
		    "movdqa	(%[m]), %%xmm14\n\t"
		    "cc_qr4 %[x0], %[x4], %[x8], %[x12]\n\t"
		    "cc_qr4 %[x1], %[x5], %[x9], %[x13]\n\t"
		    "cc_qr4 %[x2], %[x6], %[x10], %%xmm14\n\t"
		    "movdqa	%%xmm14, (%[m])\n\t"
		    "movdqa	16(%[m]), %%xmm14\n\t"
		    "cc_qr4 %[x3], %[x7], %[x11], %%xmm14\n\t"
		    "cc_qr4 %[x0], %[x5], %[x10], %%xmm14\n\t"
		    "cc_qr4 %[x1], %[x6], %[x11], %[x12]\n\t"
		    "cc_qr4 %[x2], %[x7], %[x8], %[x13]\n\t"
		    "movdqa	%%xmm14, 16(%[m])\n\t"
		    "movdqa	(%[m]), %%xmm14\n\t"
		    "cc_qr4 %[x3], %[x4], %[x9], %%xmm14\n\t"
		    "movdqa	%%xmm14, (%[m])\n\t"
		    ".purgem cc_qr4"
		    : [x0] "+x" (x0), [x1] "+x" (x1), [x2] "+x" (x2),
		      [x3] "+x" (x3), [x4] "+x" (x4), [x5] "+x" (x5),
		      [x6] "+x" (x6), [x7] "+x" (x7), [x8] "+x" (x8),
		      [x9] "+x" (x9), [x10] "+x" (x10), [x11] "+x" (x11),
		      [x12] "+x" (x12), [x13] "+x" (x13)
		    : [m] "r" (m)
		    : "xmm14", "xmm15", "memory");
		cc_ph_round(ph, &pm, n);
	}

	x[0] += x0, x[1] += x1, x[2] += x2, x[3] += x3;
	x[4] += x4, x[5] += x5, x[6] += x6, x[7] += x7;
	x[8] += x8, x[9] += x9, x[10] += x10, x[11] += x11;
	x[12] += x12, x[13] += x13, x[14] += m[0], x[15] += m[1];
}
#else
/*
 * Keystream words of four blocks at counters state[12] .. + 3 ("vertical":
 * x[i] holds word i of each), hashing @pn Poly1305 blocks at @pm meanwhile.
 * (The AVX2 build: its 4-block tails only; no SSE forms next to AVX ones.)
 */
static __always_inline void cc_4ks(const u32 *state, cc_v4 *x,
				   struct cc_ph *ph, const u8 *pm,
				   unsigned int pn)
{
	const struct cc_ph_split sp = cc_ph_split(pn);
	int i;

	for (i = 0; i < 16; i++)
		x[i] = (cc_v4){ state[i], state[i], state[i], state[i] };
	x[12] += (cc_v4){ 0, 1, 2, 3 };

	for (i = 0; i < 10; i++) {
		cc_dround4(x);
		cc_ph_blocks(ph, pm, cc_ph_share(sp, i));
		pm += 16 * cc_ph_share(sp, i);
	}

	for (i = 0; i < 16; i++)
		x[i] += (cc_v4){ state[i], state[i], state[i], state[i] };
	x[12] += (cc_v4){ 0, 1, 2, 3 };
}
#endif /* CC_WIDE */

/* Four blocks of keystream words xored into dst (src NULL: stored). */
static __always_inline void cc_4out(const cc_v4 *x, u8 *dst, const u8 *src)
{
	cc_v4 t0, t1, t2, t3;
	int i;

	/* 4x4 transposes: group g gives bytes 16g..16g+15 of each block */
	for (i = 0; i < 4; i++) {
		cc_v4 a = x[4 * i], b = x[4 * i + 1];
		cc_v4 c = x[4 * i + 2], d = x[4 * i + 3];
		cc_v4 r[4];
		int j;

		t0 = __builtin_shuffle(a, b, (cc_v4){ 0, 4, 1, 5 });
		t1 = __builtin_shuffle(a, b, (cc_v4){ 2, 6, 3, 7 });
		t2 = __builtin_shuffle(c, d, (cc_v4){ 0, 4, 1, 5 });
		t3 = __builtin_shuffle(c, d, (cc_v4){ 2, 6, 3, 7 });
		r[0] = __builtin_shuffle(t0, t2, (cc_v4){ 0, 1, 4, 5 });
		r[1] = __builtin_shuffle(t0, t2, (cc_v4){ 2, 3, 6, 7 });
		r[2] = __builtin_shuffle(t1, t3, (cc_v4){ 0, 1, 4, 5 });
		r[3] = __builtin_shuffle(t1, t3, (cc_v4){ 2, 3, 6, 7 });
		for (j = 0; j < 4; j++) {
			cc_v4_un *o = (cc_v4_un *)(dst + 64 * j + 16 * i);

			if (src)
				r[j] ^= *(const cc_v4_un *)(src + 64 * j +
							    16 * i);
			*o = r[j];
		}
	}
}

#ifdef CC_WIDE
/* ------------------------------------------------------------------ */
/* 256-bit vectors                                                     */

typedef u32 cc_v8 __attribute__((vector_size(32)));
typedef u32 cc_v8_un __attribute__((vector_size(32))) __aligned(1);
typedef u8 cc_b32 __attribute__((vector_size(32)));

/* word @w in all eight lanes */
static __always_inline cc_v8 cc_bc8(u32 w)
{
	return (cc_v8){ w, w, w, w, w, w, w, w };
}

static __always_inline cc_v8 cc_rol8(cc_v8 v, int n)
{
	return (v << n) | (v >> (32 - n));
}

/* as cc_rol4_16() and cc_rol4_8(), within each 128-bit lane */
static __always_inline cc_v8 cc_rol8_16(cc_v8 v)
{
#ifdef CC_VPROLD
	return cc_rol8(v, 16);
#else
	const cc_b32 m = {
		2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
		18, 19, 16, 17, 22, 23, 20, 21, 26, 27, 24, 25, 30, 31, 28, 29
	};

	return (cc_v8)__builtin_shuffle((cc_b32)v, m);
#endif
}

static __always_inline cc_v8 cc_rol8_8(cc_v8 v)
{
#ifdef CC_VPROLD
	return cc_rol8(v, 8);
#else
	const cc_b32 m = {
		3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
		19, 16, 17, 18, 23, 20, 21, 22, 27, 24, 25, 26, 31, 28, 29, 30
	};

	return (cc_v8)__builtin_shuffle((cc_b32)v, m);
#endif
}

static __always_inline void cc_qr8(cc_v8 *a, cc_v8 *b, cc_v8 *c, cc_v8 *d)
{
	*a += *b;
	*d = cc_rol8_16(*d ^ *a);
	*c += *d;
	*b = cc_rol8(*b ^ *c, 12);
	*a += *b;
	*d = cc_rol8_8(*d ^ *a);
	*c += *d;
	*b = cc_rol8(*b ^ *c, 7);
}

static __always_inline void cc_dround8(cc_v8 *x)
{
	cc_qr8(&x[0], &x[4], &x[8], &x[12]);
	cc_qr8(&x[1], &x[5], &x[9], &x[13]);
	cc_qr8(&x[2], &x[6], &x[10], &x[14]);
	cc_qr8(&x[3], &x[7], &x[11], &x[15]);
	cc_qr8(&x[0], &x[5], &x[10], &x[15]);
	cc_qr8(&x[1], &x[6], &x[11], &x[12]);
	cc_qr8(&x[2], &x[7], &x[8], &x[13]);
	cc_qr8(&x[3], &x[4], &x[9], &x[14]);
}

/*
 * Lane-local 4x4 transpose of words 4g..4g+3: afterwards the low 128 bits
 * of r[j] are those words of block j, the high 128 bits of block j + 4.
 */
static __always_inline void cc_tr8(const cc_v8 *x, cc_v8 *r)
{
	cc_v8 t0, t1, t2, t3;

	t0 = __builtin_shuffle(x[0], x[1], (cc_v8){ 0, 8, 1, 9, 4, 12, 5, 13 });
	t1 = __builtin_shuffle(x[0], x[1], (cc_v8){ 2, 10, 3, 11, 6, 14, 7, 15 });
	t2 = __builtin_shuffle(x[2], x[3], (cc_v8){ 0, 8, 1, 9, 4, 12, 5, 13 });
	t3 = __builtin_shuffle(x[2], x[3], (cc_v8){ 2, 10, 3, 11, 6, 14, 7, 15 });
	r[0] = __builtin_shuffle(t0, t2, (cc_v8){ 0, 1, 8, 9, 4, 5, 12, 13 });
	r[1] = __builtin_shuffle(t0, t2, (cc_v8){ 2, 3, 10, 11, 6, 7, 14, 15 });
	r[2] = __builtin_shuffle(t1, t3, (cc_v8){ 0, 1, 8, 9, 4, 5, 12, 13 });
	r[3] = __builtin_shuffle(t1, t3, (cc_v8){ 2, 3, 10, 11, 6, 7, 14, 15 });
}

static __always_inline void cc_put8(u8 *dst, const u8 *src, cc_v8 v)
{
	if (src)
		v ^= *(const cc_v8_un *)src;
	*(cc_v8_un *)dst = v;
}

#ifndef CC_VPROLD
/*
 * One double round on eight blocks in AVX2 assembly. The sixteen state
 * vectors and a temporary for the 12- and 7-bit rotates need seventeen
 * registers of sixteen, and GCC spilled a dozen vectors per double round.
 * Here x0..x13 stay in registers, x14 and x15 share ymm14 through memory
 * (m[0] and m[1]): the column round's last quarter needs x15 but not x14,
 * the diagonal round's last x14 but not x15, so they swap there. ymm15 is
 * the temporary; the byte-shuffle masks are m[2] and m[3]. Three stores
 * and three loads per double round. x0..x13 are register variables in
 * ymm0..ymm13: between two double rounds only the scalar Poly1305 work
 * runs, and without the binding GCC stored and reloaded them there.
 */
#define CC_QR8_MACRO						\
	".macro cc_qr8 a, b, c, d\n\t"					\
	"vpaddd	\\b, \\a, \\a\n\t"					\
	"vpxor	\\a, \\d, \\d\n\t"					\
	"vpshufb	64(%[m]), \\d, \\d\n\t"				\
	"vpaddd	\\d, \\c, \\c\n\t"					\
	"vpxor	\\c, \\b, \\b\n\t"					\
	"vpslld	$12, \\b, %%ymm15\n\t"					\
	"vpsrld	$20, \\b, \\b\n\t"					\
	"vpor	%%ymm15, \\b, \\b\n\t"					\
	"vpaddd	\\b, \\a, \\a\n\t"					\
	"vpxor	\\a, \\d, \\d\n\t"					\
	"vpshufb	96(%[m]), \\d, \\d\n\t"				\
	"vpaddd	\\d, \\c, \\c\n\t"					\
	"vpxor	\\c, \\b, \\b\n\t"					\
	"vpslld	$7, \\b, %%ymm15\n\t"					\
	"vpsrld	$25, \\b, \\b\n\t"					\
	"vpor	%%ymm15, \\b, \\b\n\t"					\
	".endm\n\t"

/* Keystream words of eight blocks, hashing pn Poly1305 blocks meanwhile. */
static __always_inline void cc_8ks(const u32 *state, cc_v8 *x,
				   struct cc_ph *ph, const u8 *pm,
				   unsigned int pn)
{
	register cc_v8 x0 asm("xmm0"), x1 asm("xmm1"), x2 asm("xmm2");
	register cc_v8 x3 asm("xmm3"), x4 asm("xmm4"), x5 asm("xmm5");
	register cc_v8 x6 asm("xmm6"), x7 asm("xmm7"), x8 asm("xmm8");
	register cc_v8 x9 asm("xmm9"), x10 asm("xmm10"), x11 asm("xmm11");
	register cc_v8 x12 asm("xmm12"), x13 asm("xmm13");
	const cc_v8 ctr = { 0, 1, 2, 3, 4, 5, 6, 7 };
	cc_v8 m[4] __uninitialized;
	const struct cc_ph_split sp = cc_ph_split(pn);
	int i;

	/* each word broadcast straight into its register (vpbroadcastd) */
	x0 = cc_bc8(state[0]);
	x1 = cc_bc8(state[1]);
	x2 = cc_bc8(state[2]);
	x3 = cc_bc8(state[3]);
	x4 = cc_bc8(state[4]);
	x5 = cc_bc8(state[5]);
	x6 = cc_bc8(state[6]);
	x7 = cc_bc8(state[7]);
	x8 = cc_bc8(state[8]);
	x9 = cc_bc8(state[9]);
	x10 = cc_bc8(state[10]);
	x11 = cc_bc8(state[11]);
	x12 = cc_bc8(state[12]) + ctr;
	x13 = cc_bc8(state[13]);
	m[0] = cc_bc8(state[14]);
	m[1] = cc_bc8(state[15]);
	m[2] = (cc_v8)(cc_b32){
		2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
		18, 19, 16, 17, 22, 23, 20, 21, 26, 27, 24, 25, 30, 31, 28, 29
	};
	m[3] = (cc_v8)(cc_b32){
		3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
		19, 16, 17, 18, 23, 20, 21, 22, 27, 24, 25, 26, 31, 28, 29, 30
	};

	for (i = 0; i < 10; i++) {
		unsigned int n = cc_ph_share(sp, i);

		asm volatile(CC_QR8_MACRO
		    "vmovdqa	(%[m]), %%ymm14\n\t"
		    "cc_qr8 %[x0], %[x4], %[x8], %[x12]\n\t"
		    "cc_qr8 %[x1], %[x5], %[x9], %[x13]\n\t"
		    "cc_qr8 %[x2], %[x6], %[x10], %%ymm14\n\t"
		    "vmovdqa	%%ymm14, (%[m])\n\t"
		    "vmovdqa	32(%[m]), %%ymm14\n\t"
		    "cc_qr8 %[x3], %[x7], %[x11], %%ymm14\n\t"
		    "cc_qr8 %[x0], %[x5], %[x10], %%ymm14\n\t"
		    "cc_qr8 %[x1], %[x6], %[x11], %[x12]\n\t"
		    "cc_qr8 %[x2], %[x7], %[x8], %[x13]\n\t"
		    "vmovdqa	%%ymm14, 32(%[m])\n\t"
		    "vmovdqa	(%[m]), %%ymm14\n\t"
		    "cc_qr8 %[x3], %[x4], %[x9], %%ymm14\n\t"
		    "vmovdqa	%%ymm14, (%[m])\n\t"
		    ".purgem cc_qr8"
		    : [x0] "+x" (x0), [x1] "+x" (x1), [x2] "+x" (x2),
		      [x3] "+x" (x3), [x4] "+x" (x4), [x5] "+x" (x5),
		      [x6] "+x" (x6), [x7] "+x" (x7), [x8] "+x" (x8),
		      [x9] "+x" (x9), [x10] "+x" (x10), [x11] "+x" (x11),
		      [x12] "+x" (x12), [x13] "+x" (x13)
		    : [m] "r" (m)
		    : "xmm14", "xmm15", "memory");
		cc_ph_round(ph, &pm, n);
	}

	x[0] = x0 + cc_bc8(state[0]);
	x[1] = x1 + cc_bc8(state[1]);
	x[2] = x2 + cc_bc8(state[2]);
	x[3] = x3 + cc_bc8(state[3]);
	x[4] = x4 + cc_bc8(state[4]);
	x[5] = x5 + cc_bc8(state[5]);
	x[6] = x6 + cc_bc8(state[6]);
	x[7] = x7 + cc_bc8(state[7]);
	x[8] = x8 + cc_bc8(state[8]);
	x[9] = x9 + cc_bc8(state[9]);
	x[10] = x10 + cc_bc8(state[10]);
	x[11] = x11 + cc_bc8(state[11]);
	x[12] = x12 + cc_bc8(state[12]) + ctr;
	x[13] = x13 + cc_bc8(state[13]);
	x[14] = m[0] + cc_bc8(state[14]);
	x[15] = m[1] + cc_bc8(state[15]);
}
#else
/* Keystream words of eight blocks, hashing pn Poly1305 blocks meanwhile. */
static __always_inline void cc_8ks(const u32 *state, cc_v8 *x,
				   struct cc_ph *ph, const u8 *pm,
				   unsigned int pn)
{
	const struct cc_ph_split sp = cc_ph_split(pn);
	const cc_v8 ctr = { 0, 1, 2, 3, 4, 5, 6, 7 };
	int i;

	for (i = 0; i < 16; i++)
		x[i] = (cc_v8){ state[i], state[i], state[i], state[i],
				state[i], state[i], state[i], state[i] };
	x[12] += ctr;

	for (i = 0; i < 10; i++) {
		cc_dround8(x);
		cc_ph_blocks(ph, pm, cc_ph_share(sp, i));
		pm += 16 * cc_ph_share(sp, i);
	}

	for (i = 0; i < 16; i++)
		x[i] += (cc_v8){ state[i], state[i], state[i], state[i],
				 state[i], state[i], state[i], state[i] };
	x[12] += ctr;
}
#endif /* CC_VPROLD */

/* Eight blocks of keystream words xored into dst (src NULL: stored). */
static __always_inline void cc_8out(const cc_v8 *x, u8 *dst, const u8 *src)
{
	cc_v8 lo[4], hi[4];
	int h, j;

	/* h = 0: bytes 0..31 of every block, h = 1: bytes 32..63 */
	for (h = 0; h < 2; h++) {
		cc_tr8(&x[8 * h], lo);
		cc_tr8(&x[8 * h + 4], hi);
		for (j = 0; j < 4; j++) {
			cc_v8 a = __builtin_shuffle(lo[j], hi[j],
				(cc_v8){ 0, 1, 2, 3, 8, 9, 10, 11 });
			cc_v8 b = __builtin_shuffle(lo[j], hi[j],
				(cc_v8){ 4, 5, 6, 7, 12, 13, 14, 15 });
			unsigned int oa = 64 * j + 32 * h;
			unsigned int ob = 64 * (j + 4) + 32 * h;

			cc_put8(dst + oa, src ? src + oa : NULL, a);
			cc_put8(dst + ob, src ? src + ob : NULL, b);
		}
	}
}

/*
 * Two blocks at counters state[12] and + 1 the horizontal way, one in each
 * 128-bit lane: the cost of one block in 128-bit vectors.
 */
static __always_inline void cc_2block(const u32 *state, u8 *dst,
				      const u8 *src)
{
	const cc_v8 s0 = { state[0], state[1], state[2], state[3],
			   state[0], state[1], state[2], state[3] };
	const cc_v8 s1 = { state[4], state[5], state[6], state[7],
			   state[4], state[5], state[6], state[7] };
	const cc_v8 s2 = { state[8], state[9], state[10], state[11],
			   state[8], state[9], state[10], state[11] };
	const cc_v8 s3 = { state[12], state[13], state[14], state[15],
			   state[12] + 1, state[13], state[14], state[15] };
	const cc_v8 rot1 = { 1, 2, 3, 0, 5, 6, 7, 4 };
	const cc_v8 rot2 = { 2, 3, 0, 1, 6, 7, 4, 5 };
	const cc_v8 rot3 = { 3, 0, 1, 2, 7, 4, 5, 6 };
	const cc_v8 lo = { 0, 1, 2, 3, 8, 9, 10, 11 };
	const cc_v8 hi = { 4, 5, 6, 7, 12, 13, 14, 15 };
	cc_v8 a = s0, b = s1, c = s2, d = s3;
	int i;

	for (i = 0; i < 10; i++) {
		cc_qr8(&a, &b, &c, &d);
		b = __builtin_shuffle(b, rot1);
		c = __builtin_shuffle(c, rot2);
		d = __builtin_shuffle(d, rot3);
		cc_qr8(&a, &b, &c, &d);
		b = __builtin_shuffle(b, rot3);
		c = __builtin_shuffle(c, rot2);
		d = __builtin_shuffle(d, rot1);
	}
	a += s0;
	b += s1;
	c += s2;
	d += s3;
	/* block 0: the low lanes of a, b, c, d; block 1: the high lanes */
	cc_put8(dst, src, __builtin_shuffle(a, b, lo));
	cc_put8(dst + 32, src ? src + 32 : NULL, __builtin_shuffle(c, d, lo));
	cc_put8(dst + 64, src ? src + 64 : NULL, __builtin_shuffle(a, b, hi));
	cc_put8(dst + 96, src ? src + 96 : NULL, __builtin_shuffle(c, d, hi));
}

#define CC_GROUP 8U	/* blocks per pass */
#define cc_vec cc_v8
#define cc_gks cc_8ks
#define cc_gout cc_8out
#else
#define CC_GROUP 4U
#define cc_vec cc_v4
#define cc_gks cc_4ks
#define cc_gout cc_4out
#endif /* CC_WIDE */

/* n bytes (a multiple of 16) of dst = src ^ ks, 32 at a time where wide */
static __always_inline void cc_xor16(u8 *dst, const u8 *src, const u8 *ks,
				     unsigned int n)
{
#ifdef CC_WIDE
	for (; n >= 32; n -= 32, dst += 32, src += 32, ks += 32)
		*(cc_v8_un *)dst = *(const cc_v8_un *)src ^
				   *(const cc_v8_un *)ks;
#endif
	for (; n; n -= 16, dst += 16, src += 16, ks += 16)
		*(cc_v4_un *)dst = *(const cc_v4_un *)src ^
				   *(const cc_v4_un *)ks;
}

/* ------------------------------------------------------------------ */
/* Exported: raw keystream, fused seal and open                        */

/*
 * Xor nblocks * 64 bytes of keystream into dst (src == NULL: store the
 * keystream itself) and advance the block counter state[12].
 */
void CC_FN(chacha_xor)(u32 *state, u8 *dst, const u8 *src,
		       unsigned int nblocks)
{
	struct cc_ph ph = { };
	cc_vec x[16] __uninitialized;

	while (nblocks >= CC_GROUP) {
		cc_gks(state, x, &ph, NULL, 0);
		cc_gout(x, dst, src);
		state[12] += CC_GROUP;
		dst += CC_GROUP * CHACHA_BLOCK_SIZE;
		if (src)
			src += CC_GROUP * CHACHA_BLOCK_SIZE;
		nblocks -= CC_GROUP;
	}
#ifdef CC_WIDE
	if (nblocks >= 4) {
		cc_v4 y[16] __uninitialized;

		cc_4ks(state, y, &ph, NULL, 0);
		cc_4out(y, dst, src);
		state[12] += 4;
		dst += 4 * CHACHA_BLOCK_SIZE;
		if (src)
			src += 4 * CHACHA_BLOCK_SIZE;
		nblocks -= 4;
	}
	while (nblocks >= 2) {
		cc_2block(state, dst, src);
		state[12] += 2;
		dst += 2 * CHACHA_BLOCK_SIZE;
		if (src)
			src += 2 * CHACHA_BLOCK_SIZE;
		nblocks -= 2;
	}
#endif
	while (nblocks--) {
		cc_1block(state, dst, src);
		state[12]++;
		dst += CHACHA_BLOCK_SIZE;
		if (src)
			src += CHACHA_BLOCK_SIZE;
	}
}

/*
 * The last 1..CC_GROUP - 1 blocks of a pass: below 4 one or two at a time
 * (the horizontal way, a third of a group's cost each), else a whole group
 * whose unused blocks wait in a->ks for the text that follows. @pm, @pn:
 * Poly1305 work to do meanwhile; @x: the caller's group of vectors, for
 * room. Returns the keystream's address.
 */
static __always_inline const u8 *cc_tail_ks(struct cc_aead *a,
					    struct cc_ph *ph, cc_vec *x,
					    const u8 *pm, unsigned int pn,
					    unsigned int nblocks)
{
	unsigned int i;

	if (nblocks < 4) {
		cc_ph_blocks(ph, pm, pn);
		cc_ks_written(a, nblocks * CHACHA_BLOCK_SIZE);
		i = 0;
#ifdef CC_WIDE
		for (; i + 2 <= nblocks; i += 2) {
			cc_2block(a->state, a->ks + i * CHACHA_BLOCK_SIZE,
				  NULL);
			a->state[12] += 2;
		}
#endif
		for (; i < nblocks; i++) {
			cc_1block(a->state, a->ks + i * CHACHA_BLOCK_SIZE,
				  NULL);
			a->state[12]++;
		}
		return a->ks;
	}
	cc_gks(a->state, x, ph, pm, pn);
	cc_gout(x, a->ks, NULL);
	a->state[12] += CC_GROUP;
	a->ks_pos = nblocks * CHACHA_BLOCK_SIZE;
	a->ks_len = CC_GROUP * CHACHA_BLOCK_SIZE;
	cc_ks_written(a, a->ks_len);
	return a->ks;
}

/*
 * Encrypt: the @pn blocks before dst first (xored here from the end of
 * a->ks), then each group's cipher text is hashed while the next group's
 * keystream is computed; the last group's during the tail's, or alone.
 */
void CC_FN(cc_seal)(struct cc_aead *a, u8 *dst, const u8 *src,
		    unsigned int nblocks, unsigned int pn)
{
	const unsigned int gbytes = CC_GROUP * CHACHA_BLOCK_SIZE;
	const u8 *pend = dst - 16 * pn;	/* cipher text not hashed yet */
	struct cc_ph ph;
	cc_vec x[16] __uninitialized;

	cc_xor16(dst - 16 * pn, src - 16 * pn, a->ks + a->ks_len - 16 * pn,
		 16 * pn);
	cc_ph_load(&ph, &a->poly);
	while (nblocks >= CC_GROUP) {
		cc_gks(a->state, x, &ph, pend, pn);
		cc_gout(x, dst, src);
		a->state[12] += CC_GROUP;
		pend = dst;
		pn = gbytes / 16;
		dst += gbytes;
		src += gbytes;
		nblocks -= CC_GROUP;
	}
	if (nblocks) {
		const u8 *ks = cc_tail_ks(a, &ph, x, pend, pn, nblocks);

		cc_xor16(dst, src, ks, nblocks * CHACHA_BLOCK_SIZE);
		pend = dst;
		pn = nblocks * CHACHA_BLOCK_SIZE / 16;
	}
	cc_ph_blocks(&ph, pend, pn);
	cc_ph_store(&ph, &a->poly);
}

/*
 * Decrypt: each group's cipher text is hashed while its keystream is
 * computed; the @pn blocks before src with the first group's, and then
 * decrypted with the end of a->ks (before a tail may refill it).
 */
void CC_FN(cc_open)(struct cc_aead *a, u8 *dst, const u8 *src,
		    unsigned int nblocks, unsigned int pn)
{
	const unsigned int gbytes = CC_GROUP * CHACHA_BLOCK_SIZE;
	const u8 *pks = a->ks + a->ks_len - 16 * pn;
	struct cc_ph ph;
	cc_vec x[16] __uninitialized;

	cc_ph_load(&ph, &a->poly);
	if (nblocks < CC_GROUP)
		cc_ph_blocks(&ph, src - 16 * pn, pn);
	else
		cc_gks(a->state, x, &ph, src - 16 * pn, pn + gbytes / 16);
	cc_xor16(dst - 16 * pn, src - 16 * pn, pks, 16 * pn);
	while (nblocks >= CC_GROUP) {
		cc_gout(x, dst, src);
		a->state[12] += CC_GROUP;
		dst += gbytes;
		src += gbytes;
		nblocks -= CC_GROUP;
		if (nblocks >= CC_GROUP)
			cc_gks(a->state, x, &ph, src, gbytes / 16);
	}
	if (nblocks) {
		const u8 *ks = cc_tail_ks(a, &ph, x, src,
					  nblocks * CHACHA_BLOCK_SIZE / 16,
					  nblocks);

		cc_xor16(dst, src, ks, nblocks * CHACHA_BLOCK_SIZE);
	}
	cc_ph_store(&ph, &a->poly);
}
#endif /* __CHECKER__ */
