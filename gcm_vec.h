/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AES-GCM in SIMD, written once with GCC vector extensions and builtins and
 * compiled per instruction set: gcm_aesni.c (SSE encoding),
 * gcm_aesni_avx.c (VEX encoding), and with the bulk of the text on wide
 * vectors (gcm_wide.h) gcm_vaes_avx2.c (256-bit) and gcm_vaes_avx512.c
 * (512-bit). Each including file defines GCM_LEVEL(name), which names its
 * functions, and GCM_LEVEL_NAME; the wide ones GCM_WIDE, the blocks in a
 * vector.
 *
 * GHASH. GCM's field elements map bits to polynomial coefficients
 * backwards (the first bit of a block is x^0). A byte-reflected block read
 * as a 128-bit integer has them in reverse order, and a carry-less product
 * of two such values is the reflected product shifted by one bit. So the
 * hash key is kept byte-reflected and multiplied by x once (H << 1, folded
 * back by the reflected polynomial), and every product of a data block
 * with it comes out right. Read with the coefficients in natural order,
 * the multiplication computes a * b * x^-128 modulo
 * x^128 + x^127 + x^126 + x^121 + 1, and the 256-bit product
 * x^128 HI + x^64 MI + LO is reduced in two folds of 64 bits: a 64-bit
 * half B_L is cancelled by adding B_L times that polynomial, which is the
 * halves of B swapped plus B_L * (x^63 + x^62 + x^57), one PCLMULQDQ.
 *
 * Bulk text goes eight blocks at a time: eight AES blocks in flight hide
 * the AES latency, and the GHASH of eight blocks is the sum of the blocks
 * times H^8 .. H^1, with one reduction per eight. The products use
 * Karatsuba's three multiplications (the middle one against the xor of the
 * key power's halves, precomputed): on AMD CPUs a PCLMULQDQ costs more than
 * the shuffle and xor that replace the fourth.
 *
 * Nothing here may run outside kernel_fpu_begin()/kernel_fpu_end().
 */

#include "gcm_core.h"

#ifdef __CHECKER__
/* sparse does not parse GCC vector extensions: it checks the interface only */
static bool GCM_LEVEL(setkey)(struct gcm_key *k, const u8 *key,
			      unsigned int keylen)
{
	return false;
}

static void GCM_LEVEL(start)(const struct gcm_key *k, struct gcm_state *st,
			     const u8 *nonce, const u8 *ad, unsigned int adlen)
{
}

static void GCM_LEVEL(enc)(const struct gcm_key *k, struct gcm_state *st,
			   u8 *dst, const u8 *src, unsigned int len)
{
}

static void GCM_LEVEL(dec)(const struct gcm_key *k, struct gcm_state *st,
			   u8 *dst, const u8 *src, unsigned int len)
{
}

static void GCM_LEVEL(finish)(const struct gcm_key *k, struct gcm_state *st,
			      u8 *tag)
{
}
#else

/*
 * The types GCC's builtins take (s64 is long long); byte shuffles go
 * through __builtin_shuffle(), which becomes PSHUFB with a constant mask.
 * Loops over the blocks of a group and over the rounds carry
 * "#pragma GCC unroll": unless they are unrolled completely, GCC keeps the
 * blocks in memory across iterations.
 */
typedef s64 gv __attribute__((vector_size(16)));
typedef s64 gv_un __attribute__((vector_size(16), may_alias)) __aligned(1);
typedef s32 gv_d __attribute__((vector_size(16)));
typedef u8 gv_b __attribute__((vector_size(16)));

static __always_inline gv g_load(const u8 *p)
{
	return *(const gv_un *)p;
}

static __always_inline void g_store(u8 *p, gv v)
{
	*(gv_un *)p = v;
}

/* the 16-byte aligned fields of gcm_key and gcm_state */
static __always_inline gv g_ldk(const u8 *p)
{
	return *(const gv *)p;
}

static __always_inline void g_stk(u8 *p, gv v)
{
	*(gv *)p = v;
}

static __always_inline gv g_swap64(gv v)
{
	return __builtin_shuffle(v, (gv){ 1, 0 });
}

static __always_inline gv g_reflect(gv v)
{
	const gv_b m = { 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };

	return (gv)__builtin_shuffle((gv_b)v, m);
}

/*
 * The counter is a block's last 32 bits, big-endian. g_ctr_swap() turns
 * that word into a native one and back, so that counters add lane-wise.
 */
static __always_inline gv g_ctr_swap(gv v)
{
	const gv_b m = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12 };

	return (gv)__builtin_shuffle((gv_b)v, m);
}

static __always_inline gv g_ctr_add(gv c, int n)
{
	const gv_d inc = { 0, 0, 0, n };

	return (gv)((gv_d)c + inc);
}

#define g_clmul(a, b, imm) __builtin_ia32_pclmulqdq128((a), (b), (imm))

/* ------------------------------------------------------------------ */
/* AES: key expansion and single blocks                                 */

static __always_inline gv g_rk(const struct gcm_key *k, unsigned int r)
{
	return g_ldk(k->rk[r]);
}

static __always_inline gv g_aes1(const struct gcm_key *k, unsigned int rounds,
				 gv b)
{
	unsigned int r;

	b ^= g_rk(k, 0);
	for (r = 1; r < rounds; r++)
		b = __builtin_ia32_aesenc128(b, g_rk(k, r));
	return __builtin_ia32_aesenclast128(b, g_rk(k, rounds));
}

/* w ^ w << 32 ^ w << 64 ^ w << 96: the previous round key's words chained */
static __always_inline gv g_kx_chain(gv w)
{
	const gv_d z = { 0, 0, 0, 0 };

	w ^= (gv)__builtin_shuffle((gv_d)w, z, (gv_d){ 4, 0, 1, 2 });
	w ^= (gv)__builtin_shuffle((gv_d)w, z, (gv_d){ 4, 5, 0, 1 });
	return w;
}

/* word @i of an AESKEYGENASSIST result, in every word */
static __always_inline gv g_kx_word(gv t, int i)
{
	return (gv)__builtin_shuffle((gv_d)t, (gv_d){ i, i, i, i });
}

/* AESKEYGENASSIST's round constant must be a constant: macros */
#define G_KX(w, from, rcon, word) \
	(g_kx_chain(w) ^ \
	 g_kx_word(__builtin_ia32_aeskeygenassist128((from), (rcon)), (word)))
#define G_KX256A(w, b, rcon)	G_KX((w), (b), (rcon), 3)
#define G_KX256B(w, a)		G_KX((w), (a), 0, 2)

static __always_inline void g_put_rk(struct gcm_key *k, unsigned int r, gv v)
{
	g_stk(k->rk[r], v);
}

static void g_expand128(struct gcm_key *k, const u8 *key)
{
	gv w = g_load(key);

	g_put_rk(k, 0, w);
	w = G_KX(w, w, 0x01, 3);
	g_put_rk(k, 1, w);
	w = G_KX(w, w, 0x02, 3);
	g_put_rk(k, 2, w);
	w = G_KX(w, w, 0x04, 3);
	g_put_rk(k, 3, w);
	w = G_KX(w, w, 0x08, 3);
	g_put_rk(k, 4, w);
	w = G_KX(w, w, 0x10, 3);
	g_put_rk(k, 5, w);
	w = G_KX(w, w, 0x20, 3);
	g_put_rk(k, 6, w);
	w = G_KX(w, w, 0x40, 3);
	g_put_rk(k, 7, w);
	w = G_KX(w, w, 0x80, 3);
	g_put_rk(k, 8, w);
	w = G_KX(w, w, 0x1b, 3);
	g_put_rk(k, 9, w);
	w = G_KX(w, w, 0x36, 3);
	g_put_rk(k, 10, w);
	k->rounds = 10;
}

static void g_expand256(struct gcm_key *k, const u8 *key)
{
	gv a = g_load(key), b = g_load(key + 16);

	g_put_rk(k, 0, a);
	g_put_rk(k, 1, b);
	a = G_KX256A(a, b, 0x01);
	g_put_rk(k, 2, a);
	b = G_KX256B(b, a);
	g_put_rk(k, 3, b);
	a = G_KX256A(a, b, 0x02);
	g_put_rk(k, 4, a);
	b = G_KX256B(b, a);
	g_put_rk(k, 5, b);
	a = G_KX256A(a, b, 0x04);
	g_put_rk(k, 6, a);
	b = G_KX256B(b, a);
	g_put_rk(k, 7, b);
	a = G_KX256A(a, b, 0x08);
	g_put_rk(k, 8, a);
	b = G_KX256B(b, a);
	g_put_rk(k, 9, b);
	a = G_KX256A(a, b, 0x10);
	g_put_rk(k, 10, a);
	b = G_KX256B(b, a);
	g_put_rk(k, 11, b);
	a = G_KX256A(a, b, 0x20);
	g_put_rk(k, 12, a);
	b = G_KX256B(b, a);
	g_put_rk(k, 13, b);
	a = G_KX256A(a, b, 0x40);
	g_put_rk(k, 14, a);
	k->rounds = 14;
}

/* ------------------------------------------------------------------ */
/* GHASH                                                                */

struct g_prod {
	gv lo, mi, hi;
};

static __always_inline gv g_kara(gv d)
{
	return d ^ g_swap64(d);
}

/*
 * p (+)= d * h[j], unreduced, in Karatsuba's three products (m is
 * g_kara(d)); @first sets p instead of adding to it.
 */
static __always_inline void g_mul_acc(const struct gcm_key *k, unsigned int j,
				      gv d, gv m, struct g_prod *p, bool first)
{
	gv h = g_ldk(k->h[j]), hx = g_ldk(k->hx[j]);
	gv lo = g_clmul(d, h, 0x00);
	gv hi = g_clmul(d, h, 0x11);
	gv mi = g_clmul(m, hx, 0x00);

	if (first) {
		p->lo = lo;
		p->hi = hi;
		p->mi = mi;
	} else {
		p->lo ^= lo;
		p->hi ^= hi;
		p->mi ^= mi;
	}
}

/* The reduced sum (see the top of the file). */
static __always_inline gv g_reduce(const struct g_prod *p)
{
	const gv poly = { 1, (s64)0xc200000000000000ULL };
	gv lo = p->lo, hi = p->hi, mi = p->mi ^ lo ^ hi;

	mi ^= g_swap64(lo) ^ g_clmul(lo, poly, 0x10);
	return hi ^ g_swap64(mi) ^ g_clmul(mi, poly, 0x10);
}

/* a * b, both reduced field elements (key set-up only: schoolbook) */
static gv g_gfmul(gv a, gv b)
{
	struct g_prod p;

	p.lo = g_clmul(a, b, 0x00);
	p.hi = g_clmul(a, b, 0x11);
	/* g_reduce() adds lo and hi to mi for Karatsuba: cancel that */
	p.mi = g_clmul(a, b, 0x01) ^ g_clmul(a, b, 0x10) ^ p.lo ^ p.hi;
	return g_reduce(&p);
}

/*
 * GHASH @n (1..GCM_NPOWERS) blocks at @p into @acc: the sum of block i times
 * H^(n - i), the first block with acc added.
 */
static __always_inline gv g_ghash_n(const struct gcm_key *k, gv acc,
				    const u8 *p, unsigned int n)
{
	unsigned int i, j = GCM_NPOWERS - n;
	struct g_prod pr;
	gv d;

	d = g_reflect(g_load(p)) ^ acc;
	g_mul_acc(k, j, d, g_kara(d), &pr, true);
#pragma GCC unroll 16
	for (i = 1; i < n; i++) {
		d = g_reflect(g_load(p + GCM_BLOCK * i));
		g_mul_acc(k, j + i, d, g_kara(d), &pr, false);
	}
	return g_reduce(&pr);
}

/* GHASH of whole blocks, any number of them */
static gv g_ghash_blocks(const struct gcm_key *k, gv acc, const u8 *p,
			 unsigned int nblocks)
{
	while (nblocks >= GCM_NPOWERS) {
		acc = g_ghash_n(k, acc, p, GCM_NPOWERS);
		p += GCM_NPOWERS * GCM_BLOCK;
		nblocks -= GCM_NPOWERS;
	}
	if (nblocks)
		acc = g_ghash_n(k, acc, p, nblocks);
	return acc;
}

/* ------------------------------------------------------------------ */
/* Counter mode and GHASH, eight blocks                                 */

#ifdef GCM_WIDE
#include "gcm_wide.h"
#else

#define G_NV	8	/* blocks in flight */

static __always_inline void g_ctr8(const struct gcm_key *k,
				   unsigned int rounds, gv c, gv *b)
{
	gv rk = g_rk(k, 0), be;
	unsigned int i, r;

	/*
	 * While the counter's low byte does not wrap within the group, the
	 * blocks differ in their last byte only: add to it in place.
	 */
	if (((unsigned long long)c[1] >> 32 & 0xff) <= 0xff - (G_NV - 1)) {
		be = g_ctr_swap(c);
#pragma GCC unroll 16
		for (i = 0; i < G_NV; i++)
			b[i] = (gv)((gv_d)be + (gv_d){ 0, 0, 0, i << 24 }) ^ rk;
	} else {
#pragma GCC unroll 16
		for (i = 0; i < G_NV; i++)
			b[i] = g_ctr_swap(g_ctr_add(c, i)) ^ rk;
	}
#pragma GCC unroll 16
	for (r = 1; r < rounds; r++) {
		rk = g_rk(k, r);
#pragma GCC unroll 16
		for (i = 0; i < G_NV; i++)
			b[i] = __builtin_ia32_aesenc128(b[i], rk);
	}
	rk = g_rk(k, rounds);
#pragma GCC unroll 16
	for (i = 0; i < G_NV; i++)
		b[i] = __builtin_ia32_aesenclast128(b[i], rk);
}

static __always_inline void g_xor8(u8 *dst, const u8 *src, gv *b, gv *ct,
				   bool enc)
{
	unsigned int i;

#pragma GCC unroll 16
	for (i = 0; i < G_NV; i++) {
		gv in = g_load(src + GCM_BLOCK * i);

		b[i] ^= in;
		ct[i] = enc ? b[i] : in;
		g_store(dst + GCM_BLOCK * i, b[i]);
	}
}

static __always_inline gv g_ghash8(const struct gcm_key *k, gv acc,
				   const gv *ct)
{
	struct g_prod pr;
	unsigned int i;
	gv d;

	d = g_reflect(ct[0]) ^ acc;
	g_mul_acc(k, GCM_NPOWERS - G_NV, d, g_kara(d), &pr, true);
#pragma GCC unroll 16
	for (i = 1; i < G_NV; i++) {
		d = g_reflect(ct[i]);
		g_mul_acc(k, GCM_NPOWERS - G_NV + i, d, g_kara(d), &pr, false);
	}
	return g_reduce(&pr);
}

/*
 * @n8 times eight whole blocks: cipher (or decipher) and hash. @c is the
 * counter block with its counter word native; returns it advanced.
 */
static __always_inline gv g_bulk8(const struct gcm_key *k, unsigned int rounds,
				  gv *acc, gv c, u8 *dst, const u8 *src,
				  unsigned int n8, bool enc)
{
	gv b[G_NV], ct[G_NV];
	gv a = *acc;

	while (n8--) {
		g_ctr8(k, rounds, c, b);
		c = g_ctr_add(c, 8);
		g_xor8(dst, src, b, ct, enc);
		a = g_ghash8(k, a, ct);
		src += 8 * GCM_BLOCK;
		dst += 8 * GCM_BLOCK;
	}
	*acc = a;
	return c;
}

/* Up to seven whole blocks, one at a time through the AES. */
static __always_inline gv g_tail(const struct gcm_key *k, unsigned int rounds,
				 gv *acc, gv c, u8 *dst, const u8 *src,
				 unsigned int n, bool enc)
{
	unsigned int i;

	if (!enc)
		*acc = g_ghash_n(k, *acc, src, n);
	for (i = 0; i < n; i++) {
		gv ks = g_aes1(k, rounds, g_ctr_swap(c));

		g_store(dst + GCM_BLOCK * i, g_load(src + GCM_BLOCK * i) ^ ks);
		c = g_ctr_add(c, 1);
	}
	if (enc)
		*acc = g_ghash_n(k, *acc, dst, n);
	return c;
}
#endif /* GCM_WIDE */

/* ------------------------------------------------------------------ */
/* The level's entry points                                             */

static bool GCM_LEVEL(setkey)(struct gcm_key *k, const u8 *key,
			      unsigned int keylen)
{
	unsigned long long lo, hi, mask;
	gv h, p;
	int i;

	if (keylen == 16)
		g_expand128(k, key);
	else if (keylen == 32)
		g_expand256(k, key);
	else
		return false;

	/*
	 * H = E(K, 0^128), reflected, times x (see the top of the file): a
	 * 128-bit shift by one, the bit shifted out folded back in.
	 */
	h = g_reflect(g_aes1(k, k->rounds, (gv){ 0, 0 }));
	lo = h[0];
	hi = h[1];
	mask = 0 - (hi >> 63);
	hi = (hi << 1 | lo >> 63) ^ (mask & 0xc200000000000000ULL);
	lo = lo << 1 ^ (mask & 1);
	h = (gv){ (long long)lo, (long long)hi };

	p = h;
	for (i = GCM_NPOWERS - 1; i >= 0; i--) {
		g_stk(k->h[i], p);
		g_stk(k->hx[i], (gv){ p[0] ^ p[1], p[0] ^ p[1] });
		p = g_gfmul(p, h);
	}
	return true;
}

static void GCM_LEVEL(start)(const struct gcm_key *k, struct gcm_state *st,
			     const u8 *nonce, const u8 *ad, unsigned int adlen)
{
	u8 blk[GCM_BLOCK] __aligned(16) = { };
	unsigned int n = adlen / GCM_BLOCK;
	gv acc, j0;

	__builtin_memcpy(blk, nonce, GCM_NONCE);
	blk[GCM_BLOCK - 1] = 1;
	j0 = g_ldk(blk);
	g_stk(st->ekj0, g_aes1(k, k->rounds, j0));
	g_stk(st->ctr, g_ctr_swap(g_ctr_add(g_ctr_swap(j0), 1)));

	acc = g_ghash_blocks(k, (gv){ 0, 0 }, ad, n);
	if (adlen % GCM_BLOCK) {
		__builtin_memset(blk, 0, sizeof(blk));
		__builtin_memcpy(blk, ad + n * GCM_BLOCK, adlen % GCM_BLOCK);
		acc = g_ghash_n(k, acc, blk, 1);
	}
	g_stk(st->acc, acc);
	st->adlen = adlen;
	st->textlen = 0;
	st->partlen = 0;
}

/* Bytes of a block begun by an earlier call (or just now), up to its end. */
static __always_inline unsigned int g_part(const struct gcm_key *k,
					   struct gcm_state *st, u8 *dst,
					   const u8 *src, unsigned int len,
					   bool enc)
{
	unsigned int i, n = GCM_BLOCK - st->partlen;

	if (n > len)
		n = len;
	for (i = 0; i < n; i++) {
		u8 in = src[i], out = in ^ st->ks[st->partlen + i];

		st->part[st->partlen + i] = enc ? out : in;
		dst[i] = out;
	}
	st->partlen += n;
	if (st->partlen == GCM_BLOCK) {
		g_stk(st->acc, g_ghash_n(k, g_ldk(st->acc), st->part, 1));
		st->partlen = 0;
	}
	return n;
}

static __always_inline void g_crypt(const struct gcm_key *k,
				    struct gcm_state *st, u8 *dst,
				    const u8 *src, unsigned int len, bool enc)
{
	unsigned int n, rem;
	gv c, acc;

	st->textlen += len;
	if (st->partlen) {
		n = g_part(k, st, dst, src, len, enc);
		dst += n;
		src += n;
		len -= n;
	}
	if (!len)
		return;

	c = g_ctr_swap(g_ldk(st->ctr));
	acc = g_ldk(st->acc);
	n = len / GCM_BLOCK;
#ifdef GCM_WIDE
	if (n) {
		if (k->rounds == 10)
			c = g_wide(k, 10, &acc, c, dst, src, n, enc);
		else
			c = g_wide(k, 14, &acc, c, dst, src, n, enc);
		dst += n * GCM_BLOCK;
		src += n * GCM_BLOCK;
	}
#else
	if (n >= 8) {
		if (k->rounds == 10)
			c = g_bulk8(k, 10, &acc, c, dst, src, n / 8, enc);
		else
			c = g_bulk8(k, 14, &acc, c, dst, src, n / 8, enc);
		dst += n / 8 * 8 * GCM_BLOCK;
		src += n / 8 * 8 * GCM_BLOCK;
		n %= 8;
	}
	if (n) {
		c = g_tail(k, k->rounds, &acc, c, dst, src, n, enc);
		dst += n * GCM_BLOCK;
		src += n * GCM_BLOCK;
	}
#endif
	g_stk(st->acc, acc);

	rem = len % GCM_BLOCK;
	if (rem) {
		/* key stream for the block, kept for the call that ends it */
		g_stk(st->ks, g_aes1(k, k->rounds, g_ctr_swap(c)));
		c = g_ctr_add(c, 1);
		g_part(k, st, dst, src, rem, enc);
	}
	g_stk(st->ctr, g_ctr_swap(c));
}

static void GCM_LEVEL(enc)(const struct gcm_key *k, struct gcm_state *st,
			   u8 *dst, const u8 *src, unsigned int len)
{
	g_crypt(k, st, dst, src, len, true);
}

static void GCM_LEVEL(dec)(const struct gcm_key *k, struct gcm_state *st,
			   u8 *dst, const u8 *src, unsigned int len)
{
	g_crypt(k, st, dst, src, len, false);
}

static void GCM_LEVEL(finish)(const struct gcm_key *k, struct gcm_state *st,
			      u8 *tag)
{
	/* the lengths block, reflected: bit lengths of the text and the AD */
	gv lens = { (long long)(st->textlen * 8), (long long)(st->adlen * 8) };
	gv acc = g_ldk(st->acc), d;
	struct g_prod pr;

	/* a partial last block times H^2 and the lengths times H, summed */
	if (st->partlen) {
		__builtin_memset(st->part + st->partlen, 0,
				 GCM_BLOCK - st->partlen);
		d = g_reflect(g_ldk(st->part)) ^ acc;
		g_mul_acc(k, GCM_NPOWERS - 2, d, g_kara(d), &pr, true);
		g_mul_acc(k, GCM_NPOWERS - 1, lens, g_kara(lens), &pr, false);
	} else {
		d = acc ^ lens;
		g_mul_acc(k, GCM_NPOWERS - 1, d, g_kara(d), &pr, true);
	}
	acc = g_reduce(&pr);
	g_store(tag, g_reflect(acc) ^ g_ldk(st->ekj0));
}
#endif /* __CHECKER__ */

const struct gcm_impl GCM_LEVEL(gcm_impl) = {
	.name	= GCM_LEVEL_NAME,
	.setkey	= GCM_LEVEL(setkey),
	.start	= GCM_LEVEL(start),
	.enc	= GCM_LEVEL(enc),
	.dec	= GCM_LEVEL(dec),
	.finish	= GCM_LEVEL(finish),
};
