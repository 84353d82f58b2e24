// SPDX-License-Identifier: GPL-2.0
/*
 * The module's ChaCha20-Poly1305 (chacha_core.c and the level files, the
 * same sources as in the module) as a user program on the host CPU:
 *
 *   chacha test [N]        per level this CPU has: the known-answer test,
 *                          then N (default 3000) random messages against
 *                          OpenSSL's EVP chacha20-poly1305, both directions,
 *                          linear and split into random segments, in place
 *                          and not, forgeries rejected. Exit 1 on a mismatch.
 *   chacha bench [ROUNDS]  cycles per byte (rdtsc, best of ROUNDS) of one
 *                          in-place encryption with an 8-byte AD at 64, 576,
 *                          1420 and 8192 bytes, per level, next to OpenSSL
 *                          used as ESP would use it (key set once; per
 *                          message nonce, AD, encrypt, tag).
 *   chacha run LEVEL LEN N  N encryptions of LEN bytes (for callgrind)
 *   chacha open LEVEL LEN N  N decryptions of LEN bytes (for callgrind; the
 *                          tags do not match, which costs the same)
 *   chacha stream LEVEL LEN N  only the ChaCha20 blocks of the same (for
 *                          callgrind: the AEAD's count less this is Poly1305
 *                          and the AEAD's own work)
 *
 * rfc7539esp as OpenSSL sees it: key = the first 32 of 36 key bytes,
 * nonce = the last 4 (salt) || the 8-byte IV, AAD = the ESP AD without IV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>

#include "chacha_core.h"

#define MAXLEN 9000
#define MAXAD 64

static const struct {
	const char *name, *feature, *why;
} levels[CC_NR_LEVELS] = {
	[CC_GENERIC] = { "generic", NULL, NULL },
	[CC_SSSE3] = { "ssse3", "ssse3", "no SSSE3" },
	[CC_AVX2] = { "avx2", "avx2", "no AVX2 or BMI2" },
	[CC_AVX512] = { "avx512", "avx512vl", "no AVX-512VL" },
};

/* as the module's feature check (chacha_simd.c): each level needs the ones below */
static bool level_ok(int l)
{
	__builtin_cpu_init();
	switch (l) {
	case CC_GENERIC:
		return true;
	case CC_SSSE3:
		return __builtin_cpu_supports("ssse3");
	case CC_AVX2:
		return __builtin_cpu_supports("ssse3") &&
		       __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("bmi2");
	case CC_AVX512:
#ifdef CHACHA_AVX512_ON_AVX2	/* chacha.mk: that level built for AVX2 */
		return __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("bmi2");
#endif
		return __builtin_cpu_supports("ssse3") &&
		       __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("bmi2") &&
		       __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl");
	}
	return false;
}

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 0x2545f4914f6cdd1dULL) >> 32;
}

static void fill(uint8_t *b, unsigned int n)
{
	while (n--)
		*b++ = rnd();
}

/* ------------------------------------------------------------------ */
/* OpenSSL                                                             */

static EVP_CIPHER_CTX *ossl_new(const uint8_t *key36, int enc)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	if (!c || !EVP_CipherInit_ex(c, EVP_chacha20_poly1305(), NULL, key36,
				     NULL, enc)) {
		fprintf(stderr, "chacha: OpenSSL init failed\n");
		exit(2);
	}
	return c;
}

static void ossl_nonce(uint8_t *nonce, const uint8_t *key36,
		       const uint8_t *iv)
{
	memcpy(nonce, key36 + 32, 4);
	memcpy(nonce + 4, iv, 8);
}

static void ossl_seal(EVP_CIPHER_CTX *c, const uint8_t *key36,
		      const uint8_t *iv, const uint8_t *ad, int adlen,
		      uint8_t *dst, const uint8_t *src, int len, uint8_t *tag)
{
	uint8_t nonce[12];
	int n;

	ossl_nonce(nonce, key36, iv);
	if (!EVP_EncryptInit_ex(c, NULL, NULL, NULL, nonce) ||
	    !EVP_EncryptUpdate(c, NULL, &n, ad, adlen) ||
	    !EVP_EncryptUpdate(c, dst, &n, src, len) ||
	    !EVP_EncryptFinal_ex(c, dst + n, &n) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag)) {
		fprintf(stderr, "chacha: OpenSSL encrypt failed\n");
		exit(2);
	}
}

/* true if the tag verified */
static bool ossl_open(EVP_CIPHER_CTX *c, const uint8_t *key36,
		      const uint8_t *iv, const uint8_t *ad, int adlen,
		      uint8_t *dst, const uint8_t *src, int len,
		      const uint8_t *tag)
{
	uint8_t nonce[12];
	int n;

	ossl_nonce(nonce, key36, iv);
	if (!EVP_DecryptInit_ex(c, NULL, NULL, NULL, nonce) ||
	    !EVP_DecryptUpdate(c, NULL, &n, ad, adlen) ||
	    !EVP_DecryptUpdate(c, dst, &n, src, len) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, (void *)tag))
		return false;
	return EVP_DecryptFinal_ex(c, dst + n, &n) > 0;
}

/* ------------------------------------------------------------------ */
/* Differential test                                                   */

static unsigned int test_len(unsigned int i)
{
	static const unsigned int edge[] = {
		0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 191, 192, 255, 256,
		257, 447, 448, 449, 511, 512, 513, 959, 960, 961, 1023, 1024,
		1025, 1420, 1438, 1472, 2048, 4095, 4096, 8191, 8192, MAXLEN,
	};

	if (i < sizeof(edge) / sizeof(edge[0]))
		return edge[i];
	switch (rnd() % 3) {
	case 0:
		return rnd() % 129;
	case 1:
		return rnd() % 2049;
	default:
		return rnd() % (MAXLEN + 1);
	}
}

/* The text of one message through cc_aead_*() in random segments. */
static void split_crypt(struct cc_aead *a, bool enc, uint8_t *dst,
			const uint8_t *src, unsigned int len)
{
	while (len) {
		unsigned int n = rnd() & 1 ? 1 + rnd() % 80 :
					     1 + rnd() % len;

		if (n > len)
			n = len;
		if (enc)
			cc_aead_encrypt(a, dst, src, n);
		else
			cc_aead_decrypt(a, dst, src, n);
		dst += n;
		src += n;
		len -= n;
	}
}

struct tbuf {
	uint8_t pt[MAXLEN], ref[MAXLEN], out[MAXLEN], back[MAXLEN];
	uint8_t ad[MAXAD];
};

static int test_one(int l, EVP_CIPHER_CTX *oe, EVP_CIPHER_CTX *od,
		    const uint8_t *key36, const struct cc_key *k,
		    struct tbuf *b, unsigned int i)
{
	unsigned int len = test_len(i), adlen, half, pos;
	uint8_t iv[8], rtag[16], tag[16];
	struct cc_aead a;

	adlen = rnd() & 1 ? 8 + 4 * (rnd() & 1) : rnd() % (MAXAD + 1);
	fill(iv, 8);
	fill(b->ad, adlen);
	fill(b->pt, len);
	ossl_seal(oe, key36, iv, b->ad, adlen, b->ref, b->pt, len, rtag);

	/* encrypt, linear, out of place */
	cc_seal(l, k, iv, b->ad, adlen, b->out, b->pt, len, tag);
	if (memcmp(b->out, b->ref, len) || memcmp(tag, rtag, 16))
		return printf("# encrypt differs: len %u adlen %u\n", len, adlen), 1;
	/* OpenSSL takes ours */
	if (!ossl_open(od, key36, iv, b->ad, adlen, b->back, b->out, len, tag) ||
	    memcmp(b->back, b->pt, len))
		return printf("# OpenSSL rejects ours: len %u\n", len), 1;

	/* encrypt in place, AD and text in random segments */
	memcpy(b->out, b->pt, len);
	cc_aead_init(&a, l, k, iv, rnd() & 1 ? len : rnd() % (len + 1));
	half = adlen ? rnd() % adlen : 0;
	cc_aead_ad(&a, b->ad, half);
	cc_aead_ad(&a, b->ad + half, adlen - half);
	split_crypt(&a, true, b->out, b->out, len);
	cc_aead_tag(&a, tag);
	if (memcmp(b->out, b->ref, len) || memcmp(tag, rtag, 16))
		return printf("# split encrypt differs: len %u adlen %u\n", len, adlen), 1;

	/* decrypt OpenSSL's, linear and split in place */
	if (!cc_open(l, k, iv, b->ad, adlen, b->back, b->ref, len, rtag) ||
	    memcmp(b->back, b->pt, len))
		return printf("# decrypt differs: len %u adlen %u\n", len, adlen), 1;
	memcpy(b->back, b->ref, len);
	cc_aead_init(&a, l, k, iv, len);
	cc_aead_ad(&a, b->ad, adlen);
	split_crypt(&a, false, b->back, b->back, len);
	cc_aead_tag(&a, tag);
	if (memcmp(b->back, b->pt, len) || memcmp(tag, rtag, 16))
		return printf("# split decrypt differs: len %u adlen %u\n", len, adlen), 1;

	/* forgery: one bit of AD, text or tag flipped; both must refuse */
	pos = rnd() % (adlen + len + 16);
	if (pos < adlen)
		b->ad[pos] ^= 1 << (rnd() % 8);
	else if (pos < adlen + len)
		b->ref[pos - adlen] ^= 1 << (rnd() % 8);
	else
		rtag[pos - adlen - len] ^= 1 << (rnd() % 8);
	if (cc_open(l, k, iv, b->ad, adlen, b->back, b->ref, len, rtag) ||
	    ossl_open(od, key36, iv, b->ad, adlen, b->back, b->ref, len, rtag))
		return printf("# forgery accepted: byte %u of %u\n", pos,
			      adlen + len + 16), 1;
	return 0;
}

static int cmd_test(unsigned int n)
{
	static struct tbuf b;
	static uint8_t katbuf[CC_KAT_BUF_SIZE];
	unsigned int i, passed = 0, failed = 0;
	int l;

	for (l = 0; l < CC_NR_LEVELS; l++) {
		uint8_t key36[36];
		struct cc_key k;
		EVP_CIPHER_CTX *oe = NULL, *od = NULL;
		unsigned int bad = 0;

		if (!level_ok(l)) {
			printf("chacha native %s: skipped: %s\n",
			       levels[l].name, levels[l].why);
			continue;
		}
		for (i = 0; i < cc_kat_cases(); i++)
			if (!cc_known_answer(l, i, katbuf, false) ||
			    cc_known_answer(l, i, katbuf, true)) {
				printf("# known-answer case %u failed\n", i + 1);
				bad++;
			}
		for (i = 0; i < n && !bad; i++) {
			if (i % 100 == 0) {	/* a new key now and then */
				fill(key36, sizeof(key36));
				cc_setkey(&k, key36);
				oe = ossl_new(key36, 1);
				od = ossl_new(key36, 0);
			}
			bad += test_one(l, oe, od, key36, &k, &b, i);
			if (i % 100 == 99 || i + 1 == n || bad) {
				EVP_CIPHER_CTX_free(oe);
				EVP_CIPHER_CTX_free(od);
			}
		}
		printf("chacha native %s: %s (%u known answers, %u random messages vs OpenSSL %s)\n",
		       levels[l].name, bad ? "FAILED" : "ok", cc_kat_cases(),
		       i, OpenSSL_version(OPENSSL_VERSION));
		if (bad)
			failed++;
		else
			passed++;
	}
	printf("chacha: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Timing                                                              */

static const unsigned int sizes[] = { 64, 576, 1420, 8192 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define NCOLS (CC_NR_LEVELS + 1)	/* the levels, then OpenSSL */

static inline uint64_t tsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

struct bctx {
	uint8_t key36[36];
	struct cc_key k;
	EVP_CIPHER_CTX *oe;
	uint8_t buf[8192 + 16], ad[8], iv[8], tag[16];
};

/* cycles for n messages of len bytes, at level col (NCOLS - 1: OpenSSL) */
static uint64_t time_msgs(struct bctx *c, int col, unsigned int len,
			  unsigned int n)
{
	uint64_t t0 = tsc();
	unsigned int i;

	for (i = 0; i < n; i++) {
		c->iv[0] = i;	/* a fresh nonce per message, as ESP */
		if (col == NCOLS - 1)
			ossl_seal(c->oe, c->key36, c->iv, c->ad, 8, c->buf,
				  c->buf, len, c->tag);
		else
			cc_seal(col, &c->k, c->iv, c->ad, 8, c->buf, c->buf,
				len, c->tag);
	}
	return tsc() - t0;
}

static int cmd_bench(unsigned int rounds)
{
	static struct bctx c;
	double best[NSIZES][NCOLS];
	unsigned int s, r, n;
	int col;

	fill(c.key36, sizeof(c.key36));
	cc_setkey(&c.k, c.key36);
	c.oe = ossl_new(c.key36, 1);
	fill(c.buf, sizeof(c.buf));
	fill(c.ad, sizeof(c.ad));
	for (s = 0; s < NSIZES; s++)
		for (col = 0; col < NCOLS; col++)
			best[s][col] = 1e9;
	/* rounds interleave the columns: all see the same clock and load */
	for (r = 0; r < rounds; r++)
		for (s = 0; s < NSIZES; s++) {
			n = 16384 / sizes[s] + 1;
			for (col = 0; col < NCOLS; col++) {
				double cpb;

				if (col < CC_NR_LEVELS && !level_ok(col))
					continue;
				cpb = (double)time_msgs(&c, col, sizes[s], n) /
				      ((double)n * sizes[s]);
				if (cpb < best[s][col])
					best[s][col] = cpb;
			}
		}

	printf("chacha native bench: rfc7539esp encrypt in place, AD 8 bytes, cycles/byte (TSC), best of %u; %s\n",
	       rounds, OpenSSL_version(OPENSSL_VERSION));
	printf("%6s", "bytes");
	for (col = 0; col < NCOLS; col++)
		printf(" %8s", col < CC_NR_LEVELS ? levels[col].name : "openssl");
	printf(" %10s\n", "best/ossl");
	for (s = 0; s < NSIZES; s++) {
		int top = CC_GENERIC;

		printf("%6u", sizes[s]);
		for (col = 0; col < NCOLS; col++) {
			if (col < CC_NR_LEVELS && !level_ok(col)) {
				printf(" %8s", "-");
				continue;
			}
			if (col < CC_NR_LEVELS)
				top = col;
			printf(" %8.2f", best[s][col]);
		}
		printf(" %10.2f\n", best[s][top] / best[s][NCOLS - 1]);
	}
	for (col = 0; col < CC_NR_LEVELS; col++)
		if (!level_ok(col))
			printf("chacha native bench %s: skipped: %s\n",
			       levels[col].name, levels[col].why);
	EVP_CIPHER_CTX_free(c.oe);
	return 0;
}

static int level_by_name(const char *s)
{
	int l;

	for (l = 0; l < CC_NR_LEVELS; l++)
		if (!strcmp(s, levels[l].name))
			return level_ok(l) ? l : -2;
	return -1;
}

enum run_what { RUN_SEAL, RUN_OPEN, RUN_STREAM };

/* for callgrind: n messages (or n raw keystream runs) of len bytes */
static int cmd_run(const char *lvl, unsigned int len, unsigned int n,
		   enum run_what what)
{
	static struct bctx c;
	int l = level_by_name(lvl);
	unsigned int i;

	if (l < 0 || len > 8192) {
		fprintf(stderr, "chacha: level %s %s, or len > 8192\n", lvl,
			l == -2 ? "not on this CPU" : "unknown");
		return 2;
	}
	cc_setkey(&c.k, c.key36);
	for (i = 0; i < n; i++) {
		if (what == RUN_STREAM) {
			u32 state[16] = { 0x61707865 };

			cc_chacha(l, state, c.buf, c.buf,
				  1 + (len + CHACHA_BLOCK_SIZE - 1) /
				  CHACHA_BLOCK_SIZE);
		} else if (what == RUN_OPEN) {
			cc_open(l, &c.k, c.iv, c.ad, 8, c.buf, c.buf, len,
				c.tag);
		} else {
			cc_seal(l, &c.k, c.iv, c.ad, 8, c.buf, c.buf, len,
				c.tag);
		}
	}
	printf("%u x %u bytes at %s%s\n", n, len, lvl,
	       what == RUN_STREAM ? " (ChaCha20 only)" :
	       what == RUN_OPEN ? " (decryption)" : "");
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "test";

	if (!strcmp(cmd, "test"))
		return cmd_test(argc > 2 ? atoi(argv[2]) : 3000);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc > 2 ? atoi(argv[2]) : 300);
	if ((!strcmp(cmd, "run") || !strcmp(cmd, "open") ||
	     !strcmp(cmd, "stream")) && argc == 5)
		return cmd_run(argv[2], atoi(argv[3]), atoi(argv[4]),
			       !strcmp(cmd, "stream") ? RUN_STREAM :
			       !strcmp(cmd, "open") ? RUN_OPEN : RUN_SEAL);
	fprintf(stderr, "usage: chacha test [N] | bench [ROUNDS] | run|open|stream LEVEL LEN N\n");
	return 2;
}
