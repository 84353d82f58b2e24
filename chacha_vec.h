/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ChaCha20 block function in SIMD, written once with GCC vector extensions
 * and compiled several times: chacha_ssse3.c, chacha_avx2.c and
 * chacha_avx512.c include this file with their own -m flags.
 *
 * Layout is "vertical": vector word i holds state word i of W consecutive
 * blocks (W = 4 with 128-bit vectors, W = 8 with 256-bit vectors), so a
 * round is plain lane-wise adds, xors and rotates. The keystream is put
 * back in block order with a transpose before it is xored with the data.
 *
 * Rotates are written as two shifts and an or: GCC turns them into vprold
 * with -mavx512vl. (pshufb for the 16- and 8-bit rotates measured no faster
 * on real hardware here, and half as fast under qemu TCG, which emulates
 * pshufb with a helper call.) 1 to 3 trailing blocks use a one-block
 * "horizontal" routine (rows in vectors, diagonals by pshufd).
 *
 * The including file defines:
 *   CC_FN(name)  the name of the exported function (per instruction set)
 *   CC_WIDE      to build the 8-block path (256-bit vectors)
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
		    unsigned int nblocks)
{
}

void CC_FN(cc_open)(struct cc_aead *a, u8 *dst, const u8 *src,
		    unsigned int nblocks)
{
}
#else

typedef u32 cc_v4 __attribute__((vector_size(16)));
typedef u32 cc_v4_un __attribute__((vector_size(16))) __aligned(1);

static __always_inline cc_v4 cc_rol4(cc_v4 v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static __always_inline void cc_qr4(cc_v4 *a, cc_v4 *b, cc_v4 *c, cc_v4 *d)
{
	*a += *b;
	*d = cc_rol4(*d ^ *a, 16);
	*c += *d;
	*b = cc_rol4(*b ^ *c, 12);
	*a += *b;
	*d = cc_rol4(*d ^ *a, 8);
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

/* Four blocks at counters state[12] .. state[12] + 3, 128-bit vectors. */
static __always_inline void cc_4blocks(const u32 *state, u8 *dst,
				       const u8 *src)
{
	cc_v4 x[16], t0, t1, t2, t3;
	int i;

	for (i = 0; i < 16; i++)
		x[i] = (cc_v4){ state[i], state[i], state[i], state[i] };
	x[12] += (cc_v4){ 0, 1, 2, 3 };

	for (i = 0; i < 10; i++)
		cc_dround4(x);

	for (i = 0; i < 16; i++)
		x[i] += (cc_v4){ state[i], state[i], state[i], state[i] };
	x[12] += (cc_v4){ 0, 1, 2, 3 };

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
typedef u32 cc_v8 __attribute__((vector_size(32)));
typedef u32 cc_v8_un __attribute__((vector_size(32))) __aligned(1);

static __always_inline cc_v8 cc_rol8(cc_v8 v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static __always_inline void cc_qr8(cc_v8 *a, cc_v8 *b, cc_v8 *c, cc_v8 *d)
{
	*a += *b;
	*d = cc_rol8(*d ^ *a, 16);
	*c += *d;
	*b = cc_rol8(*b ^ *c, 12);
	*a += *b;
	*d = cc_rol8(*d ^ *a, 8);
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

/* Eight blocks at counters state[12] .. state[12] + 7, 256-bit vectors. */
static __always_inline void cc_8blocks(const u32 *state, u8 *dst,
				       const u8 *src)
{
	const cc_v8 ctr = { 0, 1, 2, 3, 4, 5, 6, 7 };
	cc_v8 x[16], lo[4], hi[4];
	int i, h, j;

	for (i = 0; i < 16; i++)
		x[i] = (cc_v8){ state[i], state[i], state[i], state[i],
				state[i], state[i], state[i], state[i] };
	x[12] += ctr;

	for (i = 0; i < 10; i++)
		cc_dround8(x);

	for (i = 0; i < 16; i++)
		x[i] += (cc_v8){ state[i], state[i], state[i], state[i],
				 state[i], state[i], state[i], state[i] };
	x[12] += ctr;

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
#endif /* CC_WIDE */

/*
 * Xor nblocks * 64 bytes of keystream into dst (src == NULL: store the
 * keystream itself) and advance the block counter state[12].
 */
void CC_FN(chacha_xor)(u32 *state, u8 *dst, const u8 *src,
		       unsigned int nblocks)
{
#ifdef CC_WIDE
	while (nblocks >= 8) {
		cc_8blocks(state, dst, src);
		state[12] += 8;
		dst += 8 * CHACHA_BLOCK_SIZE;
		if (src)
			src += 8 * CHACHA_BLOCK_SIZE;
		nblocks -= 8;
	}
#endif
	while (nblocks >= 4) {
		cc_4blocks(state, dst, src);
		state[12] += 4;
		dst += 4 * CHACHA_BLOCK_SIZE;
		if (src)
			src += 4 * CHACHA_BLOCK_SIZE;
		nblocks -= 4;
	}
	while (nblocks--) {
		cc_1block(state, dst, src);
		state[12]++;
		dst += CHACHA_BLOCK_SIZE;
		if (src)
			src += CHACHA_BLOCK_SIZE;
	}
}

/* 16 blocks (1 KiB) ciphered, then hashed while they are in L1 */
#define CC_RUN 16U

void CC_FN(cc_seal)(struct cc_aead *a, u8 *dst, const u8 *src,
		    unsigned int nblocks)
{
	while (nblocks) {
		unsigned int n = nblocks < CC_RUN ? nblocks : CC_RUN;

		CC_FN(chacha_xor)(a->state, dst, src, n);
		cc_poly_blocks(&a->poly, dst, n * 4, 1);
		dst += n * CHACHA_BLOCK_SIZE;
		src += n * CHACHA_BLOCK_SIZE;
		nblocks -= n;
	}
}

void CC_FN(cc_open)(struct cc_aead *a, u8 *dst, const u8 *src,
		    unsigned int nblocks)
{
	while (nblocks) {
		unsigned int n = nblocks < CC_RUN ? nblocks : CC_RUN;

		cc_poly_blocks(&a->poly, src, n * 4, 1);
		CC_FN(chacha_xor)(a->state, dst, src, n);
		dst += n * CHACHA_BLOCK_SIZE;
		src += n * CHACHA_BLOCK_SIZE;
		nblocks -= n;
	}
}
#endif /* __CHECKER__ */
