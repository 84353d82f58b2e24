/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AES-GCM's text on wide vectors, part of gcm_vec.h for the levels that
 * define GCM_WIDE, the blocks in a vector: 2 (256-bit, gcm_vaes_avx2.c) or
 * 4 (512-bit, gcm_vaes_avx512.c). VAES runs an AES round on every block of
 * a vector, VPCLMULQDQ a carry-less product on every 128-bit lane.
 *
 * A step is G_WNV vectors: 16 or 32 blocks through the AES at once, then
 * their GHASH, the sum of block i times H^(n - i), with the key powers
 * loaded from gcm_key as vectors (consecutive powers are consecutive in
 * memory) and one reduction per lane, after which the lanes are added.
 * The reduction (gcm_vec.h) is linear: reducing each lane's sum and
 * adding the results is reducing the total. Eight vectors, not four: a
 * VAES round's latency is several times its issue interval, and with
 * four chains of rounds in flight a step waited on them (the encryption
 * of 8 KiB took 1.4 times as long at either width on an AMD Zen 5).
 * Fewer blocks than a step, at the end of a call, take the same path with
 * fewer vectors, the last one loaded, stored and hashed in part: the
 * powers in its empty lanes are zero, so whatever those lanes hold adds
 * nothing to the hash.
 *
 * Counters stay native in every lane (g_ctr_swap() per 128-bit lane), so
 * a 32-bit add steps them all, as GCM's inc32 does, modulo 2^32.
 */

#define G_W	GCM_WIDE		/* blocks per vector */
#define G_WNV	8			/* vectors per step */
#define G_WSTEP	(G_W * G_WNV)		/* blocks per step */

typedef s64 gw __attribute__((vector_size(16 * G_W)));
typedef s64 gw_un __attribute__((vector_size(16 * G_W), may_alias)) __aligned(1);
typedef s32 gw_d __attribute__((vector_size(16 * G_W)));
/* a byte vector, as the VAES and PSHUFB builtins take them (char, not u8) */
#define G_WB(v)		((char __attribute__((vector_size(16 * G_W))))(v))

#if G_W == 2
#define g_wclmul(a, b, imm)	__builtin_ia32_vpclmulqdq_v4di((a), (b), (imm))
#elif G_W == 4
#define g_wclmul(a, b, imm)	__builtin_ia32_vpclmulqdq_v8di((a), (b), (imm))
#else
#error "GCM_WIDE: 2 or 4 blocks per vector"
#endif

static __always_inline gw g_vaesenc(gw b, gw k)
{
#if G_W == 2
	return (gw)__builtin_ia32_vaesenc_v32qi(G_WB(b), G_WB(k));
#else
	return (gw)__builtin_ia32_vaesenc_v64qi(G_WB(b), G_WB(k));
#endif
}

static __always_inline gw g_vaesenclast(gw b, gw k)
{
#if G_W == 2
	return (gw)__builtin_ia32_vaesenclast_v32qi(G_WB(b), G_WB(k));
#else
	return (gw)__builtin_ia32_vaesenclast_v64qi(G_WB(b), G_WB(k));
#endif
}

static __always_inline gw g_wload(const u8 *p)
{
	return *(const gw_un *)p;
}

static __always_inline void g_wstore(u8 *p, gw v)
{
	*(gw_un *)p = v;
}

/* @v in the first lane, zeros in the others */
static __always_inline gw g_wfirst(gv v)
{
	const gw_d z = { };

#if G_W == 2
	return __builtin_ia32_insert128i256((gw)z, v, 0);
#else
	return (gw)__builtin_ia32_inserti32x4_mask(z, (gv_d)v, 0, z, 0xffff);
#endif
}

/* @v in every lane */
static __always_inline gw g_wbcast(gv v)
{
#if G_W == 2
	return __builtin_ia32_vbroadcastsi256(v);
#else
	const gw_d z = { };

	return (gw)__builtin_ia32_broadcasti32x4_512((gv_d)v, z, 0xffff);
#endif
}

/* the sum of the lanes */
static __always_inline gv g_wfold(gw v)
{
#if G_W == 2
	return __builtin_shufflevector(v, v, 0, 1) ^
	       __builtin_shufflevector(v, v, 2, 3);
#else
	typedef s64 gy __attribute__((vector_size(32)));
	gy y = __builtin_shufflevector(v, v, 0, 1, 2, 3) ^
	       __builtin_shufflevector(v, v, 4, 5, 6, 7);

	return __builtin_shufflevector(y, y, 0, 1) ^
	       __builtin_shufflevector(y, y, 2, 3);
#endif
}

/*
 * The first @n blocks (0 < n < G_W) of the vector at @p; the other lanes
 * zero and not read.
 */
static __always_inline gw g_wload_part(const u8 *p, unsigned int n)
{
#if G_W == 2
	return g_wfirst(g_load(p));
#else
	return __builtin_ia32_loaddqudi512_mask((const long long *)p, (gw){ },
						(1u << 2 * n) - 1);
#endif
}

/* Store the first @n blocks (0 < n < G_W) of @v at @p; not the others. */
static __always_inline void g_wstore_part(u8 *p, gw v, unsigned int n)
{
#if G_W == 2
	g_store(p, __builtin_shufflevector(v, v, 0, 1));
#else
	__builtin_ia32_storedqudi512_mask((long long *)p, v, (1u << 2 * n) - 1);
#endif
}

/* PSHUFB: each lane's bytes picked from that lane by the indices in @m */
static __always_inline gw g_wpshufb(gw v, gv m)
{
#if G_W == 2
	return (gw)__builtin_ia32_pshufb256(G_WB(v), G_WB(g_wbcast(m)));
#else
	return (gw)__builtin_ia32_pshufb512_mask(G_WB(v), G_WB(g_wbcast(m)),
						 G_WB(v), ~0ULL);
#endif
}

/* g_reflect() in every lane */
static __always_inline gw g_wreflect(gw v)
{
	const gv_b m = { 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };

	return g_wpshufb(v, (gv)m);
}

/* g_ctr_swap() in every lane */
static __always_inline gw g_wctr_swap(gw v)
{
	const gv_b m = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12 };

	return g_wpshufb(v, (gv)m);
}

/* g_swap64() in every lane */
static __always_inline gw g_wswap64(gw v)
{
	const gv_b m = { 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7 };

	return g_wpshufb(v, (gv)m);
}

/* every lane's counter word plus @n */
static __always_inline gw g_wctr_add(gw c, int n)
{
	const gv_d inc = { 0, 0, 0, n };

	return (gw)((gw_d)c + (gw_d)g_wbcast((gv)inc));
}

/* @c in every lane, its counter word plus the lane's number */
static __always_inline gw g_wctr_lanes(gv c)
{
#if G_W == 2
	const gw_d l = { 0, 0, 0, 0, 0, 0, 0, 1 };
#else
	const gw_d l = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3 };
#endif

	return (gw)((gw_d)g_wbcast(c) + l);
}

/* round key @r in every lane */
static __always_inline gw g_wrk(const struct gcm_key *k, unsigned int r)
{
	return g_wbcast(g_rk(k, r));
}

/*
 * Key stream for @nv vectors: the counters of @c's lanes (native words,
 * one apart), then G_W more each next vector.
 */
static __always_inline void g_wctr(const struct gcm_key *k,
				   unsigned int rounds, gw c, gw *b,
				   unsigned int nv)
{
	unsigned int i, r;
	gw rk = g_wrk(k, 0);

#pragma GCC unroll 16
	for (i = 0; i < nv; i++)
		b[i] = g_wctr_swap(g_wctr_add(c, G_W * i)) ^ rk;
#pragma GCC unroll 16
	for (r = 1; r < rounds; r++) {
		rk = g_wrk(k, r);
#pragma GCC unroll 16
		for (i = 0; i < nv; i++)
			b[i] = g_vaesenc(b[i], rk);
	}
	rk = g_wrk(k, rounds);
#pragma GCC unroll 16
	for (i = 0; i < nv; i++)
		b[i] = g_vaesenclast(b[i], rk);
}

/*
 * GHASH of the blocks at @p, @nv vectors, @last blocks in the last one
 * (1..G_W), into @acc: the first block times H^n, n the number of blocks,
 * each next one by a power less.
 */
static __always_inline gv g_wghash(const struct gcm_key *k, gv acc,
				   const u8 *p, unsigned int nv,
				   unsigned int last)
{
	unsigned int i, j = GCM_NPOWERS - (G_W * (nv - 1) + last);
	const gw poly = g_wbcast((gv){ 1, (s64)0xc200000000000000ULL });
	gw lo, mi, hi, x, m, h, hx;

#pragma GCC unroll 16
	for (i = 0; i < nv; i++) {
		const u8 *d = p + G_W * GCM_BLOCK * i;

		if (i < nv - 1 || last == G_W) {
			x = g_wload(d);
			h = g_wload(k->h[j + G_W * i]);
			hx = g_wload(k->hx[j + G_W * i]);
		} else {
			x = g_wload_part(d, last);
			h = g_wload_part(k->h[j + G_W * i], last);
			hx = g_wload_part(k->hx[j + G_W * i], last);
		}
		x = g_wreflect(x);
		if (i == 0)
			x ^= g_wfirst(acc);
		m = g_wclmul(x ^ g_wswap64(x), hx, 0x00);
		if (i == 0) {
			lo = g_wclmul(x, h, 0x00);
			hi = g_wclmul(x, h, 0x11);
			mi = m;
		} else {
			lo ^= g_wclmul(x, h, 0x00);
			hi ^= g_wclmul(x, h, 0x11);
			mi ^= m;
		}
	}
	/* g_reduce() on every lane */
	mi ^= lo ^ hi;
	mi ^= g_wswap64(lo) ^ g_wclmul(lo, poly, 0x10);
	hi ^= g_wswap64(mi) ^ g_wclmul(mi, poly, 0x10);
	return g_wfold(hi);
}

/*
 * @n blocks (1..G_WSTEP) in @nv vectors, @n > G_W * (nv - 1): cipher (or
 * decipher) and hash, the cipher text read back from memory (before it is
 * overwritten, when deciphering in place). @c: the first blocks' counter
 * blocks (g_wctr_lanes()).
 */
static __always_inline void g_wpass(const struct gcm_key *k,
				    unsigned int rounds, gv *acc, gw c,
				    u8 *dst, const u8 *src, unsigned int n,
				    bool enc, unsigned int nv)
{
	unsigned int i, last = n - G_W * (nv - 1);
	/* all in registers: the kernel would zero a stack copy first */
	gw b[G_WNV] __uninitialized;

	if (!enc)
		*acc = g_wghash(k, *acc, src, nv, last);
	g_wctr(k, rounds, c, b, nv);
#pragma GCC unroll 16
	for (i = 0; i < nv; i++) {
		const u8 *s = src + G_W * GCM_BLOCK * i;
		u8 *o = dst + G_W * GCM_BLOCK * i;

		if (i < nv - 1 || last == G_W)
			g_wstore(o, b[i] ^ g_wload(s));
		else
			g_wstore_part(o, b[i] ^ g_wload_part(s, last), last);
	}
	if (enc)
		*acc = g_wghash(k, *acc, dst, nv, last);
}

/*
 * @n whole blocks, any number: whole steps, then the rest in as few
 * vectors as hold it. @c is the counter block with its counter word
 * native; returns it advanced.
 */
static __always_inline gv g_wide(const struct gcm_key *k, unsigned int rounds,
				 gv *acc, gv c, u8 *dst, const u8 *src,
				 unsigned int n, bool enc)
{
	gw cw = g_wctr_lanes(c);
	gv a = *acc;

	for (; n >= G_WSTEP; n -= G_WSTEP) {
		g_wpass(k, rounds, &a, cw, dst, src, G_WSTEP, enc, G_WNV);
		cw = g_wctr_add(cw, G_WSTEP);
		c = g_ctr_add(c, G_WSTEP);
		src += G_WSTEP * GCM_BLOCK;
		dst += G_WSTEP * GCM_BLOCK;
	}
	/* a constant number of vectors each: their loops unroll */
	switch ((n + G_W - 1) / G_W) {
	case 1:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 1);
		break;
	case 2:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 2);
		break;
	case 3:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 3);
		break;
	case 4:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 4);
		break;
	case 5:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 5);
		break;
	case 6:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 6);
		break;
	case 7:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 7);
		break;
	case 8:
		g_wpass(k, rounds, &a, cw, dst, src, n, enc, 8);
		break;
	}
	*acc = a;
	return g_ctr_add(c, n);
}
