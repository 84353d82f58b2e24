// SPDX-License-Identifier: GPL-2.0
/*
 * gcm-parts - how fast AES-GCM's two halves can run under this VM's CPU, in
 * user space, to bound what any AES-GCM could reach here (scripts/gcm-parts.sh
 * runs it inside the qemu TCG guest, next to tcrypt's rfc4106 for the kernel's
 * AES-NI GCM).
 *
 *   ctr aesni      AES-128-CTR, one block at a time, AES-NI
 *   ctr aesni x4   the same, four blocks interleaved
 *   ctr vaes ymm   the same, two blocks per VAES instruction
 *   ghash pclmul   GHASH, one block at a time: Karatsuba with PCLMULQDQ and the
 *                  shift-based reduction (Intel's carry-less multiplication paper)
 *   ghash ctmul64  GHASH with integer multiplications only, constant time: the
 *                  "multiplication with holes" of BearSSL's ghash_ctmul64 (Pornin)
 *
 * Both GHASHes must give the known answer of the GCM spec's test case 2 and agree
 * on a longer input, or the program fails. Buffers are
 * 1408 bytes (a multiple of 64 near an ESP payload). MB/s are of emulated time:
 * only ratios inside one run mean anything.
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <tmmintrin.h>
#include <wmmintrin.h>

#define LEN 1408

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t load_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

static void store_be64(uint8_t *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

/* low 64 bits of the carry-less product: four interleaved classes of bits */
static inline uint64_t bmul64(uint64_t x, uint64_t y)
{
	const uint64_t m0 = 0x1111111111111111ULL, m1 = m0 << 1, m2 = m0 << 2,
		       m3 = m0 << 3;
	uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
	uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
	uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
	uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
	uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
	uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);

	return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

static inline uint64_t rev64(uint64_t x)
{
	x = ((x & 0x5555555555555555ULL) << 1) | ((x >> 1) & 0x5555555555555555ULL);
	x = ((x & 0x3333333333333333ULL) << 2) | ((x >> 2) & 0x3333333333333333ULL);
	x = ((x & 0x0F0F0F0F0F0F0F0FULL) << 4) | ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL);
	x = ((x & 0x00FF00FF00FF00FFULL) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFULL);
	x = ((x & 0x0000FFFF0000FFFFULL) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFULL);
	return (x << 32) | (x >> 32);
}

static void ghash_ctmul64(uint8_t *y, const uint8_t *h, const uint8_t *p,
			  size_t len)
{
	uint64_t y1 = load_be64(y), y0 = load_be64(y + 8);
	uint64_t h1 = load_be64(h), h0 = load_be64(h + 8);
	uint64_t h0r = rev64(h0), h1r = rev64(h1), h2 = h0 ^ h1, h2r = h0r ^ h1r;

	for (; len >= 16; p += 16, len -= 16) {
		uint64_t y0r, y1r, y2, y2r, z0, z1, z2, z0h, z1h, z2h, v0, v1, v2, v3;

		y1 ^= load_be64(p);
		y0 ^= load_be64(p + 8);
		y0r = rev64(y0);
		y1r = rev64(y1);
		y2 = y0 ^ y1;
		y2r = y0r ^ y1r;
		/* Karatsuba; the high halves come from the bit-reversed inputs */
		z0 = bmul64(y0, h0);
		z1 = bmul64(y1, h1);
		z2 = bmul64(y2, h2) ^ z0 ^ z1;
		z0h = bmul64(y0r, h0r);
		z1h = bmul64(y1r, h1r);
		z2h = bmul64(y2r, h2r) ^ z0h ^ z1h;
		z0h = rev64(z0h) >> 1;
		z1h = rev64(z1h) >> 1;
		z2h = rev64(z2h) >> 1;
		v0 = z0;
		v1 = z0h ^ z2;
		v2 = z1 ^ z2h;
		v3 = z1h;
		/* GHASH's bit order: shift left one, then reduce modulo x^128+x^7+x^2+x+1 */
		v3 = (v3 << 1) | (v2 >> 63);
		v2 = (v2 << 1) | (v1 >> 63);
		v1 = (v1 << 1) | (v0 >> 63);
		v0 <<= 1;
		v2 ^= v0 ^ (v0 >> 1) ^ (v0 >> 2) ^ (v0 >> 7);
		v1 ^= (v0 << 63) ^ (v0 << 62) ^ (v0 << 57);
		v3 ^= v1 ^ (v1 >> 1) ^ (v1 >> 2) ^ (v1 >> 7);
		v2 ^= (v1 << 63) ^ (v1 << 62) ^ (v1 << 57);
		y0 = v2;
		y1 = v3;
	}
	store_be64(y, y1);
	store_be64(y + 8, y0);
}

__attribute__((target("pclmul,ssse3")))
static void ghash_pclmul(uint8_t *y, const uint8_t *h, const uint8_t *p,
			 size_t len)
{
	const __m128i bswap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					   11, 12, 13, 14, 15);
	__m128i x = _mm_shuffle_epi8(_mm_loadu_si128((const void *)y), bswap);
	__m128i hh = _mm_shuffle_epi8(_mm_loadu_si128((const void *)h), bswap);
	__m128i hk = _mm_xor_si128(hh, _mm_shuffle_epi32(hh, 78));

	for (; len >= 16; p += 16, len -= 16) {
		__m128i a, lo, hi, mid, t4, t5, t6;

		a = _mm_xor_si128(x, _mm_shuffle_epi8(
			_mm_loadu_si128((const void *)p), bswap));
		lo = _mm_clmulepi64_si128(a, hh, 0x00);
		hi = _mm_clmulepi64_si128(a, hh, 0x11);
		mid = _mm_clmulepi64_si128(_mm_xor_si128(a, _mm_shuffle_epi32(a, 78)),
					   hk, 0x00);
		mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
		lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
		hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
		/* shift the 256-bit product left one */
		t4 = _mm_srli_epi32(lo, 31);
		t5 = _mm_srli_epi32(hi, 31);
		lo = _mm_slli_epi32(lo, 1);
		hi = _mm_slli_epi32(hi, 1);
		t6 = _mm_srli_si128(t4, 12);
		hi = _mm_or_si128(_mm_or_si128(hi, _mm_slli_si128(t5, 4)), t6);
		lo = _mm_or_si128(lo, _mm_slli_si128(t4, 4));
		/* reduce */
		t4 = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32(lo, 31),
						 _mm_slli_epi32(lo, 30)),
				   _mm_slli_epi32(lo, 25));
		t5 = _mm_srli_si128(t4, 4);
		lo = _mm_xor_si128(lo, _mm_slli_si128(t4, 12));
		t6 = _mm_xor_si128(_mm_xor_si128(_mm_srli_epi32(lo, 1),
						 _mm_srli_epi32(lo, 2)),
				   _mm_xor_si128(_mm_srli_epi32(lo, 7), t5));
		x = _mm_xor_si128(hi, _mm_xor_si128(lo, t6));
	}
	_mm_storeu_si128((void *)y, _mm_shuffle_epi8(x, bswap));
}

__attribute__((target("aes,sse2")))
static void ctr_aesni(uint8_t *p, size_t len, const __m128i *rk)
{
	__m128i ctr = _mm_setzero_si128(), one = _mm_set_epi32(0, 0, 0, 1);

	for (; len >= 16; p += 16, len -= 16) {
		__m128i b = _mm_xor_si128(ctr, rk[0]);
		int r;

		for (r = 1; r < 10; r++)
			b = _mm_aesenc_si128(b, rk[r]);
		b = _mm_aesenclast_si128(b, rk[10]);
		_mm_storeu_si128((void *)p, _mm_xor_si128(b,
				 _mm_loadu_si128((const void *)p)));
		ctr = _mm_add_epi64(ctr, one);
	}
}

/* four blocks, written out so that they stay in registers */
#define AESENC4(k) do {							\
	b0 = _mm_aesenc_si128(b0, k); b1 = _mm_aesenc_si128(b1, k);	\
	b2 = _mm_aesenc_si128(b2, k); b3 = _mm_aesenc_si128(b3, k);	\
} while (0)
#define XOR_STORE(b, i) _mm_storeu_si128((void *)(p + 16 * (i)),	\
	_mm_xor_si128(b, _mm_loadu_si128((const void *)(p + 16 * (i)))))

__attribute__((target("aes,sse2")))
static void ctr_aesni4(uint8_t *p, size_t len, const __m128i *rk)
{
	__m128i ctr = _mm_setzero_si128(), one = _mm_set_epi32(0, 0, 0, 1);

	for (; len >= 64; p += 64, len -= 64) {
		__m128i b0, b1, b2, b3;
		int r;

		b0 = _mm_xor_si128(ctr, rk[0]);
		ctr = _mm_add_epi64(ctr, one);
		b1 = _mm_xor_si128(ctr, rk[0]);
		ctr = _mm_add_epi64(ctr, one);
		b2 = _mm_xor_si128(ctr, rk[0]);
		ctr = _mm_add_epi64(ctr, one);
		b3 = _mm_xor_si128(ctr, rk[0]);
		ctr = _mm_add_epi64(ctr, one);
		for (r = 1; r < 10; r++)
			AESENC4(rk[r]);
		b0 = _mm_aesenclast_si128(b0, rk[10]);
		b1 = _mm_aesenclast_si128(b1, rk[10]);
		b2 = _mm_aesenclast_si128(b2, rk[10]);
		b3 = _mm_aesenclast_si128(b3, rk[10]);
		XOR_STORE(b0, 0);
		XOR_STORE(b1, 1);
		XOR_STORE(b2, 2);
		XOR_STORE(b3, 3);
	}
}

typedef long long v4di __attribute__((vector_size(32)));

__attribute__((target("vaes,avx2")))
static void ctr_vaes(uint8_t *p, size_t len, const __m128i *rk)
{
	v4di k[11], ctr = { 0, 0, 1, 0 }, two = { 2, 0, 2, 0 };
	int r;

	for (r = 0; r < 11; r++)
		k[r] = (v4di){ rk[r][0], rk[r][1], rk[r][0], rk[r][1] };
	for (; len >= 32; p += 32, len -= 32) {
		v4di b = ctr ^ k[0], d;

		for (r = 1; r < 10; r++)
			asm("vaesenc %2, %1, %0" : "=x"(b) : "x"(b), "x"(k[r]));
		asm("vaesenclast %2, %1, %0" : "=x"(b) : "x"(b), "x"(k[10]));
		memcpy(&d, p, 32);
		d ^= b;
		memcpy(p, &d, 32);
		ctr += two;
	}
}

static uint8_t buf[LEN], y[16], h[16];
static __m128i rk[11];

static void run_ghash(void (*f)(uint8_t *, const uint8_t *, const uint8_t *, size_t))
{
	f(y, h, buf, LEN);
}

static void run_ctr(void (*f)(uint8_t *, size_t, const __m128i *))
{
	f(buf, LEN, rk);
}

#define SPEED(name, call) do {						\
	double t0 = now(); long n = 0;					\
	while (now() - t0 < 1) {					\
		for (int k = 0; k < 50; k++)				\
			call;						\
		n += 50;						\
	}								\
	printf("%-14s %7.1f MB/s\n", name, n * (double)LEN / (now() - t0) / 1e6); \
} while (0)

/* GCM spec, test case 2: H, C || len(A) || len(C), and GHASH = tag ^ E(K, J0) */
static const uint8_t kat_h[16] = {
	0x66, 0xe9, 0x4b, 0xd4, 0xef, 0x8a, 0x2c, 0x3b,
	0x88, 0x4c, 0xfa, 0x59, 0xca, 0x34, 0x2b, 0x2e };
static const uint8_t kat_in[32] = {
	0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92,
	0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe, 0x78,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80 };
static const uint8_t kat_out[16] = {
	0xf3, 0x8c, 0xbb, 0x1a, 0xd6, 0x92, 0x23, 0xdc,
	0xc3, 0x45, 0x7a, 0xe5, 0xb6, 0xb0, 0xf8, 0x85 };

int main(void)
{
	uint8_t y1[16] = { 0 }, y2[16] = { 0 };
	int i, rep;

	ghash_ctmul64(y1, kat_h, kat_in, sizeof(kat_in));
	ghash_pclmul(y2, kat_h, kat_in, sizeof(kat_in));
	if (memcmp(y1, kat_out, 16) || memcmp(y2, kat_out, 16)) {
		printf("FAIL: GHASH known answer\n");
		return 1;
	}
	memset(y1, 0, 16);
	memset(y2, 0, 16);

	for (i = 0; i < 16; i++)
		h[i] = i * 37 + 1;
	for (i = 0; i < LEN; i++)
		buf[i] = i * 7;
	for (i = 0; i < 11; i++)
		rk[i] = _mm_set1_epi32(i * 0x01020304);
	ghash_ctmul64(y1, h, buf, LEN);
	ghash_pclmul(y2, h, buf, LEN);
	if (memcmp(y1, y2, 16)) {
		printf("FAIL: the two GHASHes disagree\n");
		return 1;
	}
	for (rep = 0; rep < 3; rep++) {
		printf("rep %d\n", rep);
		SPEED("ctr aesni", run_ctr(ctr_aesni));
		SPEED("ctr aesni x4", run_ctr(ctr_aesni4));
		SPEED("ctr vaes ymm", run_ctr(ctr_vaes));
		SPEED("ghash pclmul", run_ghash(ghash_pclmul));
		SPEED("ghash ctmul64", run_ghash(ghash_ctmul64));
	}
	return 0;
}
