// SPDX-License-Identifier: GPL-2.0
/*
 * rfc7539esp(chacha20,poly1305) for the crypto API: the kernel glue around
 * the core in chacha_core.c (ChaCha20 levels, Poly1305, the fused pass,
 * the tag), which also builds as a user program (bench/native/). Here:
 * the level, chosen by CPU features; FPU sections, which are ended and
 * restarted every CC_FPU_BYTES of data, within a request and across the
 * requests of a batch; the scatterlist walk, which hands the core each
 * contiguous run of src and dst; registration, after a known-answer test
 * at the chosen level; the batch entry point; and the debugfs switches.
 *
 * Level: AVX-512VL, else AVX2, else SSSE3, else portable C, as the
 * kernel's own chacha and poly1305 code choose (arch/x86/crypto/). Tests
 * may force another one through debugfs (chacha_level).
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
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/scatterlist.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <crypto/aead.h>
#include <crypto/algapi.h>
#include <crypto/internal/aead.h>
#include <crypto/internal/simd.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/simd.h>

#include "esp_swoffload.h"
#include "chacha_simd.h"
#include "chacha_core.h"

#define CC_CHUNK	2048U	/* most bytes handed to the core at once */
/* Most data per FPU section, as arch/x86/crypto/chacha_glue.c (SZ_4K) */
#define CC_FPU_BYTES	SZ_4K

/* ------------------------------------------------------------------ */
/* Levels                                                              */

static const char * const cc_level_names[CC_NR_LEVELS] = {
	[CC_GENERIC] = "generic",
	[CC_SSSE3] = "ssse3",
	[CC_AVX2] = "avx2",
	[CC_AVX512] = "avx512",
};

/* The level new requests use; each request or batch reads it once. */
static enum cc_level cc_cur;
static DEFINE_MUTEX(cc_level_lock);

/* Each level needs the features of the ones below it, and its own. */
static bool cc_level_supported(enum cc_level l)
{
	if (l == CC_GENERIC)
		return true;
	if (!boot_cpu_has(X86_FEATURE_SSSE3))
		return false;
	if (l == CC_SSSE3)
		return true;
	/* BMI2: the AVX2 and AVX-512 levels' Poly1305 multiplies with mulx */
	if (!boot_cpu_has(X86_FEATURE_AVX) || !boot_cpu_has(X86_FEATURE_AVX2) ||
	    !boot_cpu_has(X86_FEATURE_BMI2) ||
	    !cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		return false;
	if (l == CC_AVX2)
		return true;
	return l == CC_AVX512 && boot_cpu_has(X86_FEATURE_AVX512F) &&
	       boot_cpu_has(X86_FEATURE_AVX512VL) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
				 XFEATURE_MASK_AVX512, NULL);
}

static enum cc_level cc_best_level(void)
{
	enum cc_level l = CC_NR_LEVELS - 1;

	while (l > CC_GENERIC && !cc_level_supported(l))
		l--;
	return l;
}

/* ------------------------------------------------------------------ */
/* FPU sections: at most CC_FPU_BYTES of data each                     */

/* Sections begun, per CPU (read by the self-test). */
static DEFINE_PER_CPU(unsigned long, cc_fpu_sections);

struct cc_fpu {
	enum cc_level level;	/* for every request in the section */
	bool simd;		/* SIMD level in use: a section is held */
	unsigned int bytes;	/* data handled in the current section */
};

/*
 * The level is read once per section. Without a usable FPU (e.g. in an
 * interrupt over FPU use) the portable level does the work.
 */
static void cc_fpu_begin(struct cc_fpu *f)
{
	f->bytes = 0;
	f->level = READ_ONCE(cc_cur);
	f->simd = f->level != CC_GENERIC && crypto_simd_usable();
	if (!f->simd) {
		f->level = CC_GENERIC;
		return;
	}
	kernel_fpu_begin();
	this_cpu_inc(cc_fpu_sections);
}

/*
 * Account for @n more bytes (n <= CC_FPU_BYTES) about to be handled in the
 * section: if they would take it past CC_FPU_BYTES, end it (a preemption
 * point) and begin a new one first. The core keeps no register state
 * between its calls, so nothing else needs saving.
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
	struct cc_aead a;
	u8 tag[CC_TAG_SIZE];
	u8 rtag[CC_TAG_SIZE];
};

/* The AD, without the trailing IV, in contiguous runs */
static int cc_crypt_ad(struct aead_request *req, unsigned int adlen,
		       struct cc_fpu *f, struct cc_aead *a)
{
	struct cc_walk ws;

	cc_walk_start(&ws, req->src, 0);
	while (adlen) {
		unsigned int n = min3(adlen, cc_walk_avail(&ws), CC_CHUNK);

		if (!n)
			return -EINVAL;
		cc_fpu_account(f, n);
		cc_aead_ad(a, cc_walk_addr(&ws), n);
		ws.off += n;
		adlen -= n;
	}
	return 0;
}

/* The text, in runs contiguous in both src and dst; then the tag. */
static int cc_crypt_text(struct aead_request *req, unsigned int len,
			 unsigned int authsize, bool enc, struct cc_fpu *f,
			 struct cc_work *w)
{
	bool inplace = req->src == req->dst;
	struct cc_walk ws, wd;

	cc_walk_start(&ws, req->src, req->assoclen);
	cc_walk_start(&wd, req->dst, req->assoclen);
	while (len) {
		unsigned int n = min3(len, cc_walk_avail(&ws), CC_CHUNK);
		u8 *s, *d;

		if (!inplace)
			n = min(n, cc_walk_avail(&wd));
		if (!n)
			return -EINVAL;
		cc_fpu_account(f, n);
		s = cc_walk_addr(&ws);
		d = inplace ? s : cc_walk_addr(&wd);
		if (enc)
			cc_aead_encrypt(&w->a, d, s, n);
		else
			cc_aead_decrypt(&w->a, d, s, n);
		ws.off += n;
		wd.off += n;
		len -= n;
	}
	cc_aead_tag(&w->a, w->tag);

	if (enc)
		return cc_walk_copy(inplace ? &ws : &wd, w->tag, authsize, true);
	if (cc_walk_copy(&ws, w->rtag, authsize, false))
		return -EINVAL;
	return crypto_memneq(w->tag, w->rtag, authsize) ? -EBADMSG : 0;
}

/* One request, in the caller's FPU section @f (which it may restart). */
static int cc_crypt(struct aead_request *req, bool enc, struct cc_fpu *f,
		    struct cc_work *w)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	const struct cc_key *key = crypto_aead_ctx(tfm);
	unsigned int authsize = crypto_aead_authsize(tfm);
	unsigned int cryptlen = req->cryptlen;
	int err;

	if (req->assoclen < CC_IV_SIZE)
		return -EINVAL;
	if (!enc) {
		if (cryptlen < authsize)
			return -EINVAL;
		cryptlen -= authsize;
	}

	cc_fpu_account(f, CC_KS_BLOCKS * CHACHA_BLOCK_SIZE);
	cc_aead_init(&w->a, f->level, key, req->iv, cryptlen);
	err = cc_crypt_ad(req, req->assoclen - CC_IV_SIZE, f, &w->a);
	if (err)
		return err;
	return cc_crypt_text(req, cryptlen, authsize, enc, f, w);
}

static int cc_aead_crypt(struct aead_request *req, bool enc)
{
	struct cc_work w __uninitialized;
	struct cc_fpu f;
	int err;

	w.a.ks_hi = 0;	/* for the wipe, if the request is refused before init */
	cc_fpu_begin(&f);
	err = cc_crypt(req, enc, &f, &w);
	cc_fpu_end(&f);
	/* as far as it was written (a batch, below, wipes it all once) */
	cc_aead_wipe(&w.a);
	memzero_explicit(w.tag, sizeof(w.tag));
	memzero_explicit(w.rtag, sizeof(w.rtag));
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

static int cc_aead_setkey(struct crypto_aead *tfm, const u8 *key,
			  unsigned int keylen)
{
	if (keylen != CC_KEY_SIZE + CC_SALT_SIZE)
		return -EINVAL;
	cc_setkey(crypto_aead_ctx(tfm), key);
	return 0;
}

/* Only the full tag, as the stock template (crypto/chacha20poly1305.c) */
static int cc_setauthsize(struct crypto_aead *tfm, unsigned int authsize)
{
	return authsize == CC_TAG_SIZE ? 0 : -EINVAL;
}

static struct aead_alg cc_alg = {
	.setkey		= cc_aead_setkey,
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
		.cra_ctxsize		= sizeof(struct cc_key),
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
	struct cc_work w __uninitialized;
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
/* Known-answer test                                                   */

/* Test only (debugfs chacha_kat_fault): the known answers expect wrong tags */
static bool cc_kat_fault;

/*
 * Every case of chacha_kat.h at @l, each in an FPU section of its own
 * (a case is at most CC_FPU_BYTES of data). Returns 0, or the number of
 * the first case that failed.
 */
static int cc_kat_run(enum cc_level l)
{
	unsigned int i, failed = 0;
	u8 *buf;

	buf = kmalloc(CC_KAT_BUF_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	BUILD_BUG_ON(CC_KAT_BUF_SIZE > CC_FPU_BYTES);
	for (i = 0; i < cc_kat_cases() && !failed; i++) {
		bool ok;

		if (l != CC_GENERIC)
			kernel_fpu_begin();
		ok = cc_known_answer(l, i, buf, READ_ONCE(cc_kat_fault));
		if (l != CC_GENERIC)
			kernel_fpu_end();
		if (!ok)
			failed = i + 1;
	}
	kfree_sensitive(buf);
	return failed;
}

/* Make @l the level of new requests, if its known-answer test passes. */
static int cc_use_level(enum cc_level l)
{
	int bad;

	if (!cc_level_supported(l))
		return -EOPNOTSUPP;
	bad = cc_kat_run(l);
	if (bad < 0)
		return bad;
	if (bad) {
		pr_err("chacha: %s known-answer test FAILED at case %d of %u\n",
		       cc_level_names[l], bad, cc_kat_cases());
		return -EINVAL;
	}
	WRITE_ONCE(cc_cur, l);
	return 0;
}

/* ------------------------------------------------------------------ */
/* debugfs: chacha_level, chacha_selftest (and chacha_kat_fault)      */

/* Reads the active level; takes a level name (its known answers first). */
static ssize_t cc_level_read(struct file *file, char __user *buf,
			     size_t len, loff_t *ppos)
{
	const char *name = cc_level_names[READ_ONCE(cc_cur)];
	char s[16];
	int n;

	n = scnprintf(s, sizeof(s), "%s\n", name);
	return simple_read_from_buffer(buf, len, ppos, s, n);
}

static ssize_t cc_level_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	char s[16];
	int l, err;

	if (len >= sizeof(s))
		return -EINVAL;
	if (copy_from_user(s, buf, len))
		return -EFAULT;
	s[len] = 0;
	l = sysfs_match_string(cc_level_names, s);
	if (l < 0)
		return -EINVAL;
	mutex_lock(&cc_level_lock);
	err = cc_use_level(l);
	mutex_unlock(&cc_level_lock);
	if (!err)
		pr_info("chacha: level %s (debugfs chacha_level)\n",
			cc_level_names[l]);
	return err ?: len;
}

/* No .owner, as debugfs.c's files: removed first thing at module exit */
static const struct file_operations cc_level_fops = {
	.open	= simple_open,
	.read	= cc_level_read,
	.write	= cc_level_write,
	.llseek	= default_llseek,
};

/* Iterations of the last self-test run through debugfs. */
static u32 cc_selftest_iters;

/* Writing N runs the self-test, N random cases, at the active level. */
static int cc_selftest_set(u32 iters)
{
	int err;

	mutex_lock(&cc_level_lock);
	cc_selftest_iters = iters;
	err = esp_chacha_selftest(cc_level_names[cc_cur], iters);
	mutex_unlock(&cc_level_lock);
	return err;
}

/* ------------------------------------------------------------------ */
/* Hooks for chacha_test.c                                             */

/* The active level's name. */
const char *esp_chacha_level_name(void)
{
	return cc_level_names[READ_ONCE(cc_cur)];
}

/*
 * FPU sections begun so far on this CPU. The caller keeps preemption off
 * between two readings, so that traffic on other CPUs does not count.
 */
unsigned long esp_chacha_fpu_sections(void)
{
	return this_cpu_read(cc_fpu_sections);
}

/* Raw keystream xor at the active level, CC_FPU_BYTES per FPU section. */
void esp_chacha_xor_raw(u32 *state, u8 *dst, const u8 *src,
			unsigned int nblocks)
{
	struct cc_fpu f;

	cc_fpu_begin(&f);
	while (nblocks) {
		unsigned int n = min(nblocks, CC_FPU_BYTES / CHACHA_BLOCK_SIZE);

		cc_fpu_account(&f, n * CHACHA_BLOCK_SIZE);
		cc_chacha(f.level, state, dst, src, n);
		dst += n * CHACHA_BLOCK_SIZE;
		if (src)
			src += n * CHACHA_BLOCK_SIZE;
		nblocks -= n;
	}
	cc_fpu_end(&f);
}

/* ------------------------------------------------------------------ */

int esp_chacha_init(void)
{
	enum cc_level l = cc_best_level();
	int err;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_HIGHMEM));

	err = cc_use_level(l);
	if (err) {
		pr_err("chacha: not registering %s: %s known-answer test: %d\n",
		       ESP_CHACHA_DRIVER, cc_level_names[l], err);
		return err;
	}
	err = crypto_register_aead(&cc_alg);
	if (err) {
		pr_err("chacha: crypto_register_aead: %d\n", err);
		return err;
	}
	pr_info("chacha: %s ChaCha20-Poly1305 (best level of this CPU), %u known answers passed; driver %s\n",
		cc_level_names[l], cc_kat_cases(), ESP_CHACHA_DRIVER);
	debugfs_create_file("chacha_level", 0600, eso_debugfs_dir(), NULL,
			    &cc_level_fops);
	eso_debugfs_u32_hook("chacha_selftest", &cc_selftest_iters,
			     cc_selftest_set);
	eso_debugfs_bool("chacha_kat_fault", &cc_kat_fault);
	return 0;
}

void esp_chacha_exit(void)
{
	crypto_unregister_aead(&cc_alg);
}
