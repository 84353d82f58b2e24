// SPDX-License-Identifier: GPL-2.0
/*
 * The module's AES-GCM core (gcm_core.h) as a user program, next to
 * OpenSSL's EVP AES-128-GCM and AES-256-GCM.
 *
 *   gcm_native supported LEVEL         exit 0 if this CPU runs LEVEL
 *   gcm_native lacks LEVEL             the CPU features LEVEL needs and
 *                                      this CPU lacks (exit 0 if any)
 *   gcm_native test LEVEL [N]          known answers, then N random cases
 *                                      against OpenSSL (default 3000)
 *   gcm_native bench LEVEL... [-r R]   TSC cycles per byte, best of R runs,
 *                                      at 64, 576, 1420 and 8192 bytes;
 *                                      LEVEL "openssl" is EVP
 *   gcm_native count LEVEL LEN N       N messages of LEN bytes through
 *                                      gcm_count_run() (for callgrind)
 *
 * Messages are timed as ESP uses an AEAD: the key set once, then per
 * message a fresh nonce, 8 bytes of associated data, the text in place
 * and the tag.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include <openssl/evp.h>

#include "gcm_core.h"
#include "gcm_kat.h"

#define MAXLEN		9000
#define MAXAD		96
#define MAXPIECES	6

static const struct gcm_impl *const levels[] = {
	&gcm_impl_aesni, &gcm_impl_aesni_avx, &gcm_impl_vaes_avx2,
	&gcm_impl_vaes_avx512,
};

static const struct gcm_impl *level_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(levels[i]->name, name))
			return levels[i];
	return NULL;
}

/*
 * The CPU features each level needs: its own (level, the index in
 * levels[]) and those of the levels below it; named as /proc/cpuinfo does.
 */
static struct {
	const char *name;
	unsigned int level;
	bool have;
} features[] = {
	{ "aes", 0, false }, { "pclmulqdq", 0, false },
	{ "sse4_1", 0, false }, { "avx", 1, false }, { "avx2", 2, false },
	{ "vaes", 2, false }, { "vpclmulqdq", 2, false },
	{ "avx512f", 3, false }, { "avx512vl", 3, false },
	{ "avx512bw", 3, false },
};

/* ... except those named in $GCM_HIDE (to try the skips on any CPU) */
static void cpu_features(void)
{
	const char *hide = getenv("GCM_HIDE");
	static bool done;
	unsigned int i = 0;

	if (done)
		return;
	done = true;
	__builtin_cpu_init();
	features[i++].have = __builtin_cpu_supports("aes");
	features[i++].have = __builtin_cpu_supports("pclmul");
	features[i++].have = __builtin_cpu_supports("sse4.1");
	features[i++].have = __builtin_cpu_supports("avx");
	features[i++].have = __builtin_cpu_supports("avx2");
	features[i++].have = __builtin_cpu_supports("vaes");
	features[i++].have = __builtin_cpu_supports("vpclmulqdq");
	features[i++].have = __builtin_cpu_supports("avx512f");
	features[i++].have = __builtin_cpu_supports("avx512vl");
	features[i++].have = __builtin_cpu_supports("avx512bw");
	for (i = 0; hide && i < sizeof(features) / sizeof(features[0]); i++) {
		size_t n = strlen(features[i].name);
		const char *p;

		for (p = strstr(hide, features[i].name); p;
		     p = strstr(p + 1, features[i].name))
			if ((p == hide || p[-1] == ' ' || p[-1] == ',') &&
			    (!p[n] || p[n] == ' ' || p[n] == ','))
				features[i].have = false;
	}
}

/* Prints (with @print) the features this CPU lacks for @l; true if none. */
static bool level_has(const struct gcm_impl *l, bool print)
{
	unsigned int i, lvl = 0;
	bool ok = true;

	while (levels[lvl] != l)
		lvl++;
	cpu_features();
	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		if (features[i].level > lvl || features[i].have)
			continue;
		if (print)
			printf("%s%s", ok ? "" : " ", features[i].name);
		ok = false;
	}
	if (print && !ok)
		printf("\n");
	return ok;
}

static bool level_supported(const struct gcm_impl *l)
{
	return level_has(l, false);
}

/* ------------------------------------------------------------------ */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 0x2545f4914f6cdd1dULL) >> 32;
}

static void fill(u8 *p, unsigned int n)
{
	while (n--)
		*p++ = rnd();
}

static unsigned int unhex(u8 *dst, const char *hex)
{
	unsigned int n = strlen(hex) / 2, i;

	for (i = 0; i < n; i++)
		sscanf(hex + 2 * i, "%2hhx", &dst[i]);
	return n;
}

/*
 * Each piece of the text at another level this CPU runs, chosen at random
 * (every level reads and writes the same key and state: gcm_core.h)
 */
static bool mix_levels;

static const struct gcm_impl *piece_level(const struct gcm_impl *l)
{
	const struct gcm_impl *m;

	if (!mix_levels)
		return l;
	m = levels[rnd() % (sizeof(levels) / sizeof(levels[0]))];
	return level_supported(m) ? m : l;
}

/* ours: one message, the text in @npieces calls of random lengths */
static void ours(const struct gcm_impl *l, const struct gcm_key *k,
		 const u8 *nonce, const u8 *ad, unsigned int adlen, u8 *dst,
		 const u8 *src, unsigned int len, bool enc, u8 *tag,
		 unsigned int npieces)
{
	const struct gcm_impl *p;
	struct gcm_state st;
	unsigned int off = 0, n;

	l->start(k, &st, nonce, ad, adlen);
	while (npieces-- > 1 && off < len) {
		n = rnd() % (len - off + 1);
		if (rnd() & 1)
			n %= 40;
		p = piece_level(l);
		(enc ? p->enc : p->dec)(k, &st, dst + off, src + off, n);
		off += n;
	}
	p = piece_level(l);
	(enc ? p->enc : p->dec)(k, &st, dst + off, src + off, len - off);
	l->finish(k, &st, tag);
}

static const EVP_CIPHER *evp_gcm(unsigned int keylen)
{
	return keylen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
}

/* OpenSSL: one message, encrypt or decrypt + verify; returns 0 if ok */
static int ossl(const u8 *key, unsigned int keylen, const u8 *nonce,
		const u8 *ad, unsigned int adlen, u8 *dst, const u8 *src,
		unsigned int len, bool enc, u8 *tag)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int outl, ok;

	ok = EVP_CipherInit_ex(c, evp_gcm(keylen), NULL, key, nonce, enc) &&
	     (!adlen || EVP_CipherUpdate(c, NULL, &outl, ad, adlen)) &&
	     EVP_CipherUpdate(c, dst, &outl, src, len);
	if (ok && !enc)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, tag);
	ok = ok && EVP_CipherFinal_ex(c, dst + outl, &outl);
	if (ok && enc)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag);
	EVP_CIPHER_CTX_free(c);
	return ok ? 0 : -1;
}

static int fail(const char *what, unsigned int len, unsigned int adlen,
		unsigned int keylen)
{
	fprintf(stderr, "gcm test: %s: len %u adlen %u key %u bits\n", what,
		len, adlen, keylen * 8);
	return 1;
}

/*
 * The module's load-time known answers (gcm_kat.c): every case passes, and
 * fails when told to expect a wrong tag.
 */
static int test_kat_long(const struct gcm_impl *l, unsigned int *cases)
{
	static struct gcm_kat_work w;
	unsigned int i;

	for (i = 0; i < gcm_kat_cases(); i++) {
		const char *bad = NULL;

		if (!gcm_known_answer(l, i, &w, false))
			bad = "fails";
		else if (gcm_known_answer(l, i, &w, true))
			bad = "passes with a wrong tag";
		if (bad) {
			fprintf(stderr, "gcm test: gcm_kat_long.h case %u %s\n",
				i, bad);
			return 1;
		}
		*cases += 2;
	}
	return 0;
}

static int test_kat(const struct gcm_impl *l, unsigned int *cases)
{
	static u8 key[64], nonce[12], ad[64], pt[1024], ct[1024], out[1024];
	struct gcm_key k;
	unsigned int i, kl, al, pl, cl;
	u8 tag[16];

	for (i = 0; i < sizeof(gcm_kat_spec) / sizeof(gcm_kat_spec[0]); i++) {
		const struct gcm_kat *v = &gcm_kat_spec[i];

		kl = unhex(key, v->key);
		if (kl == 24)		/* AES-192: the kernel's driver does it */
			continue;
		unhex(nonce, v->iv);
		al = unhex(ad, v->ad);
		pl = unhex(pt, v->pt);
		cl = unhex(ct, v->ct);
		if (!l->setkey(&k, key, kl))
			return fail("kat setkey", pl, al, kl);
		ours(l, &k, nonce, ad, al, out, pt, pl, true, tag, 1);
		if (memcmp(out, ct, pl) || memcmp(tag, ct + pl, 16) ||
		    cl != pl + 16)
			return fail("kat (GCM spec) encrypt", pl, al, kl);
		ours(l, &k, nonce, ad, al, out, ct, pl, false, tag, 3);
		if (memcmp(out, pt, pl) || memcmp(tag, ct + pl, 16))
			return fail("kat (GCM spec) decrypt", pl, al, kl);
		++*cases;
	}
	for (i = 0; i < sizeof(gcm_kat_rfc4106) / sizeof(gcm_kat_rfc4106[0]);
	     i++) {
		const struct gcm_kat *v = &gcm_kat_rfc4106[i];

		kl = unhex(key, v->key) - 4;
		if (kl == 24)
			continue;
		memcpy(nonce, key + kl, 4);
		unhex(nonce + 4, v->iv);
		al = unhex(ad, v->ad) - 8;	/* the IV is not authenticated */
		pl = unhex(pt, v->pt);
		cl = unhex(ct, v->ct);
		if (!l->setkey(&k, key, kl))
			return fail("kat setkey", pl, al, kl);
		ours(l, &k, nonce, ad, al, out, pt, pl, true, tag, 2);
		if (memcmp(out, ct, pl) || memcmp(tag, ct + pl, 16) ||
		    cl != pl + 16)
			return fail("kat (draft-mcgrew-gcm-test-01) encrypt", pl,
				    al, kl);
		++*cases;
	}
	return test_kat_long(l, cases);
}

static unsigned int rand_len(unsigned int i)
{
	static const unsigned int edge[] = {
		0, 1, 15, 16, 17, 31, 32, 112, 127, 128, 129, 143, 144, 255,
		256, 1420, 1438, 4096, 8192, 9000,
	};

	if (i < sizeof(edge) / sizeof(edge[0]))
		return edge[i];
	return rnd() % 4 ? rnd() % (MAXLEN + 1) : rnd() % 300;
}

static int test_random(const struct gcm_impl *l, unsigned int n,
		       unsigned int *cases)
{
	static u8 key[32], nonce[12], ad[MAXAD], pt[MAXLEN], ref[MAXLEN],
		  buf[MAXLEN + 64];
	unsigned int i, kl, len, al, pos;
	u8 rtag[16], tag[16];
	struct gcm_key k;
	bool inplace;
	u8 *dst;

	for (i = 0; i < n; i++) {
		kl = rnd() & 1 ? 32 : 16;
		len = rand_len(i);
		al = rnd() % 3 ? rnd() % (MAXAD + 1) : 8 + 4 * (rnd() & 1);
		fill(key, kl);
		fill(nonce, 12);
		fill(ad, al);
		fill(pt, len);
		if (!l->setkey(&k, key, kl))
			return fail("setkey", len, al, kl);
		if (ossl(key, kl, nonce, ad, al, ref, pt, len, true, rtag))
			return fail("openssl encrypt", len, al, kl);

		/* encrypt, in place or not, at a random alignment */
		inplace = rnd() & 1;
		dst = buf + rnd() % 64;
		if (inplace) {
			memcpy(dst, pt, len);
			ours(l, &k, nonce, ad, al, dst, dst, len, true, tag,
			     1 + rnd() % MAXPIECES);
		} else {
			ours(l, &k, nonce, ad, al, dst, pt, len, true, tag,
			     1 + rnd() % MAXPIECES);
		}
		if (memcmp(dst, ref, len) || memcmp(tag, rtag, 16))
			return fail("encrypt differs from OpenSSL", len, al, kl);

		/* decrypt OpenSSL's, the pieces at random levels */
		memcpy(dst, ref, len);
		mix_levels = true;
		ours(l, &k, nonce, ad, al, dst, dst, len, false, tag,
		     1 + rnd() % MAXPIECES);
		mix_levels = false;
		if (memcmp(dst, pt, len) || memcmp(tag, rtag, 16))
			return fail("decrypt differs from OpenSSL", len, al, kl);

		/* one flipped bit in the AD, text or tag: ours and OpenSSL refuse */
		pos = rnd() % (al + len + 16);
		memcpy(dst, ref, len);
		if (pos < al)
			ad[pos] ^= 1 << (rnd() % 8);
		else if (pos < al + len)
			dst[pos - al] ^= 1 << (rnd() % 8);
		else
			rtag[pos - al - len] ^= 1 << (rnd() % 8);
		memcpy(ref, dst, len);
		ours(l, &k, nonce, ad, al, dst, dst, len, false, tag, 1);
		if (!memcmp(tag, rtag, 16))
			return fail("forgery accepted", len, al, kl);
		if (!ossl(key, kl, nonce, ad, al, buf, ref, len, false, rtag))
			return fail("forgery accepted by OpenSSL", len, al, kl);
		*cases += 3;
	}
	return 0;
}

static int cmd_test(const struct gcm_impl *l, unsigned int n)
{
	unsigned int cases = 0;
	int err;

	err = test_kat(l, &cases);
	if (!err)
		err = test_random(l, n, &cases);
	printf("gcm %s: %s, %u cases (known answers and %u random messages, lengths 0..%u, AD 0..%u, forgeries; decryptions in pieces at random levels; against OpenSSL %s)\n",
	       l->name, err ? "FAILED" : "passed", cases, n, MAXLEN, MAXAD,
	       OpenSSL_version(OPENSSL_VERSION));
	return err;
}

/* ------------------------------------------------------------------ */
/* Timing                                                               */

static const unsigned int sizes[] = { 64, 576, 1420, 8192 };
#define BENCH_BYTES	(1 << 20)	/* per timed run */

struct bench_ctx {
	const struct gcm_impl *l;	/* NULL: OpenSSL */
	struct gcm_key k;
	EVP_CIPHER_CTX *c;
	u8 key[32], nonce[12], ad[8], tag[16];
	u8 *buf;
};

static void run_ours(struct bench_ctx *b, unsigned int len, unsigned int n,
		     bool enc)
{
	struct gcm_state st;

	while (n--) {
		b->nonce[11]++;
		b->l->start(&b->k, &st, b->nonce, b->ad, sizeof(b->ad));
		(enc ? b->l->enc : b->l->dec)(&b->k, &st, b->buf, b->buf, len);
		b->l->finish(&b->k, &st, b->tag);
	}
}

static void run_ossl(struct bench_ctx *b, unsigned int len, unsigned int n,
		     bool enc)
{
	int outl;

	while (n--) {
		b->nonce[11]++;
		EVP_CipherInit_ex(b->c, NULL, NULL, NULL, b->nonce, enc);
		EVP_CipherUpdate(b->c, NULL, &outl, b->ad, sizeof(b->ad));
		EVP_CipherUpdate(b->c, b->buf, &outl, b->buf, len);
		if (!enc)	/* the tag check fails: timed all the same */
			EVP_CIPHER_CTX_ctrl(b->c, EVP_CTRL_GCM_SET_TAG, 16,
					    b->tag);
		EVP_CipherFinal_ex(b->c, b->buf + outl, &outl);
		if (enc)
			EVP_CIPHER_CTX_ctrl(b->c, EVP_CTRL_GCM_GET_TAG, 16,
					    b->tag);
	}
}

static double bench_one(struct bench_ctx *b, unsigned int len, bool enc,
			unsigned int reps)
{
	unsigned int n = BENCH_BYTES / len, r;
	unsigned long long t, best = ~0ULL;

	for (r = 0; r < reps; r++) {
		t = __rdtsc();
		if (b->l)
			run_ours(b, len, n, enc);
		else
			run_ossl(b, len, n, enc);
		t = __rdtsc() - t;
		if (t < best)
			best = t;
	}
	return (double)best / ((double)n * len);
}

static int bench_setup(struct bench_ctx *b, const char *name,
		       unsigned int keylen, bool enc)
{
	memset(b->key, 7, sizeof(b->key));
	if (!strcmp(name, "openssl")) {
		b->l = NULL;
		b->c = EVP_CIPHER_CTX_new();
		return EVP_CipherInit_ex(b->c, evp_gcm(keylen), NULL, b->key,
					 b->nonce, enc) ? 0 : -1;
	}
	b->l = level_by_name(name);
	if (!b->l || !level_supported(b->l))
		return -1;
	return b->l->setkey(&b->k, b->key, keylen) ? 0 : -1;
}

static int cmd_bench(int argc, char **argv)
{
	unsigned int reps = 20, keylen, s, nl = 0;
	const char *names[8];
	int i, dir;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (nl < 8)
			names[nl++] = argv[i];
	}
	printf("gcm bench: TSC cycles per byte, best of %u runs of %u bytes; per message: nonce, 8 bytes AD, text in place, tag\n",
	       reps, BENCH_BYTES);
	for (keylen = 16; keylen <= 32; keylen += 16) {
		for (dir = 1; dir >= 0; dir--) {
			printf("AES-%u-GCM %s %6s", keylen * 8,
			       dir ? "encrypt" : "decrypt", "bytes");
			for (i = 0; i < (int)nl; i++)
				printf(" %10s", names[i]);
			printf("\n");
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
				printf("%19s %6u", "", sizes[s]);
				for (i = 0; i < (int)nl; i++) {
					struct bench_ctx b = { };

					b.buf = calloc(1, 8192 + 64);
					if (bench_setup(&b, names[i], keylen,
							dir)) {
						printf(" %10s", "-");
						continue;
					}
					printf(" %10.3f",
					       bench_one(&b, sizes[s], dir,
							 reps));
					if (b.c)
						EVP_CIPHER_CTX_free(b.c);
					free(b.buf);
				}
				printf("\n");
			}
		}
	}
	return 0;
}

/* callgrind --toggle-collect=gcm_count_run: the core's instructions only */
__attribute__((noinline)) void gcm_count_run(struct bench_ctx *b,
					     unsigned int len, unsigned int n)
{
	run_ours(b, len, n, true);
}

static int cmd_count(const char *name, unsigned int len, unsigned int n,
		     unsigned int keylen)
{
	struct bench_ctx b = { };

	b.buf = calloc(1, len + 64);
	if (bench_setup(&b, name, keylen, true) || !b.l)
		return 1;
	gcm_count_run(&b, len, n);
	free(b.buf);
	return 0;
}

int main(int argc, char **argv)
{
	const struct gcm_impl *l = argc > 2 ? level_by_name(argv[2]) : NULL;

	if (argc > 2 && !strcmp(argv[1], "supported"))
		return l && level_supported(l) ? 0 : 1;
	if (argc > 2 && !strcmp(argv[1], "lacks") && l)
		return level_has(l, true) ? 1 : 0;
	if (argc > 2 && !strcmp(argv[1], "test") && l) {
		if (!level_supported(l)) {
			printf("gcm %s: skipped: this CPU lacks ", l->name);
			level_has(l, true);
			return 0;
		}
		return cmd_test(l, argc > 3 ? atoi(argv[3]) : 3000);
	}
	if (argc > 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc - 2, argv + 2);
	if (argc > 4 && !strcmp(argv[1], "count"))
		return cmd_count(argv[2], atoi(argv[3]), atoi(argv[4]),
				 argc > 5 ? atoi(argv[5]) / 8 : 16);
	fprintf(stderr, "usage: see the top of bench/native/gcm_native.c\n");
	return 2;
}
