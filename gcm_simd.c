// SPDX-License-Identifier: GPL-2.0
/*
 * rfc4106(gcm(aes)) with the module's own AES-GCM core (gcm_core.h), for
 * ESP: the crypto API's AEAD and a batch entry point for GSO/GRO. SIMD code
 * runs in FPU sections (preemption off) that are ended and begun again
 * every EG_FPU_BYTES of data, within a request and across the requests
 * of a batch.
 *
 * The level (gcm_core.h) is the best one the CPU's features allow whose
 * known-answer test (gcm_kat.c) passes, chosen at init; nothing is timed.
 * A level that fails its known answers is stepped past, with a warning:
 * an emulator may advertise an instruction it computes wrongly (qemu 7.2
 * computes 256-bit VAESENC's upper lane from the lower lane's state).
 * Tests may force another level through debugfs (gcm_level). Where SIMD
 * cannot be used
 * (crypto_simd_usable() false: on 6.1 a softirq that interrupted a kernel
 * FPU section, a hard interrupt) and for AES-192, which the core does not
 * do, requests go to the stock rfc4106(gcm(aes)) through a fallback tfm,
 * which may complete them asynchronously (crypto/simd.c defers to cryptd):
 * so this AEAD is registered as asynchronous too.
 *
 * rfc4106 semantics, as crypto/gcm.c: key = AES key followed by a 4-byte
 * salt; nonce = salt || 8-byte req->iv; req->assoclen (16 or 20) counts
 * the 8-byte IV that ESP puts at the end of the AD, but only the first
 * assoclen - 8 bytes are authenticated; the text starts at offset
 * assoclen in src and dst; the AD is not copied to dst; tags of 8, 12 or
 * 16 bytes.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <crypto/aead.h>
#include <crypto/algapi.h>
#include <crypto/gcm.h>
#include <crypto/internal/aead.h>
#include <crypto/internal/simd.h>
#include <asm/cpu_device_id.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/simd.h>

#include "esp_swoffload.h"
#include "gcm_simd.h"
#include "gcm_impl.h"

#define EG_SALT		4
#define EG_IV		8
/* Most data per FPU section, as arch/x86/crypto's glue code (SZ_4K) */
#define EG_FPU_BYTES	SZ_4K

struct eg_ctx {
	struct gcm_key key;		/* 16-byte aligned: see eg_ctx() */
	u8 salt[EG_SALT];
	bool simd_key;			/* key is in @key: AES-128 or -256 */
	struct crypto_aead *fallback;
};

static struct eg_ctx *eg_ctx(struct crypto_aead *tfm)
{
	return PTR_ALIGN(crypto_aead_ctx(tfm), __alignof__(struct eg_ctx));
}

/* ------------------------------------------------------------------ */
/* Levels                                                              */

enum eg_isa {
	EG_SSE41,	/* AES-NI, PCLMULQDQ, SSE4.1 */
	EG_AVX,		/* and AVX */
	EG_AVX2,	/* and AVX2, VAES, VPCLMULQDQ */
	EG_AVX512,	/* and AVX512F, AVX512VL, AVX512BW */
};

struct eg_level {
	const struct gcm_impl *impl;
	enum eg_isa isa;
};

/* Best last. */
static const struct eg_level eg_levels[] = {
	{ &gcm_impl_aesni, EG_SSE41 },
	{ &gcm_impl_aesni_avx, EG_AVX },
	{ &gcm_impl_vaes_avx2, EG_AVX2 },
	{ &gcm_impl_vaes_avx512, EG_AVX512 },
};

static const struct gcm_impl *eg_cur;	/* the level in use */
static bool eg_fallback_forced;		/* esp_gcm_force_fallback() */

/*
 * The level's known-answer test, last run: not yet, passed, failed. A
 * failed level is not used (nor self-tested) until a run passes.
 */
enum eg_kat { EG_KAT_NONE, EG_KAT_PASSED, EG_KAT_FAILED };
static enum eg_kat eg_kat_state[ARRAY_SIZE(eg_levels)];
/* Test only (debugfs gcm_kat_fault): this level's known answers are wrong */
static int eg_kat_fault = -1;	/* none */
/* Serializes level changes, known-answer runs and the self-test */
static DEFINE_MUTEX(eg_level_lock);

/*
 * The CPU features level @l needs and this CPU lacks, as /proc/cpuinfo
 * names them, into @buf (empty: none). Each level needs the features of
 * those below it, and its own, as arch/x86/crypto/aesni-intel_glue.c asks
 * for the same instructions; the register state too (XCR0).
 */
static void eg_level_lacks(const struct eg_level *l, char *buf, size_t size)
{
	static const struct {
		u16 feature;
		u8 isa;
		char name[11];
	} need[] = {
		{ X86_FEATURE_AES, EG_SSE41, "aes" },
		{ X86_FEATURE_PCLMULQDQ, EG_SSE41, "pclmulqdq" },
		{ X86_FEATURE_XMM4_1, EG_SSE41, "sse4_1" },
		{ X86_FEATURE_AVX, EG_AVX, "avx" },
		{ X86_FEATURE_AVX2, EG_AVX2, "avx2" },
		{ X86_FEATURE_VAES, EG_AVX2, "vaes" },
		{ X86_FEATURE_VPCLMULQDQ, EG_AVX2, "vpclmulqdq" },
		{ X86_FEATURE_AVX512F, EG_AVX512, "avx512f" },
		{ X86_FEATURE_AVX512VL, EG_AVX512, "avx512vl" },
		{ X86_FEATURE_AVX512BW, EG_AVX512, "avx512bw" },
	};
	unsigned int i;
	size_t n = 0;

	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(need); i++)
		if (need[i].isa <= l->isa && !boot_cpu_has(need[i].feature))
			n += scnprintf(buf + n, size - n, "%s%s", n ? " " : "",
				       need[i].name);
	if (l->isa >= EG_AVX &&
	    !cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		n += scnprintf(buf + n, size - n, "%sYMM state", n ? " " : "");
	if (l->isa >= EG_AVX512 &&
	    !cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
			       XFEATURE_MASK_AVX512, NULL))
		n += scnprintf(buf + n, size - n, "%sZMM state", n ? " " : "");
}

static bool eg_level_supported(const struct eg_level *l)
{
	char lacks[64];

	eg_level_lacks(l, lacks, sizeof(lacks));
	return !lacks[0];
}

/*
 * CPUs that lower their clock while 512-bit vectors are in use, as
 * arch/x86/crypto/aesni-intel_glue.c lists them (zmm_exclusion_list):
 * there vaes-avx512 is not chosen by default, only when forced.
 */
static const struct x86_cpu_id eg_zmm_slow[] = {
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x55, NULL),	/* Skylake-X */
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x6a, NULL),	/* Ice Lake-X */
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x6c, NULL),	/* Ice Lake-D */
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x7d, NULL),	/* Ice Lake */
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x7e, NULL),	/* Ice Lake-L */
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x9d, NULL),	/* Ice Lake-NNPI */
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x8c, NULL),	/* Tiger Lake-L */
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x8d, NULL),	/* Tiger Lake */
	{}
};

/* ------------------------------------------------------------------ */
/* FPU sections: at most EG_FPU_BYTES of data each                     */

/* Sections begun, per CPU (read by the self-test). */
static DEFINE_PER_CPU(unsigned long, eg_fpu_sections);

struct eg_fpu {
	unsigned int bytes;	/* data handled in the current section */
};

static void eg_fpu_begin(struct eg_fpu *f)
{
	f->bytes = 0;
	kernel_fpu_begin();
	this_cpu_inc(eg_fpu_sections);
}

/*
 * Account for @n more bytes (n <= EG_FPU_BYTES) about to be handled in the
 * section: if they would take it past EG_FPU_BYTES, end it (a preemption
 * point) and begin a new one first. The core keeps its state in memory
 * between calls, so nothing else needs saving.
 */
static __always_inline void eg_fpu_account(struct eg_fpu *f, unsigned int n)
{
	if (f->bytes && f->bytes + n > EG_FPU_BYTES) {
		kernel_fpu_end();
		kernel_fpu_begin();
		this_cpu_inc(eg_fpu_sections);
		f->bytes = 0;
	}
	f->bytes += n;
}

static void eg_fpu_end(struct eg_fpu *f)
{
	kernel_fpu_end();
}

/* ------------------------------------------------------------------ */
/* Scatterlist walking (x86-64: every page is in the direct map)       */

struct eg_walk {
	struct scatterlist *sg;
	unsigned int off;
};

static void eg_walk_start(struct eg_walk *w, struct scatterlist *sg,
			  unsigned int skip)
{
	w->sg = sg;
	w->off = skip;
}

/* Contiguous bytes at the current position (0 at the end of the list). */
static unsigned int eg_walk_avail(struct eg_walk *w)
{
	while (w->sg && w->off >= w->sg->length) {
		w->off -= w->sg->length;
		w->sg = sg_next(w->sg);
	}
	return w->sg ? w->sg->length - w->off : 0;
}

static u8 *eg_walk_addr(struct eg_walk *w)
{
	return (u8 *)sg_virt(w->sg) + w->off;
}

/* Copy len bytes out of (to_sg false) or into (to_sg true) the walk. */
static int eg_walk_copy(struct eg_walk *w, u8 *buf, unsigned int len,
			bool to_sg)
{
	while (len) {
		unsigned int n = min(len, eg_walk_avail(w));

		if (!n)
			return -EINVAL;
		if (to_sg)
			memcpy(eg_walk_addr(w), buf, n);
		else
			memcpy(buf, eg_walk_addr(w), n);
		w->off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The AEAD                                                            */

struct eg_work {
	struct gcm_state st;
	u8 nonce[GCM_NONCE];
	u8 ad[GCM_BLOCK];
	u8 tag[GCM_TAG];
	u8 rtag[GCM_TAG];
};

/*
 * One request with level @l, in the caller's FPU section @f (which it may
 * restart).
 */
static int eg_crypt(const struct gcm_impl *l, struct aead_request *req,
		    bool enc, struct eg_fpu *f, struct eg_work *w)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	const struct eg_ctx *ctx = eg_ctx(tfm);
	unsigned int authsize = crypto_aead_authsize(tfm);
	bool inplace = req->src == req->dst;
	unsigned int adlen, cryptlen, left;
	struct eg_walk ws, wd;
	int err;

	err = crypto_ipsec_check_assoclen(req->assoclen);
	if (err)
		return err;
	adlen = req->assoclen - EG_IV;
	cryptlen = req->cryptlen;
	if (!enc) {
		if (cryptlen < authsize)
			return -EINVAL;
		cryptlen -= authsize;
	}

	/* AD (without the trailing IV): 8 or 12 bytes, gathered */
	eg_walk_start(&ws, req->src, 0);
	err = eg_walk_copy(&ws, w->ad, adlen, false);
	if (err)
		return err;
	memcpy(w->nonce, ctx->salt, EG_SALT);
	memcpy(w->nonce + EG_SALT, req->iv, EG_IV);
	eg_fpu_account(f, 2 * GCM_BLOCK);
	l->start(&ctx->key, &w->st, w->nonce, w->ad, adlen);

	eg_walk_start(&ws, req->src, req->assoclen);
	eg_walk_start(&wd, req->dst, req->assoclen);
	left = cryptlen;
	while (left) {
		unsigned int n = min3(left, eg_walk_avail(&ws), EG_FPU_BYTES);
		u8 *s, *d;

		if (!inplace)
			n = min(n, eg_walk_avail(&wd));
		if (!n)
			return -EINVAL;
		eg_fpu_account(f, n);
		s = eg_walk_addr(&ws);
		d = inplace ? s : eg_walk_addr(&wd);
		if (enc)
			l->enc(&ctx->key, &w->st, d, s, n);
		else
			l->dec(&ctx->key, &w->st, d, s, n);
		ws.off += n;
		wd.off += n;
		left -= n;
	}
	eg_fpu_account(f, 2 * GCM_BLOCK);
	l->finish(&ctx->key, &w->st, w->tag);

	if (enc)
		return eg_walk_copy(inplace ? &ws : &wd, w->tag, authsize, true);
	err = eg_walk_copy(&ws, w->rtag, authsize, false);
	if (!err && crypto_memneq(w->tag, w->rtag, authsize))
		err = -EBADMSG;
	return err;
}

static bool eg_simd_ready(const struct eg_ctx *ctx)
{
	return ctx->simd_key && !READ_ONCE(eg_fallback_forced) &&
	       crypto_simd_usable();
}

/*
 * The stock driver does the request: its completion, if it goes
 * asynchronous, is the caller's own (callback and data passed through).
 */
static int eg_fallback(struct aead_request *req, bool enc)
{
	struct eg_ctx *ctx = eg_ctx(crypto_aead_reqtfm(req));
	struct aead_request *sub = aead_request_ctx(req);

	aead_request_set_tfm(sub, ctx->fallback);
	aead_request_set_callback(sub, req->base.flags, req->base.complete,
				  req->base.data);
	aead_request_set_crypt(sub, req->src, req->dst, req->cryptlen,
			       req->iv);
	aead_request_set_ad(sub, req->assoclen);
	return enc ? crypto_aead_encrypt(sub) : crypto_aead_decrypt(sub);
}

static int eg_aead_crypt(struct aead_request *req, bool enc)
{
	const struct gcm_impl *l = READ_ONCE(eg_cur);
	struct eg_work w;
	struct eg_fpu f;
	int err;

	if (!eg_simd_ready(eg_ctx(crypto_aead_reqtfm(req))))
		return eg_fallback(req, enc);
	eg_fpu_begin(&f);
	err = eg_crypt(l, req, enc, &f, &w);
	eg_fpu_end(&f);
	memzero_explicit(&w, sizeof(w));
	return err;
}

static int eg_encrypt(struct aead_request *req)
{
	return eg_aead_crypt(req, true);
}

static int eg_decrypt(struct aead_request *req)
{
	return eg_aead_crypt(req, false);
}

static int eg_setkey(struct crypto_aead *tfm, const u8 *key,
		     unsigned int keylen)
{
	struct eg_ctx *ctx = eg_ctx(tfm);
	unsigned int aeslen = keylen - EG_SALT;
	int err;

	if (keylen != 16 + EG_SALT && keylen != 24 + EG_SALT &&
	    keylen != 32 + EG_SALT)
		return -EINVAL;

	/* the fallback takes every request while SIMD is not usable */
	crypto_aead_clear_flags(ctx->fallback, CRYPTO_TFM_REQ_MASK);
	crypto_aead_set_flags(ctx->fallback, crypto_aead_get_flags(tfm) &
				     CRYPTO_TFM_REQ_MASK);
	err = crypto_aead_setkey(ctx->fallback, key, keylen);
	if (err)
		return err;

	ctx->simd_key = false;
	memzero_explicit(&ctx->key, sizeof(ctx->key));
	memcpy(ctx->salt, key + aeslen, EG_SALT);
	/* AES-192, or no SIMD now (setkey is process context: rare): fallback */
	if (aeslen == 24 || !crypto_simd_usable())
		return 0;
	kernel_fpu_begin();
	ctx->simd_key = READ_ONCE(eg_cur)->setkey(&ctx->key, key, aeslen);
	kernel_fpu_end();
	return 0;
}

static int eg_setauthsize(struct crypto_aead *tfm, unsigned int authsize)
{
	int err = crypto_rfc4106_check_authsize(authsize);

	return err ?: crypto_aead_setauthsize(eg_ctx(tfm)->fallback, authsize);
}

static int eg_init_tfm(struct crypto_aead *tfm)
{
	struct eg_ctx *ctx = eg_ctx(tfm);
	struct crypto_aead *fb;

	/* any other rfc4106(gcm(aes)) but ours (and others that need one) */
	fb = crypto_alloc_aead(crypto_tfm_alg_name(crypto_aead_tfm(tfm)), 0,
			       CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(fb))
		return PTR_ERR(fb);
	ctx->fallback = fb;
	ctx->simd_key = false;
	crypto_aead_set_reqsize(tfm, sizeof(struct aead_request) +
				crypto_aead_reqsize(fb));
	return 0;
}

static void eg_exit_tfm(struct crypto_aead *tfm)
{
	struct eg_ctx *ctx = eg_ctx(tfm);

	crypto_free_aead(ctx->fallback);
	memzero_explicit(ctx, sizeof(*ctx));
}

static struct aead_alg eg_alg = {
	.setkey		= eg_setkey,
	.setauthsize	= eg_setauthsize,
	.encrypt	= eg_encrypt,
	.decrypt	= eg_decrypt,
	.init		= eg_init_tfm,
	.exit		= eg_exit_tfm,
	.ivsize		= EG_IV,
	.maxauthsize	= GCM_TAG,
	.chunksize	= GCM_BLOCK,
	.base = {
		.cra_name		= "rfc4106(gcm(aes))",
		.cra_driver_name	= ESP_GCM_DRIVER,
		/*
		 * Above every stock implementation: arch/x86/crypto's
		 * rfc4106-gcm-aesni is 400 on 6.1; on 6.12 aesni 400,
		 * aesni-avx 500, vaes-avx10_256 700, vaes-avx10_512 800.
		 */
		.cra_priority		= 900,
		.cra_flags		= CRYPTO_ALG_ASYNC |
					  CRYPTO_ALG_NEED_FALLBACK,
		.cra_blocksize		= 1,
		.cra_ctxsize		= sizeof(struct eg_ctx) +
					  __alignof__(struct eg_ctx) - 1,
		.cra_module		= THIS_MODULE,
	},
};

bool esp_gcm_is_ours(struct crypto_aead *tfm)
{
	return tfm && crypto_aead_alg(tfm) == &eg_alg;
}

bool esp_gcm_batch_ready(struct crypto_aead *tfm)
{
	return esp_gcm_is_ours(tfm) && eg_simd_ready(eg_ctx(tfm));
}

int esp_gcm_batch(struct crypto_aead *tfm, struct aead_request **reqs,
		  unsigned int n, bool enc, int *errs)
{
	const struct gcm_impl *l = READ_ONCE(eg_cur);
	struct eg_work w;
	struct eg_fpu f;
	unsigned int i;
	int ret = 0;

	if (!esp_gcm_is_ours(tfm))
		return -EINVAL;
	/* as crypto_aead_encrypt(): no key yet, or the last setkey failed */
	if (crypto_aead_get_flags(tfm) & CRYPTO_TFM_NEED_KEY)
		ret = -ENOKEY;
	else if (!eg_simd_ready(eg_ctx(tfm)))
		ret = -EAGAIN;
	if (ret) {
		for (i = 0; errs && i < n; i++)
			errs[i] = ret;
		return ret;
	}

	/* small requests share a section: EG_FPU_BYTES counts across them */
	eg_fpu_begin(&f);
	for (i = 0; i < n; i++) {
		int err = -EINVAL;

		if (crypto_aead_reqtfm(reqs[i]) == tfm)
			err = eg_crypt(l, reqs[i], enc, &f, &w);
		if (errs)
			errs[i] = err;
		if (err && !ret)
			ret = err;
	}
	eg_fpu_end(&f);
	memzero_explicit(&w, sizeof(w));
	return ret;
}

/* ------------------------------------------------------------------ */
/* Known-answer test and the choice of level                           */

/*
 * Level @i's known-answer test: every case of gcm_kat_long.h, each in an
 * FPU section of its own. Records the result. Returns 0, the number of
 * the first case that failed, or -ENOMEM.
 */
static int eg_kat_run(unsigned int i)
{
	struct gcm_kat_work *w;
	unsigned int c, failed = 0;

	/* a case encrypts and decrypts its text: one section's worth */
	BUILD_BUG_ON(2 * GCM_KAT_MAX_LEN > EG_FPU_BYTES);
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	for (c = 0; c < gcm_kat_cases() && !failed; c++) {
		bool ok;

		kernel_fpu_begin();
		ok = gcm_known_answer(eg_levels[i].impl, c, w,
				      READ_ONCE(eg_kat_fault) == (int)i);
		kernel_fpu_end();
		if (!ok)
			failed = c + 1;
	}
	kfree_sensitive(w);	/* it holds the last case's key */
	eg_kat_state[i] = failed ? EG_KAT_FAILED : EG_KAT_PASSED;
	return failed;
}

/*
 * Whether level @i may be chosen by default: the CPU has what it needs
 * and, for 512-bit vectors, keeps its clock with them. With @say, dmesg
 * is told why not.
 */
static bool eg_candidate(unsigned int i, bool say)
{
	const char *name = eg_levels[i].impl->name;
	char lacks[64];

	eg_level_lacks(&eg_levels[i], lacks, sizeof(lacks));
	if (lacks[0]) {
		if (say)
			pr_info("gcm: %s not available: this CPU lacks %s\n",
				name, lacks);
		return false;
	}
	if (eg_levels[i].isa == EG_AVX512 && x86_match_cpu(eg_zmm_slow)) {
		if (say)
			pr_info("gcm: %s not chosen: this CPU model lowers its clock for 512-bit vectors\n",
				name);
		return false;
	}
	return true;
}

/*
 * Make the best level the one in use: the highest candidate whose
 * known answers pass, stepping down past (with a warning that names the
 * next one) each that fails. Returns its index; -EINVAL if every
 * candidate failed, -ENODEV if there is none, or -ENOMEM.
 */
static int eg_choose_level(void)
{
	int i, next, bad, ret = -ENODEV;

	for (i = ARRAY_SIZE(eg_levels) - 1; i >= 0; i--) {
		if (!eg_candidate(i, true))
			continue;
		bad = eg_kat_run(i);
		if (bad < 0)
			return bad;
		if (!bad) {
			WRITE_ONCE(eg_cur, eg_levels[i].impl);
			return i;
		}
		for (next = i - 1; next >= 0; next--)
			if (eg_candidate(next, false))
				break;
		pr_warn("gcm: %s known-answer test FAILED at case %d of %u: falling back to %s\n",
			eg_levels[i].impl->name, bad, gcm_kat_cases(),
			next >= 0 ? eg_levels[next].impl->name : "none");
		ret = -EINVAL;
	}
	return ret;
}

/* Make level @i the one in use, if the CPU has it and its answers pass. */
static int eg_use_level(unsigned int i)
{
	int bad;

	if (!eg_level_supported(&eg_levels[i]))
		return -EOPNOTSUPP;
	bad = eg_kat_run(i);
	if (bad < 0)
		return bad;
	if (bad) {
		pr_warn("gcm: %s known-answer test FAILED at case %d of %u: not used\n",
			eg_levels[i].impl->name, bad, gcm_kat_cases());
		return -EINVAL;
	}
	WRITE_ONCE(eg_cur, eg_levels[i].impl);
	return 0;
}

/* ------------------------------------------------------------------ */
/* debugfs: gcm_level, gcm_kat_fault                                   */

/* Words the debugfs files take besides the levels' names */
#define EG_WORD_NONE	(-1)				/* gcm_kat_fault */
#define EG_WORD_BEST	((int)ARRAY_SIZE(eg_levels))	/* gcm_level */

/*
 * What user buffer @buf names: a level (its index), "none" or "best"
 * (EG_WORD_*). Returns 0 and sets *@level, or -EINVAL/-EFAULT.
 */
static int eg_level_parse(const char __user *buf, size_t len, int *level)
{
	char s[16];
	int i;

	if (!len || len >= sizeof(s))
		return -EINVAL;
	if (copy_from_user(s, buf, len))
		return -EFAULT;
	s[len] = 0;
	for (i = 0; i < (int)ARRAY_SIZE(eg_levels); i++)
		if (sysfs_streq(s, eg_levels[i].impl->name))
			break;
	if (i == EG_WORD_BEST && !sysfs_streq(s, "best"))
		i = sysfs_streq(s, "none") ? EG_WORD_NONE : -EINVAL;
	if (i == -EINVAL)
		return i;
	*level = i;
	return 0;
}

static ssize_t eg_name_read(char __user *buf, size_t len, loff_t *ppos,
			    const char *name)
{
	char s[16];
	int n;

	n = scnprintf(s, sizeof(s), "%s\n", name);
	return simple_read_from_buffer(buf, len, ppos, s, n);
}

/* Reads the level in use. */
static ssize_t eg_level_read(struct file *file, char __user *buf,
			     size_t len, loff_t *ppos)
{
	return eg_name_read(buf, len, ppos, READ_ONCE(eg_cur)->name);
}

/*
 * Takes a level's name (the CPU must have it; its known answers are run
 * first) or "best" (the choice made at load, made again).
 */
static ssize_t eg_level_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	int i, err;

	err = eg_level_parse(buf, len, &i);
	if (err)
		return err;
	if (i == EG_WORD_NONE)
		return -EINVAL;
	mutex_lock(&eg_level_lock);
	if (i == EG_WORD_BEST) {
		i = eg_choose_level();
		err = min(i, 0);
		if (!err)
			pr_info("gcm: level %s (debugfs gcm_level: best)\n",
				eg_levels[i].impl->name);
	} else {
		err = eg_use_level(i);
		if (!err)
			pr_info("gcm: level %s (debugfs gcm_level)\n",
				eg_levels[i].impl->name);
	}
	mutex_unlock(&eg_level_lock);
	return err ?: len;
}

static const struct file_operations eg_level_fops = {
	.open	= simple_open,
	.read	= eg_level_read,
	.write	= eg_level_write,
	.llseek	= default_llseek,
};

/* Reads the level whose known answers are made wrong, or "none". */
static ssize_t eg_fault_read(struct file *file, char __user *buf,
			     size_t len, loff_t *ppos)
{
	int i = READ_ONCE(eg_kat_fault);

	return eg_name_read(buf, len, ppos,
			    i < 0 ? "none" : eg_levels[i].impl->name);
}

/* Takes a level's name or "none". */
static ssize_t eg_fault_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	int i, err;

	err = eg_level_parse(buf, len, &i);
	if (err)
		return err;
	if (i == EG_WORD_BEST)
		return -EINVAL;
	mutex_lock(&eg_level_lock);
	WRITE_ONCE(eg_kat_fault, i);
	mutex_unlock(&eg_level_lock);
	return len;
}

static const struct file_operations eg_fault_fops = {
	.open	= simple_open,
	.read	= eg_fault_read,
	.write	= eg_fault_write,
	.llseek	= default_llseek,
};

/* ------------------------------------------------------------------ */
/* Hooks for gcm_test.c                                                */

const char *esp_gcm_level_name(unsigned int i)
{
	return i < ARRAY_SIZE(eg_levels) ? eg_levels[i].impl->name : NULL;
}

/* NULL if level @i can be used here, else why not. */
const char *esp_gcm_level_unusable(unsigned int i)
{
	if (i >= ARRAY_SIZE(eg_levels))
		return "no such level";
	if (!eg_level_supported(&eg_levels[i]))
		return "this CPU lacks its features";
	if (eg_kat_state[i] == EG_KAT_FAILED)
		return "refused by its known-answer test";
	return NULL;
}

bool esp_gcm_level_supported(unsigned int i)
{
	return !esp_gcm_level_unusable(i);
}

const struct gcm_impl *esp_gcm_level_impl(unsigned int i)
{
	return esp_gcm_level_supported(i) ? eg_levels[i].impl : NULL;
}

/*
 * Switch requests to level i; returns the level that was active. Every
 * level uses the same key layout, so keys set under another stay valid.
 */
int esp_gcm_level_set(unsigned int i)
{
	int old = esp_gcm_level_cur();

	if (!esp_gcm_level_supported(i))
		return -EOPNOTSUPP;
	WRITE_ONCE(eg_cur, eg_levels[i].impl);
	return old;
}

int esp_gcm_level_cur(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(eg_levels); i++)
		if (eg_levels[i].impl == READ_ONCE(eg_cur))
			return i;
	return -ENOENT;
}

/* The self-test, serialized with the debugfs level switches. */
int esp_gcm_run_selftest(unsigned int iters)
{
	int err;

	mutex_lock(&eg_level_lock);
	err = esp_gcm_selftest(iters);
	mutex_unlock(&eg_level_lock);
	return err;
}

void esp_gcm_force_fallback(bool on)
{
	WRITE_ONCE(eg_fallback_forced, on);
}

/*
 * FPU sections begun so far on this CPU. The caller keeps preemption off
 * between two readings, so that traffic on other CPUs does not count.
 */
unsigned long esp_gcm_fpu_sections(void)
{
	return this_cpu_read(eg_fpu_sections);
}

/* ------------------------------------------------------------------ */

int esp_gcm_init(void)
{
	int i, err;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_HIGHMEM));

	if (!eg_level_supported(&eg_levels[0])) {
		/* nothing faster than the stock driver to offer */
		pr_info("gcm: no AES-NI, PCLMULQDQ and SSE4.1: %s not registered\n",
			ESP_GCM_DRIVER);
		return 0;
	}
	mutex_lock(&eg_level_lock);
	i = eg_choose_level();
	mutex_unlock(&eg_level_lock);
	if (i < 0) {
		pr_err("gcm: not registering %s: no level passes its known-answer test (%d)\n",
		       ESP_GCM_DRIVER, i);
		WRITE_ONCE(eg_cur, NULL);
		return i;
	}

	err = crypto_register_aead(&eg_alg);
	if (err) {
		pr_err("gcm: crypto_register_aead: %d\n", err);
		eg_cur = NULL;
		return err;
	}
	pr_info("gcm: using %s AES-GCM (best level of this CPU, %u known answers passed; driver %s, priority %d)\n",
		eg_cur->name, gcm_kat_cases(), ESP_GCM_DRIVER,
		eg_alg.base.cra_priority);
	debugfs_create_file("gcm_level", 0600, eso_debugfs_dir(), NULL,
			    &eg_level_fops);
	debugfs_create_file("gcm_kat_fault", 0600, eso_debugfs_dir(), NULL,
			    &eg_fault_fops);
	esp_gcm_test_init();
	return 0;
}

bool esp_gcm_registered(void)
{
	return eg_cur;
}

void esp_gcm_exit(void)
{
	if (eg_cur)
		crypto_unregister_aead(&eg_alg);
}
