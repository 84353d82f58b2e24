// SPDX-License-Identifier: GPL-2.0
/*
 * rfc7539esp(chacha20,poly1305) with SIMD ChaCha20 and Poly1305 fused in one
 * pass over the data. SIMD code runs in FPU sections (preemption off) that
 * are ended and restarted every CC_FPU_BYTES of data, within a request and
 * across the requests of a batch.
 *
 * ChaCha20 block functions: portable C here, SSSE3 / AVX2 / AVX-512VL in
 * chacha_{ssse3,avx2,avx512}.c. With chacha_impl=auto, every level the CPU
 * supports is timed once at init (as lib/raid6 and crypto/xor.c do) and the
 * fastest is bound to a static call: SIMD is not always the fastest (under
 * qemu TCG the portable C code wins). chacha_impl=<level> forces a level.
 * Poly1305 is scalar C with 44-bit limbs and u128 products.
 *
 * rfc7539esp semantics, as crypto/chacha20poly1305.c: key = 32 bytes of
 * ChaCha20 key followed by a 4-byte salt; nonce = salt || 8-byte req->iv;
 * req->assoclen counts the 8-byte IV that ESP puts at the end of the AD,
 * but only the first assoclen - 8 bytes are authenticated; the cipher text
 * starts at offset assoclen in src and dst; the AD is not copied to dst.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/scatterlist.h>
#include <linux/static_call.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <crypto/aead.h>
#include <crypto/algapi.h>
#include <crypto/internal/aead.h>
#include <crypto/internal/simd.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/simd.h>

#include "chacha_simd.h"
#include "chacha_impl.h"

static char *chacha_impl = "auto";
module_param(chacha_impl, charp, 0444);
MODULE_PARM_DESC(chacha_impl,
		 "ChaCha20 code: auto|generic|ssse3|avx2|avx512 (default auto)");

static int chacha_selftest;
module_param(chacha_selftest, int, 0444);
MODULE_PARM_DESC(chacha_selftest,
		 "Run the ChaCha20-Poly1305 self-test at load (1 = yes)");

static unsigned int chacha_selftest_iters = 200;
module_param(chacha_selftest_iters, uint, 0444);
MODULE_PARM_DESC(chacha_selftest_iters,
		 "Random differential cases per self-test (default 200)");

static int chacha_bench;
module_param(chacha_bench, int, 0444);
MODULE_PARM_DESC(chacha_bench,
		 "Print a ChaCha20-Poly1305 benchmark at load (1 = yes)");

#define CC_KEY_SIZE	32
#define CC_SALT_SIZE	4
#define CC_IV_SIZE	8
#define CC_TAG_SIZE	16
#define CC_KS_BLOCKS	4U	/* keystream blocks buffered at once */
#define CC_CHUNK	1024U	/* bytes ciphered then hashed while in L1 */
/* Most data per FPU section, as arch/x86/crypto/chacha_glue.c (SZ_4K) */
#define CC_FPU_BYTES	SZ_4K

/*
 * chacha_impl=auto: time each level on the keystream of CC_MEASURE_LEN
 * bytes (the ESP payload of a 1500-byte packet), run exactly as
 * cc_aead_crypt() runs it for one request: one FPU section, the first
 * blocks buffered at init, then CC_CHUNK pieces and a buffered tail. The
 * fastest of the runs done in CC_MEASURE_NS per level counts (and at
 * least CC_MEASURE_MIN_RUNS runs).
 */
#define CC_MEASURE_LEN		1420U
#define CC_MEASURE_NS		NSEC_PER_MSEC
#define CC_MEASURE_MIN_RUNS	3U
#define CC_MEASURE_MAX_RUNS	4096U

/*
 * Little-endian loads/stores: <asm/unaligned.h> became <linux/unaligned.h>
 * in 6.12, so use memcpy (compiled to single moves) for both kernels.
 */
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

struct cc_ctx {
	u32 key[8];
	u32 salt;
};

/* ------------------------------------------------------------------ */
/* ChaCha20, portable C                                                */

static __always_inline void cc_qr(u32 *x, int a, int b, int c, int d)
{
	x[a] += x[b];
	x[d] = rol32(x[d] ^ x[a], 16);
	x[c] += x[d];
	x[b] = rol32(x[b] ^ x[c], 12);
	x[a] += x[b];
	x[d] = rol32(x[d] ^ x[a], 8);
	x[c] += x[d];
	x[b] = rol32(x[b] ^ x[c], 7);
}

void chacha_xor_generic(u32 *state, u8 *dst, const u8 *src,
			unsigned int nblocks)
{
	u32 x[16];
	unsigned int i;

	while (nblocks--) {
		memcpy(x, state, sizeof(x));
		for (i = 0; i < 10; i++) {
			cc_qr(x, 0, 4, 8, 12);
			cc_qr(x, 1, 5, 9, 13);
			cc_qr(x, 2, 6, 10, 14);
			cc_qr(x, 3, 7, 11, 15);
			cc_qr(x, 0, 5, 10, 15);
			cc_qr(x, 1, 6, 11, 12);
			cc_qr(x, 2, 7, 8, 13);
			cc_qr(x, 3, 4, 9, 14);
		}
		for (i = 0; i < 16; i++) {
			u32 k = x[i] + state[i];

			if (src)
				k ^= cc_le32(src + 4 * i);
			cc_put_le32(k, dst + 4 * i);
		}
		state[12]++;
		dst += CHACHA_BLOCK_SIZE;
		if (src)
			src += CHACHA_BLOCK_SIZE;
	}
	memzero_explicit(x, sizeof(x));
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */

DEFINE_STATIC_CALL(esp_chacha_xor, chacha_xor_generic);
/* Off when the chosen level is the portable C one: no FPU section then. */
static DEFINE_STATIC_KEY_FALSE(cc_simd_key);

struct cc_level {
	const char *name;
	chacha_xor_fn fn;
	bool simd;
};

static const struct cc_level cc_levels[] = {
	{ "generic", chacha_xor_generic, false },
	{ "ssse3", chacha_xor_ssse3, true },
	{ "avx2", chacha_xor_avx2, true },
	{ "avx512", chacha_xor_avx512, true },
};

static const struct cc_level *cc_cur;

static bool cc_level_supported(const struct cc_level *l)
{
	if (l->fn == chacha_xor_generic)
		return true;
	if (!boot_cpu_has(X86_FEATURE_SSSE3))
		return false;
	if (l->fn == chacha_xor_ssse3)
		return true;
	if (!boot_cpu_has(X86_FEATURE_AVX) || !boot_cpu_has(X86_FEATURE_AVX2) ||
	    !cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		return false;
	if (l->fn == chacha_xor_avx2)
		return true;
	return boot_cpu_has(X86_FEATURE_AVX512F) &&
	       boot_cpu_has(X86_FEATURE_AVX512VL) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
				 XFEATURE_MASK_AVX512, NULL);
}

static void cc_set_level(const struct cc_level *l)
{
	static_call_update(esp_chacha_xor, l->fn);
	if (l->simd)
		static_branch_enable(&cc_simd_key);
	else
		static_branch_disable(&cc_simd_key);
	cc_cur = l;
}

/* ------------------------------------------------------------------ */
/* FPU sections: at most CC_FPU_BYTES of data each                     */

/* Sections begun, per CPU (read by the self-test). */
static DEFINE_PER_CPU(unsigned long, cc_fpu_sections);

struct cc_fpu {
	bool simd;		/* SIMD level in use: a section is held */
	unsigned int bytes;	/* data handled in the current section */
};

static void cc_fpu_begin(struct cc_fpu *f)
{
	f->bytes = 0;
	f->simd = static_branch_likely(&cc_simd_key) && crypto_simd_usable();
	if (f->simd) {
		kernel_fpu_begin();
		this_cpu_inc(cc_fpu_sections);
	}
}

/*
 * Account for @n more bytes (n <= CC_FPU_BYTES) about to be handled in the
 * section: if they would take it past CC_FPU_BYTES, end it (a preemption
 * point) and begin a new one first. Every SIMD state lives in memory
 * between calls, so nothing else needs saving.
 */
static __always_inline void cc_fpu_account(struct cc_fpu *f, unsigned int n)
{
	if (!f->simd)
		return;
	if (f->bytes && f->bytes + n > CC_FPU_BYTES) {
		kernel_fpu_end();
		kernel_fpu_begin();
		this_cpu_inc(cc_fpu_sections);
		f->bytes = 0;
	}
	f->bytes += n;
}

static void cc_fpu_end(struct cc_fpu *f)
{
	if (f->simd)
		kernel_fpu_end();
}

/* ------------------------------------------------------------------ */
/* Poly1305: 130-bit arithmetic in 44/44/42-bit limbs                  */

#define M44 0xfffffffffffULL
#define M42 0x3ffffffffffULL

struct cc_poly {
	u64 r0, r1, r2, s1, s2;
	u64 h0, h1, h2;
	u64 pad0, pad1;
	u8 buf[16];
	unsigned int buflen;
};

static void cc_poly_init(struct cc_poly *p, const u8 *key)
{
	u64 t0 = cc_le64(key);
	u64 t1 = cc_le64(key + 8);

	/* r &= 0x0ffffffc0ffffffc0ffffffc0fffffff, split in limbs */
	p->r0 = t0 & 0xffc0fffffffULL;
	p->r1 = ((t0 >> 44) | (t1 << 20)) & 0xfffffc0ffffULL;
	p->r2 = (t1 >> 24) & 0x00ffffffc0fULL;
	p->s1 = p->r1 * (5 << 2);
	p->s2 = p->r2 * (5 << 2);
	p->h0 = 0;
	p->h1 = 0;
	p->h2 = 0;
	p->pad0 = cc_le64(key + 16);
	p->pad1 = cc_le64(key + 24);
	p->buflen = 0;
}

static __always_inline unsigned __int128 cc_mul(u64 a, u64 b)
{
	return (unsigned __int128)a * b;
}

/* Absorb len / 16 full 16-byte blocks (each with the 2^128 bit set). */
static void cc_poly_blocks(struct cc_poly *p, const u8 *m, size_t len)
{
	unsigned __int128 d0, d1, d2;
	const u64 r0 = p->r0, r1 = p->r1, r2 = p->r2;
	const u64 s1 = p->s1, s2 = p->s2;
	u64 h0 = p->h0, h1 = p->h1, h2 = p->h2;
	u64 t0, t1, c;

	while (len >= 16) {
		t0 = cc_le64(m);
		t1 = cc_le64(m + 8);
		h0 += t0 & M44;
		h1 += ((t0 >> 44) | (t1 << 20)) & M44;
		h2 += ((t1 >> 24) & M42) | (1ULL << 40);

		d0 = cc_mul(h0, r0) + cc_mul(h1, s2) + cc_mul(h2, s1);
		d1 = cc_mul(h0, r1) + cc_mul(h1, r0) + cc_mul(h2, s2);
		d2 = cc_mul(h0, r2) + cc_mul(h1, r1) + cc_mul(h2, r0);

		c = (u64)(d0 >> 44);
		h0 = (u64)d0 & M44;
		d1 += c;
		c = (u64)(d1 >> 44);
		h1 = (u64)d1 & M44;
		d2 += c;
		c = (u64)(d2 >> 42);
		h2 = (u64)d2 & M42;
		h0 += c * 5;
		c = h0 >> 44;
		h0 &= M44;
		h1 += c;

		m += 16;
		len -= 16;
	}
	p->h0 = h0;
	p->h1 = h1;
	p->h2 = h2;
}

static void cc_poly_update(struct cc_poly *p, const u8 *m, size_t len)
{
	if (p->buflen) {
		size_t n = min_t(size_t, len, 16 - p->buflen);

		memcpy(p->buf + p->buflen, m, n);
		p->buflen += n;
		m += n;
		len -= n;
		if (p->buflen < 16)
			return;
		cc_poly_blocks(p, p->buf, 16);
		p->buflen = 0;
	}
	if (len >= 16) {
		cc_poly_blocks(p, m, len & ~(size_t)15);
		m += len & ~(size_t)15;
		len &= 15;
	}
	if (len) {
		memcpy(p->buf, m, len);
		p->buflen = len;
	}
}

/* Zero-pad to a 16-byte boundary, as the AEAD construction does. */
static void cc_poly_pad(struct cc_poly *p)
{
	if (!p->buflen)
		return;
	memset(p->buf + p->buflen, 0, 16 - p->buflen);
	cc_poly_blocks(p, p->buf, 16);
	p->buflen = 0;
}

static void cc_poly_final(struct cc_poly *p, u8 *mac)
{
	u64 h0 = p->h0, h1 = p->h1, h2 = p->h2;
	u64 g0, g1, g2, c, mask;

	/* fully carry h */
	c = h1 >> 44;
	h1 &= M44;
	h2 += c;
	c = h2 >> 42;
	h2 &= M42;
	h0 += c * 5;
	c = h0 >> 44;
	h0 &= M44;
	h1 += c;
	c = h1 >> 44;
	h1 &= M44;
	h2 += c;
	c = h2 >> 42;
	h2 &= M42;
	h0 += c * 5;
	c = h0 >> 44;
	h0 &= M44;
	h1 += c;

	/* g = h + 5 - 2^130; use g when it is not negative, i.e. h >= p */
	g0 = h0 + 5;
	c = g0 >> 44;
	g0 &= M44;
	g1 = h1 + c;
	c = g1 >> 44;
	g1 &= M44;
	g2 = h2 + c - (1ULL << 42);
	mask = (g2 >> 63) - 1;
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	h2 = (h2 & ~mask) | (g2 & mask);

	/* tag = (h + s) mod 2^128 */
	h0 += p->pad0 & M44;
	c = h0 >> 44;
	h0 &= M44;
	h1 += (((p->pad0 >> 44) | (p->pad1 << 20)) & M44) + c;
	c = h1 >> 44;
	h1 &= M44;
	h2 += ((p->pad1 >> 24) & M42) + c;

	cc_put_le64(h0 | (h1 << 44), mac);
	cc_put_le64((h1 >> 20) | (h2 << 24), mac + 8);
}

/* ------------------------------------------------------------------ */
/* Keystream with a small buffer for the bytes that do not fill a block */

struct cc_stream {
	u32 state[16];
	unsigned int pos, len;	/* unused keystream: ks[pos..len) */
	u8 ks[CC_KS_BLOCKS * CHACHA_BLOCK_SIZE];
};

static __always_inline void cc_blocks(bool simd, u32 *state, u8 *dst,
				      const u8 *src, unsigned int nblocks)
{
	if (simd)
		static_call(esp_chacha_xor)(state, dst, src, nblocks);
	else
		chacha_xor_generic(state, dst, src, nblocks);
}

static void cc_stream_xor(struct cc_stream *st, bool simd, u8 *dst,
			  const u8 *src, unsigned int len)
{
	unsigned int n, i;

	while (len) {
		if (st->pos < st->len) {
			n = min(len, st->len - st->pos);
			for (i = 0; i < n; i++)
				dst[i] = src[i] ^ st->ks[st->pos + i];
			st->pos += n;
		} else if (len >= CC_KS_BLOCKS * CHACHA_BLOCK_SIZE) {
			/* whole groups of 4 blocks straight from src to dst */
			n = len / (CC_KS_BLOCKS * CHACHA_BLOCK_SIZE) *
			    CC_KS_BLOCKS;
			cc_blocks(simd, st->state, dst, src, n);
			n *= CHACHA_BLOCK_SIZE;
		} else {
			n = DIV_ROUND_UP(len, CHACHA_BLOCK_SIZE);
			cc_blocks(simd, st->state, st->ks, NULL, n);
			st->pos = 0;
			st->len = n * CHACHA_BLOCK_SIZE;
			continue;
		}
		dst += n;
		src += n;
		len -= n;
	}
}

/*
 * Set up the ChaCha20 state for block 0 and produce the first keystream
 * blocks in one call: block 0 is the Poly1305 key (returned in ks[0..31]),
 * the following ones are kept for the first bytes of the message.
 */
static void cc_stream_init(struct cc_stream *st, bool simd,
			   const struct cc_ctx *ctx, const u8 *iv,
			   unsigned int cryptlen)
{
	unsigned int n;

	st->state[0] = 0x61707865;
	st->state[1] = 0x3320646e;
	st->state[2] = 0x79622d32;
	st->state[3] = 0x6b206574;
	memcpy(&st->state[4], ctx->key, sizeof(ctx->key));
	st->state[12] = 0;
	st->state[13] = ctx->salt;
	st->state[14] = cc_le32(iv);
	st->state[15] = cc_le32(iv + 4);

	n = 1 + DIV_ROUND_UP(cryptlen, CHACHA_BLOCK_SIZE);
	n = min(n, CC_KS_BLOCKS);
	cc_blocks(simd, st->state, st->ks, NULL, n);
	st->pos = CHACHA_BLOCK_SIZE;
	st->len = n * CHACHA_BLOCK_SIZE;
}

/* ------------------------------------------------------------------ */
/* Scatterlist walking (x86-64: every page is in the direct map)       */

struct cc_walk {
	struct scatterlist *sg;
	unsigned int off;
};

static void cc_walk_start(struct cc_walk *w, struct scatterlist *sg,
			  unsigned int skip)
{
	w->sg = sg;
	w->off = skip;
}

/* Contiguous bytes at the current position (0 at the end of the list). */
static unsigned int cc_walk_avail(struct cc_walk *w)
{
	while (w->sg && w->off >= w->sg->length) {
		w->off -= w->sg->length;
		w->sg = sg_next(w->sg);
	}
	return w->sg ? w->sg->length - w->off : 0;
}

static u8 *cc_walk_addr(struct cc_walk *w)
{
	return (u8 *)sg_virt(w->sg) + w->off;
}

/* Copy len bytes out of (to_sg false) or into (to_sg true) the walk. */
static int cc_walk_copy(struct cc_walk *w, u8 *buf, unsigned int len,
			bool to_sg)
{
	while (len) {
		unsigned int n = min(len, cc_walk_avail(w));

		if (!n)
			return -EINVAL;
		if (to_sg)
			memcpy(cc_walk_addr(w), buf, n);
		else
			memcpy(buf, cc_walk_addr(w), n);
		w->off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The AEAD                                                            */

struct cc_work {
	struct cc_stream st;
	struct cc_poly poly;
	u8 tag[CC_TAG_SIZE];
	u8 rtag[CC_TAG_SIZE];
};

/* One request, in the caller's FPU section @f (which it may restart). */
static int cc_crypt(struct aead_request *req, bool enc, struct cc_fpu *f,
		    struct cc_work *w)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	const struct cc_ctx *ctx = crypto_aead_ctx(tfm);
	unsigned int authsize = crypto_aead_authsize(tfm);
	bool inplace = req->src == req->dst;
	unsigned int adlen, cryptlen, left;
	struct cc_walk ws, wd;
	__le64 lens[2];
	int err = -EINVAL;

	if (req->assoclen < CC_IV_SIZE)
		return -EINVAL;
	adlen = req->assoclen - CC_IV_SIZE;
	cryptlen = req->cryptlen;
	if (!enc) {
		if (cryptlen < authsize)
			return -EINVAL;
		cryptlen -= authsize;
	}

	cc_fpu_account(f, CC_KS_BLOCKS * CHACHA_BLOCK_SIZE);
	cc_stream_init(&w->st, f->simd, ctx, req->iv, cryptlen);
	cc_poly_init(&w->poly, w->st.ks);

	/* AD (without the trailing IV), padded */
	cc_walk_start(&ws, req->src, 0);
	left = adlen;
	while (left) {
		unsigned int n = min3(left, cc_walk_avail(&ws), CC_CHUNK);

		if (!n)
			goto out;
		cc_fpu_account(f, n);
		cc_poly_update(&w->poly, cc_walk_addr(&ws), n);
		ws.off += n;
		left -= n;
	}
	cc_poly_pad(&w->poly);

	/* cipher text: cipher and hash each chunk while it is in L1 */
	cc_walk_start(&ws, req->src, req->assoclen);
	cc_walk_start(&wd, req->dst, req->assoclen);
	left = cryptlen;
	while (left) {
		unsigned int n = min3(left, cc_walk_avail(&ws), CC_CHUNK);
		u8 *s, *d;

		if (!inplace)
			n = min(n, cc_walk_avail(&wd));
		if (!n)
			goto out;
		cc_fpu_account(f, n);
		s = cc_walk_addr(&ws);
		d = inplace ? s : cc_walk_addr(&wd);
		if (enc) {
			cc_stream_xor(&w->st, f->simd, d, s, n);
			cc_poly_update(&w->poly, d, n);
		} else {
			cc_poly_update(&w->poly, s, n);
			cc_stream_xor(&w->st, f->simd, d, s, n);
		}
		ws.off += n;
		wd.off += n;
		left -= n;
	}
	cc_poly_pad(&w->poly);
	lens[0] = cpu_to_le64(adlen);
	lens[1] = cpu_to_le64(cryptlen);
	cc_poly_update(&w->poly, (u8 *)lens, sizeof(lens));
	cc_poly_final(&w->poly, w->tag);

	if (enc) {
		err = cc_walk_copy(inplace ? &ws : &wd, w->tag, authsize, true);
	} else {
		err = cc_walk_copy(&ws, w->rtag, authsize, false);
		if (!err && crypto_memneq(w->tag, w->rtag, authsize))
			err = -EBADMSG;
	}
out:
	return err;
}

static int cc_aead_crypt(struct aead_request *req, bool enc)
{
	struct cc_work w;
	struct cc_fpu f;
	int err;

	cc_fpu_begin(&f);
	err = cc_crypt(req, enc, &f, &w);
	cc_fpu_end(&f);
	memzero_explicit(&w, sizeof(w));
	return err;
}

static int cc_encrypt(struct aead_request *req)
{
	return cc_aead_crypt(req, true);
}

static int cc_decrypt(struct aead_request *req)
{
	return cc_aead_crypt(req, false);
}

static int cc_setkey(struct crypto_aead *tfm, const u8 *key,
		     unsigned int keylen)
{
	struct cc_ctx *ctx = crypto_aead_ctx(tfm);
	int i;

	if (keylen != CC_KEY_SIZE + CC_SALT_SIZE)
		return -EINVAL;
	for (i = 0; i < 8; i++)
		ctx->key[i] = cc_le32(key + 4 * i);
	ctx->salt = cc_le32(key + CC_KEY_SIZE);
	return 0;
}

/* Only the full tag, as the stock template (crypto/chacha20poly1305.c) */
static int cc_setauthsize(struct crypto_aead *tfm, unsigned int authsize)
{
	return authsize == CC_TAG_SIZE ? 0 : -EINVAL;
}

static struct aead_alg cc_alg = {
	.setkey		= cc_setkey,
	.setauthsize	= cc_setauthsize,
	.encrypt	= cc_encrypt,
	.decrypt	= cc_decrypt,
	.ivsize		= CC_IV_SIZE,
	.maxauthsize	= CC_TAG_SIZE,
	.chunksize	= CHACHA_BLOCK_SIZE,
	.base = {
		.cra_name		= "rfc7539esp(chacha20,poly1305)",
		.cra_driver_name	= ESP_CHACHA_DRIVER,
		/* stock template: (chacha20-simd 300 + poly1305-simd 300) / 2 */
		.cra_priority		= 500,
		.cra_blocksize		= 1,
		.cra_ctxsize		= sizeof(struct cc_ctx),
		.cra_module		= THIS_MODULE,
	},
};

bool esp_chacha_is_ours(struct crypto_aead *tfm)
{
	return tfm && crypto_aead_alg(tfm) == &cc_alg;
}
EXPORT_SYMBOL_GPL(esp_chacha_is_ours);

int esp_chacha_batch(struct crypto_aead *tfm, struct aead_request **reqs,
		     unsigned int n, bool enc, int *errs)
{
	struct cc_work w;
	struct cc_fpu f;
	unsigned int i;
	int ret = 0;

	if (!esp_chacha_is_ours(tfm))
		return -EINVAL;
	/* as crypto_aead_encrypt(): no key yet, or the last setkey failed */
	if (crypto_aead_get_flags(tfm) & CRYPTO_TFM_NEED_KEY) {
		for (i = 0; errs && i < n; i++)
			errs[i] = -ENOKEY;
		return -ENOKEY;
	}

	/* small requests share a section: CC_FPU_BYTES counts across them */
	cc_fpu_begin(&f);
	for (i = 0; i < n; i++) {
		int err = -EINVAL;

		if (crypto_aead_reqtfm(reqs[i]) == tfm)
			err = cc_crypt(reqs[i], enc, &f, &w);
		if (errs)
			errs[i] = err;
		if (err && !ret)
			ret = err;
	}
	cc_fpu_end(&f);
	memzero_explicit(&w, sizeof(w));
	return ret;
}
EXPORT_SYMBOL_GPL(esp_chacha_batch);

/* ------------------------------------------------------------------ */
/* Hooks for chacha_test.c                                             */

const char *esp_chacha_level_name(unsigned int i)
{
	return i < ARRAY_SIZE(cc_levels) ? cc_levels[i].name : NULL;
}

bool esp_chacha_level_supported(unsigned int i)
{
	return i < ARRAY_SIZE(cc_levels) && cc_level_supported(&cc_levels[i]);
}

/* Switch the dispatch to level i; returns the level that was active. */
int esp_chacha_level_set(unsigned int i)
{
	int old = cc_cur - cc_levels;

	if (!esp_chacha_level_supported(i))
		return -EOPNOTSUPP;
	cc_set_level(&cc_levels[i]);
	return old;
}

/* The active level. */
int esp_chacha_level_cur(void)
{
	return cc_cur - cc_levels;
}

/*
 * FPU sections begun so far on this CPU. The caller keeps preemption off
 * between two readings, so that traffic on other CPUs does not count.
 */
unsigned long esp_chacha_fpu_sections(void)
{
	return this_cpu_read(cc_fpu_sections);
}

/* Raw keystream xor at the current level, CC_FPU_BYTES per FPU section. */
void esp_chacha_xor_raw(u32 *state, u8 *dst, const u8 *src,
			unsigned int nblocks)
{
	struct cc_fpu f;

	cc_fpu_begin(&f);
	while (nblocks) {
		unsigned int n = min(nblocks, CC_FPU_BYTES / CHACHA_BLOCK_SIZE);

		cc_fpu_account(&f, n * CHACHA_BLOCK_SIZE);
		cc_blocks(f.simd, state, dst, src, n);
		dst += n * CHACHA_BLOCK_SIZE;
		if (src)
			src += n * CHACHA_BLOCK_SIZE;
		nblocks -= n;
	}
	cc_fpu_end(&f);
}

/* ------------------------------------------------------------------ */
/* chacha_impl=auto: pick the fastest level by measurement             */

/*
 * MB/s (1e6 bytes/s) of level @l (bound to the dispatch by the caller) on
 * one request-sized keystream run xored in place into @buf, FPU section
 * begin and end included (preemption off for the portable code too). Only
 * the fastest run counts: interrupts and other guests on the host only
 * slow down the runs they hit.
 */
static unsigned int cc_measure(const struct cc_level *l, u8 *buf)
{
	static const struct cc_ctx ctx;
	static const u8 iv[CC_IV_SIZE];
	u64 start, t0, dt, best = U64_MAX;
	unsigned int run, off, n;
	struct cc_stream st;

	start = ktime_get_ns();
	for (run = 0; run < CC_MEASURE_MAX_RUNS; run++) {
		t0 = ktime_get_ns();
		if (l->simd)
			kernel_fpu_begin();
		else
			preempt_disable();
		cc_stream_init(&st, l->simd, &ctx, iv, CC_MEASURE_LEN);
		for (off = 0; off < CC_MEASURE_LEN; off += n) {
			n = min(CC_MEASURE_LEN - off, CC_CHUNK);
			cc_stream_xor(&st, l->simd, buf + off, buf + off, n);
		}
		if (l->simd)
			kernel_fpu_end();
		else
			preempt_enable();
		dt = ktime_get_ns() - t0;
		best = min(best, dt);
		if (run + 1 >= CC_MEASURE_MIN_RUNS &&
		    ktime_get_ns() - start >= CC_MEASURE_NS)
			break;
	}
	return div64_u64((u64)CC_MEASURE_LEN * 1000, max_t(u64, best, 1));
}

/* The fastest supported level; logs every level's rate and the choice. */
static const struct cc_level *cc_pick_fastest(void)
{
	const struct cc_level *best = &cc_levels[0];	/* generic */
	unsigned int i, rate, best_rate = 0;
	char line[96] = " none (no memory)";
	int pos = 0;
	u8 *buf;

	/* before crypto_register_aead(): nobody else uses the dispatch yet */
	buf = kzalloc(CC_MEASURE_LEN, GFP_KERNEL);
	for (i = 0; buf && i < ARRAY_SIZE(cc_levels); i++) {
		const struct cc_level *l = &cc_levels[i];

		if (!cc_level_supported(l))
			continue;
		cc_set_level(l);
		rate = cc_measure(l, buf);
		pos += scnprintf(line + pos, sizeof(line) - pos, " %s=%u",
				 l->name, rate);
		if (rate > best_rate) {
			best_rate = rate;
			best = l;
		}
		cond_resched();
	}
	kfree(buf);
	pr_info("chacha: measured MB/s:%s; using %s ChaCha20 (fastest; driver %s)\n",
		line, best->name, ESP_CHACHA_DRIVER);
	return best;
}

int esp_chacha_init(void)
{
	const struct cc_level *l = NULL;
	unsigned int i;
	int err;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_HIGHMEM));

	if (!*chacha_impl || sysfs_streq(chacha_impl, "auto")) {
		l = cc_pick_fastest();
	} else {
		for (i = 0; i < ARRAY_SIZE(cc_levels); i++)
			if (sysfs_streq(chacha_impl, cc_levels[i].name))
				l = &cc_levels[i];
		if (!l) {
			pr_err("chacha_impl=%s: unknown\n", chacha_impl);
			return -EINVAL;
		}
		if (!cc_level_supported(l)) {
			pr_err("chacha_impl=%s: not supported by this CPU\n",
			       chacha_impl);
			return -EOPNOTSUPP;
		}
		pr_info("chacha: using %s ChaCha20 (chacha_impl=%s; driver %s)\n",
			l->name, chacha_impl, ESP_CHACHA_DRIVER);
	}
	cc_set_level(l);

	err = crypto_register_aead(&cc_alg);
	if (err) {
		pr_err("chacha: crypto_register_aead: %d\n", err);
		return err;
	}

	if (chacha_selftest) {
		err = esp_chacha_selftest(l->name, chacha_selftest_iters);
		if (err) {
			crypto_unregister_aead(&cc_alg);
			return err;
		}
	}
	if (chacha_bench)
		esp_chacha_bench();
	return 0;
}

void esp_chacha_exit(void)
{
	crypto_unregister_aead(&cc_alg);
}
