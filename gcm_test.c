// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of gcm_simd.c, run by writing a number of random cases to
 * /sys/kernel/debug/esp_swoffload/gcm_selftest (the write fails if a case
 * does; dmesg says which).
 *
 * At every level this CPU supports: the GCM specification's and
 * draft-mcgrew-gcm-test-01's known answers (gcm_kat.h) through the level's
 * core and through the AEAD; a differential test against the kernel's own
 * generic rfc4106(gcm_base(ctr(aes-generic),ghash-generic)): random
 * AES-128/192/256 keys and tag lengths, lengths 0..9000, random
 * associated data (with and without ESN), random scatterlist splits and
 * offsets, in place and out of place, encrypt and decrypt, single-bit
 * forgeries (-EBADMSG); the batch entry point; the bound on FPU sections
 * (4 KiB of data each). Then the fallback: every request forwarded to the
 * stock driver, synchronously and, from inside an FPU section (where SIMD
 * is not usable), asynchronously where the stock driver defers to cryptd.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <crypto/aead.h>
#include <asm/fpu/api.h>

#include "esp_swoffload.h"
#include "gcm_simd.h"
#include "gcm_impl.h"
#include "gcm_kat.h"

#define GT_MAXLEN	9000U
#define GT_FPULEN	65535U
#define GT_MAXAD	20U
#define GT_SLACK	64U	/* random buffer offsets */
#define GT_BUFSZ	(GT_MAXAD + GT_FPULEN + 16 + GT_SLACK)
#define GT_MAXSG	8
#define GT_REF		"rfc4106(gcm_base(ctr(aes-generic),ghash-generic))"

struct gt_state {
	struct crypto_aead *ref, *mine;
	struct aead_request *rreq, *mreq;
	u8 *p, *r, *a, *b;	/* plain, reference out, our src, our dst */
	unsigned int authsize;
	u64 rng;
	unsigned int cases, async;
};

static u32 gt_rand(struct gt_state *t)
{
	/* xorshift64*: reproducible from the seed printed on failure */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return (t->rng * 0x2545f4914f6cdd1dULL) >> 32;
}

static void gt_fill(struct gt_state *t, u8 *buf, unsigned int len)
{
	while (len--)
		*buf++ = gt_rand(t);
}

static int gt_hex(u8 *dst, const char *hex)
{
	size_t n = strlen(hex) / 2;

	return hex2bin(dst, hex, n) ? -EINVAL : (int)n;
}

/* An sg list over buf[0..len) in 1..GT_MAXSG random pieces. */
static void gt_sg(struct gt_state *t, struct scatterlist *sg, u8 *buf,
		  unsigned int len, bool split)
{
	unsigned int k = split ? 1 + gt_rand(t) % GT_MAXSG : 1, i = 0;

	sg_init_table(sg, GT_MAXSG);
	while (i < k - 1 && len > 1) {
		unsigned int n = 1 + gt_rand(t) % (len - 1);

		/* favour small pieces: headers and page-ish fragments */
		if (gt_rand(t) & 1)
			n = 1 + gt_rand(t) % min(len - 1, 80U);
		sg_set_buf(&sg[i++], buf, n);
		buf += n;
		len -= n;
	}
	sg_set_buf(&sg[i], buf, len);
	sg_mark_end(&sg[i]);
}

static int gt_aead(struct aead_request *req, struct scatterlist *src,
		   struct scatterlist *dst, unsigned int assoclen,
		   unsigned int len, u8 *iv, bool enc)
{
	aead_request_set_callback(req, 0, NULL, NULL);
	aead_request_set_ad(req, assoclen);
	aead_request_set_crypt(req, src, dst, len, iv);
	return enc ? crypto_aead_encrypt(req) : crypto_aead_decrypt(req);
}

/* The GCM specification's cases straight through a level's core. */
static int gt_kat_core(struct gt_state *t, const struct gcm_impl *l)
{
	u8 key[32], nonce[GCM_NONCE], ad[32], tag[GCM_TAG], *exp = t->r;
	struct gcm_state st;
	struct gcm_key *k;
	unsigned int i, kl, al, pl;
	int err = 0;

	k = kmalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(gcm_kat_spec) && !err; i++) {
		const struct gcm_kat *v = &gcm_kat_spec[i];
		bool ok;

		kl = gt_hex(key, v->key);
		if (kl == 24)	/* AES-192: the fallback's */
			continue;
		gt_hex(nonce, v->iv);
		al = gt_hex(ad, v->ad);
		pl = gt_hex(t->p, v->pt);
		gt_hex(exp, v->ct);
		kernel_fpu_begin();
		ok = l->setkey(k, key, kl);
		l->start(k, &st, nonce, ad, al);
		l->enc(k, &st, t->a, t->p, pl);
		l->finish(k, &st, tag);
		kernel_fpu_end();
		if (!ok || memcmp(t->a, exp, pl) || memcmp(tag, exp + pl, 16)) {
			pr_err("gcm selftest: GCM spec case %u (%u-bit key) differs\n",
			       i, kl * 8);
			err = -EINVAL;
		}
		t->cases++;
	}
	kfree_sensitive(k);
	return err;
}

/* draft-mcgrew-gcm-test-01's ESP examples through the AEAD. */
static int gt_kat_aead(struct gt_state *t)
{
	struct scatterlist sg[GT_MAXSG], sgd[GT_MAXSG];
	u8 key[36], iv[8], *exp = t->r;
	unsigned int i, al, pl, cl;
	int err;

	for (i = 0; i < ARRAY_SIZE(gcm_kat_rfc4106); i++) {
		const struct gcm_kat *v = &gcm_kat_rfc4106[i];
		bool split;
		int kl = gt_hex(key, v->key);

		if (kl < 0 || gt_hex(iv, v->iv) != 8)
			return -EINVAL;
		al = gt_hex(t->p, v->ad);
		pl = gt_hex(t->p + al, v->pt);
		cl = gt_hex(exp, v->ct);
		err = crypto_aead_setkey(t->mine, key, kl) ?:
		      crypto_aead_setauthsize(t->mine, 16);
		if (err)
			return err;
		for (split = false; ; split = true) {
			memcpy(t->a, t->p, al + pl);
			gt_sg(t, sg, t->a, al + pl + 16, split);
			err = gt_aead(t->mreq, sg, sg, al, pl, iv, true);
			if (err || memcmp(t->a + al, exp, cl)) {
				pr_err("gcm selftest: draft-mcgrew case %u: encrypt (%d)\n",
				       i, err);
				return err ?: -EINVAL;
			}
			gt_sg(t, sgd, t->b, al + pl, split);
			err = gt_aead(t->mreq, sg, sgd, al, cl, iv, false);
			if (err || memcmp(t->b + al, t->p + al, pl)) {
				pr_err("gcm selftest: draft-mcgrew case %u: decrypt (%d)\n",
				       i, err);
				return err ?: -EINVAL;
			}
			t->a[al + pl + 15] ^= 0x80;
			err = gt_aead(t->mreq, sg, sgd, al, cl, iv, false);
			if (err != -EBADMSG) {
				pr_err("gcm selftest: draft-mcgrew case %u: forgery gave %d\n",
				       i, err);
				return -EINVAL;
			}
			t->cases += 3;
			if (split)
				break;
		}
	}
	return 0;
}

/*
 * A fresh random key and tag length for both: AES-128 or -256, or with
 * @aes192 also AES-192 (which the fallback does).
 */
static int gt_rekey(struct gt_state *t, bool aes192)
{
	static const unsigned int keylens[] = { 16, 32, 16, 32, 24 };
	static const unsigned int tags[] = { 16, 16, 12, 8 };
	unsigned int kl = keylens[gt_rand(t) % (ARRAY_SIZE(keylens) - !aes192)] + 4;
	u8 key[36];

	t->authsize = tags[gt_rand(t) % ARRAY_SIZE(tags)];
	gt_fill(t, key, kl);
	return crypto_aead_setkey(t->ref, key, kl) ?:
	       crypto_aead_setkey(t->mine, key, kl) ?:
	       crypto_aead_setauthsize(t->ref, t->authsize) ?:
	       crypto_aead_setauthsize(t->mine, t->authsize);
}

static unsigned int gt_len(struct gt_state *t, unsigned int i)
{
	static const unsigned int edge[] = {
		0, 1, 15, 16, 17, 127, 128, 129, 143, 144, 255, 256, 1420,
		1438, 4095, 4096, 4097, 8192, GT_MAXLEN,
	};

	if (i < ARRAY_SIZE(edge))
		return edge[i];
	return gt_rand(t) % 4 ? gt_rand(t) % (GT_MAXLEN + 1) :
				gt_rand(t) % 300;
}

/* One random case against the generic template; 0 or an error (logged). */
static int gt_diff_one(struct gt_state *t, unsigned int i)
{
	struct scatterlist sgs[GT_MAXSG], sgd[GT_MAXSG], sgr;
	unsigned int len = gt_len(t, i), al, total, os, od, bit, pos;
	unsigned int as = t->authsize;
	bool inplace = gt_rand(t) & 1;
	u8 iv[8], *dst;
	int err, rerr;

	al = gt_rand(t) & 1 ? 16 : 20;	/* spi, [seq hi,] seq, IV */
	total = al + len + as;
	os = gt_rand(t) % GT_SLACK;
	od = gt_rand(t) % GT_SLACK;
	gt_fill(t, iv, sizeof(iv));
	gt_fill(t, t->p, al + len);
	memcpy(t->p + al - 8, iv, 8);	/* as ESP: IV at the end of the AD */

	memcpy(t->r, t->p, al + len);
	sg_init_one(&sgr, t->r, total);
	err = gt_aead(t->rreq, &sgr, &sgr, al, len, iv, true);
	if (err) {
		pr_err("gcm selftest: reference encrypt: %d\n", err);
		return err;
	}

	memcpy(t->a + os, t->p, al + len);
	gt_sg(t, sgs, t->a + os, total, true);
	dst = t->a + os;
	if (!inplace) {
		dst = t->b + od;
		memcpy(dst, t->p, al);
		gt_sg(t, sgd, dst, total, true);
	}
	err = gt_aead(t->mreq, sgs, inplace ? sgs : sgd, al, len, iv, true);
	if (err || memcmp(dst, t->r, total)) {
		pr_err("gcm selftest: encrypt differs: len %u assoclen %u tag %u %s (%d)\n",
		       len, al, as, inplace ? "in place" : "out of place", err);
		return err ?: -EINVAL;
	}

	inplace = gt_rand(t) & 1;
	memcpy(t->a + os, t->r, total);
	gt_sg(t, sgs, t->a + os, total, true);
	dst = t->a + os;
	if (!inplace) {
		dst = t->b + od;
		memcpy(dst, t->p, al);
		gt_sg(t, sgd, dst, al + len, true);
	}
	err = gt_aead(t->mreq, sgs, inplace ? sgs : sgd, al, len + as, iv,
		      false);
	if (err || memcmp(dst, t->p, al + len)) {
		pr_err("gcm selftest: decrypt differs: len %u assoclen %u tag %u %s (%d)\n",
		       len, al, as, inplace ? "in place" : "out of place", err);
		return err ?: -EINVAL;
	}

	/* forgery: one flipped bit anywhere; both must agree */
	pos = gt_rand(t) % total;
	bit = gt_rand(t) % 8;
	memcpy(t->a + os, t->r, total);
	t->a[os + pos] ^= 1 << bit;
	gt_sg(t, sgs, t->a + os, total, true);
	gt_sg(t, sgd, t->b + od, al + len, true);
	err = gt_aead(t->mreq, sgs, sgd, al, len + as, iv, false);
	t->r[pos] ^= 1 << bit;
	rerr = gt_aead(t->rreq, &sgr, &sgr, al, len + as, iv, false);
	/* the IV copy in the AD is not authenticated (req->iv is used) */
	if (err != rerr || err != (pos >= al - 8 && pos < al ? 0 : -EBADMSG)) {
		pr_err("gcm selftest: flipped byte %u of %u: ours %d, reference %d\n",
		       pos, total, err, rerr);
		return -EINVAL;
	}
	t->cases += 3;
	return 0;
}

static int gt_diff(struct gt_state *t, unsigned int iters)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < iters && !err; i++) {
		if (i % 32 == 0)
			err = gt_rekey(t, true);
		if (!err)
			err = gt_diff_one(t, i);
		cond_resched();
	}
	return err;
}

/* Batch entry point: 8 requests, two of them forged, in one call. */
static int gt_batch(struct gt_state *t)
{
	struct scatterlist sg[8], sgr;
	struct aead_request *req[8] = { };
	unsigned int i, len[8], off[8], o = 0;
	int errs[8], err, ret = 0;
	u8 iv[8][8];

	ret = gt_rekey(t, false) ?: crypto_aead_setauthsize(t->ref, 16) ?:
	      crypto_aead_setauthsize(t->mine, 16);
	for (i = 0; i < 8 && !ret; i++) {
		req[i] = aead_request_alloc(t->mine, GFP_KERNEL);
		if (!req[i])
			ret = -ENOMEM;
	}
	if (ret)
		goto out;
	if (!esp_gcm_batch_ready(t->mine)) {
		pr_err("gcm selftest: batch not ready in process context\n");
		ret = -EINVAL;
		goto out;
	}
	/* encrypt 8 packets with the reference, decrypt them in a batch */
	for (i = 0; i < 8; i++) {
		len[i] = gt_rand(t) % 2000;
		off[i] = o;
		gt_fill(t, iv[i], 8);
		gt_fill(t, t->p + o, 16 + len[i]);
		memcpy(t->a + o, t->p + o, 16 + len[i]);
		sg_init_one(&sgr, t->a + o, 16 + len[i] + 16);
		err = gt_aead(t->rreq, &sgr, &sgr, 16, len[i], iv[i], true);
		if (err) {
			ret = err;
			goto out;
		}
		memcpy(t->r + o, t->a + o, 16 + len[i] + 16);
		sg_init_one(&sg[i], t->a + o, 16 + len[i] + 16);
		aead_request_set_callback(req[i], 0, NULL, NULL);
		aead_request_set_ad(req[i], 16);
		aead_request_set_crypt(req[i], &sg[i], &sg[i], len[i] + 16,
				       iv[i]);
		o += 16 + len[i] + 16;
	}
	t->a[off[3] + 16 + len[3]] ^= 1;	/* tag of packet 3 */
	t->a[off[6]] ^= 4;			/* AD of packet 6 */
	err = esp_gcm_batch(t->mine, req, 8, false, errs);
	for (i = 0; i < 8; i++) {
		int want = i == 3 || i == 6 ? -EBADMSG : 0;

		if (errs[i] != want ||
		    (!want && memcmp(t->a + off[i] + 16, t->p + off[i] + 16,
				     len[i]))) {
			pr_err("gcm selftest: batch decrypt %u: %d\n", i,
			       errs[i]);
			ret = -EINVAL;
			goto out;
		}
	}
	if (err != -EBADMSG) {
		ret = -EINVAL;
		goto out;
	}
	/* and encrypt them back in a batch: the same bytes */
	for (i = 0; i < 8; i++)
		aead_request_set_crypt(req[i], &sg[i], &sg[i], len[i], iv[i]);
	memcpy(t->a, t->p, o);
	err = esp_gcm_batch(t->mine, req, 8, true, NULL);
	if (err || memcmp(t->a, t->r, o)) {
		pr_err("gcm selftest: batch encrypt: %d\n", err);
		ret = -EINVAL;
		goto out;
	}
	t->cases += 16;
out:
	for (i = 0; i < 8; i++)
		aead_request_free(req[i]);
	return ret;
}

/*
 * FPU sections hold at most 4 KiB of data: one 65535-byte request takes
 * 16 sections or a few more, and a batch of 16 requests of 1 KiB shares
 * them (at least 4, fewer than 16).
 */
#define GT_FPU_N	16

static int gt_fpu(struct gt_state *t)
{
	struct scatterlist sg[GT_FPU_N];
	struct aead_request *req[GT_FPU_N] = { };
	unsigned long s0, one, batch;
	unsigned int i, len = 1024, sz = 16 + 1024 + 16;
	u8 iv[8] = { 9 };
	int err;

	err = gt_rekey(t, false) ?: crypto_aead_setauthsize(t->mine, 16);
	if (err)
		return err;
	/* preemption off: sections begun on this CPU are ours alone */
	sg_init_one(&sg[0], t->a, 16 + GT_FPULEN + 16);
	preempt_disable();
	s0 = esp_gcm_fpu_sections();
	err = gt_aead(t->mreq, sg, sg, 16, GT_FPULEN, iv, true);
	one = esp_gcm_fpu_sections() - s0;
	preempt_enable();
	if (err)
		goto out;

	for (i = 0; i < GT_FPU_N; i++) {
		req[i] = aead_request_alloc(t->mine, GFP_KERNEL);
		if (!req[i]) {
			err = -ENOMEM;
			goto out;
		}
		sg_init_one(&sg[i], t->a + i * sz, sz);
		aead_request_set_callback(req[i], 0, NULL, NULL);
		aead_request_set_ad(req[i], 16);
		aead_request_set_crypt(req[i], &sg[i], &sg[i], len, iv);
	}
	preempt_disable();
	s0 = esp_gcm_fpu_sections();
	err = esp_gcm_batch(t->mine, req, GT_FPU_N, true, NULL);
	batch = esp_gcm_fpu_sections() - s0;
	preempt_enable();
	if (err)
		goto out;

	if (one < DIV_ROUND_UP(GT_FPULEN, SZ_4K) ||
	    one > DIV_ROUND_UP(GT_FPULEN, SZ_4K) + 4 ||
	    batch < GT_FPU_N * len / SZ_4K || batch >= GT_FPU_N) {
		pr_err("gcm selftest: FPU sections: %lu for %u bytes, %lu for %u x %u bytes (batch)\n",
		       one, GT_FPULEN, batch, GT_FPU_N, len);
		err = -EINVAL;
		goto out;
	}
	pr_info("gcm selftest: FPU sections: %lu for %u bytes, %lu for %u x %u bytes (batch)\n",
		one, GT_FPULEN, batch, GT_FPU_N, len);
	t->cases += 2;
out:
	for (i = 0; i < GT_FPU_N; i++)
		aead_request_free(req[i]);
	return err;
}

/*
 * From inside an FPU section crypto_simd_usable() is false: the request
 * goes to the fallback, and the stock driver defers it to cryptd, whose
 * completion is the caller's callback. Returns 0 or an error (logged).
 */
static int gt_async_one(struct gt_state *t, unsigned int len)
{
	DECLARE_CRYPTO_WAIT(wait);
	struct scatterlist sg, sgr;
	u8 iv[8];
	int err;

	gt_fill(t, iv, 8);
	gt_fill(t, t->p, 16 + len);
	memcpy(t->r, t->p, 16 + len);
	memcpy(t->a, t->p, 16 + len);
	sg_init_one(&sgr, t->r, 16 + len + t->authsize);
	sg_init_one(&sg, t->a, 16 + len + t->authsize);
	err = gt_aead(t->rreq, &sgr, &sgr, 16, len, iv, true);
	if (err)
		return err;

	/* may backlog: -EBUSY then means queued, as -EINPROGRESS does */
	aead_request_set_callback(t->mreq, CRYPTO_TFM_REQ_MAY_BACKLOG,
				  crypto_req_done, &wait);
	aead_request_set_ad(t->mreq, 16);
	aead_request_set_crypt(t->mreq, &sg, &sg, len, iv);
	kernel_fpu_begin();
	err = crypto_aead_encrypt(t->mreq);
	kernel_fpu_end();
	if (err == -EINPROGRESS || err == -EBUSY)
		t->async++;
	err = crypto_wait_req(err, &wait);
	if (err || memcmp(t->a, t->r, 16 + len + t->authsize)) {
		pr_err("gcm selftest: fallback from an FPU section: len %u (%d)\n",
		       len, err);
		return err ?: -EINVAL;
	}
	t->cases++;
	return 0;
}

static int gt_fallback(struct gt_state *t, unsigned int iters)
{
	unsigned int i;
	int err;

	esp_gcm_force_fallback(true);
	err = gt_diff(t, iters);
	esp_gcm_force_fallback(false);
	for (i = 0; i < 16 && !err; i++) {
		err = gt_rekey(t, true);
		if (!err)
			err = gt_async_one(t, gt_len(t, i + 4));
	}
	return err;
}

/*
 * What the stock driver refuses, this AEAD refuses too: tags other than
 * 8, 12 or 16 bytes, keys other than 16, 24 or 32 bytes (+ 4 of salt),
 * associated data other than 16 or 20 bytes (IV included), and work
 * before a key is set (the batch as well as crypto_aead_encrypt()).
 */
static int gt_api(struct gt_state *t)
{
	struct aead_request *req = t->mreq;
	u8 iv[8] = { }, key[36] = { };
	struct scatterlist sg;
	int err, errs[1] = { };

	if (crypto_aead_setauthsize(t->mine, 4) != -EINVAL ||
	    crypto_aead_setauthsize(t->mine, 13) != -EINVAL ||
	    crypto_aead_setauthsize(t->mine, 8) ||
	    crypto_aead_setauthsize(t->mine, 12) ||
	    crypto_aead_setauthsize(t->mine, 16)) {
		pr_err("gcm selftest: setauthsize takes a bad length or refuses a good one\n");
		return -EINVAL;
	}
	sg_init_one(&sg, t->a, 16 + 64 + 16);
	err = gt_aead(req, &sg, &sg, 16, 64, iv, true);
	if (err != -ENOKEY) {
		pr_err("gcm selftest: encrypt without a key: %d\n", err);
		return -EINVAL;
	}
	err = esp_gcm_batch(t->mine, &req, 1, true, errs);
	if (err != -ENOKEY || errs[0] != -ENOKEY) {
		pr_err("gcm selftest: batch without a key: %d/%d\n", err,
		       errs[0]);
		return -EINVAL;
	}
	if (crypto_aead_setkey(t->mine, key, 20 + 1) != -EINVAL ||
	    crypto_aead_setkey(t->mine, key, 16) != -EINVAL ||
	    crypto_aead_setkey(t->mine, key, 36)) {
		pr_err("gcm selftest: setkey takes a bad length or refuses a good one\n");
		return -EINVAL;
	}
	sg_init_one(&sg, t->a, 24 + 64 + 16);
	err = gt_aead(req, &sg, &sg, 24, 64, iv, true);
	if (err != -EINVAL) {
		pr_err("gcm selftest: assoclen 24: %d\n", err);
		return -EINVAL;
	}
	t->cases += 4;
	return 0;
}

static void gt_free(struct gt_state *t)
{
	aead_request_free(t->rreq);
	aead_request_free(t->mreq);
	if (!IS_ERR_OR_NULL(t->ref))
		crypto_free_aead(t->ref);
	if (!IS_ERR_OR_NULL(t->mine))
		crypto_free_aead(t->mine);
	kfree(t->p);
	kfree(t->r);
	kfree(t->a);
	kfree(t->b);
}

static int gt_alloc(struct gt_state *t)
{
	t->p = kmalloc(GT_BUFSZ, GFP_KERNEL);
	t->r = kmalloc(GT_BUFSZ, GFP_KERNEL);
	t->a = kmalloc(GT_BUFSZ, GFP_KERNEL);
	t->b = kmalloc(GT_BUFSZ, GFP_KERNEL);
	if (!t->p || !t->r || !t->a || !t->b)
		return -ENOMEM;
	t->mine = crypto_alloc_aead(ESP_GCM_DRIVER, 0, 0);
	if (IS_ERR(t->mine)) {
		pr_err("gcm selftest: allocating %s: %ld\n", ESP_GCM_DRIVER,
		       PTR_ERR(t->mine));
		return PTR_ERR(t->mine);
	}
	if (!esp_gcm_is_ours(t->mine))
		return -EINVAL;
	t->mreq = aead_request_alloc(t->mine, GFP_KERNEL);
	if (!t->mreq)
		return -ENOMEM;
	t->ref = crypto_alloc_aead(GT_REF, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(t->ref)) {
		pr_err("gcm selftest: allocating %s: %ld\n", GT_REF,
		       PTR_ERR(t->ref));
		return PTR_ERR(t->ref);
	}
	t->rreq = aead_request_alloc(t->ref, GFP_KERNEL);
	return t->rreq ? 0 : -ENOMEM;
}

/* Every test at level @lvl (made the active one by the caller). */
static int gt_level(struct gt_state *t, unsigned int lvl, unsigned int iters)
{
	return gt_kat_core(t, esp_gcm_level_impl(lvl)) ?: gt_kat_aead(t) ?:
	       gt_diff(t, iters) ?: gt_batch(t) ?: gt_fpu(t);
}

int esp_gcm_selftest(unsigned int iters)
{
	struct gt_state t = { };
	const char *what = "setup";
	unsigned int i, c0;
	int old, err;
	u64 seed;

	seed = get_random_u64() | 1;
	t.rng = seed;
	old = esp_gcm_level_cur();
	if (old < 0)
		return -ENODEV;		/* not registered: no AES-NI */
	err = gt_alloc(&t);
	if (!err) {
		what = "api";
		err = gt_api(&t);
	}
	for (i = 0; !err && esp_gcm_level_name(i); i++) {
		const char *why = esp_gcm_level_unusable(i);

		if (why) {
			pr_info("gcm selftest %s: skipped: %s\n",
				esp_gcm_level_name(i), why);
			continue;
		}
		what = esp_gcm_level_name(i);
		c0 = t.cases;
		esp_gcm_level_set(i);
		err = gt_level(&t, i, iters);
		if (!err)
			pr_info("gcm selftest %s: passed %u cases\n", what,
				t.cases - c0);
	}
	esp_gcm_level_set(old);
	if (!err) {
		what = "fallback";
		c0 = t.cases;
		err = gt_fallback(&t, iters / 4 + 1);
		if (!err)
			pr_info("gcm selftest fallback: passed %u cases, %u of 16 from an FPU section completed asynchronously\n",
				t.cases - c0, t.async);
	}
	if (err)
		pr_err("gcm selftest %s: FAILED (%d) after %u cases, seed %llx\n",
		       what, err, t.cases, seed);
	gt_free(&t);
	return err;
}

/* ------------------------------------------------------------------ */
/* debugfs: echo N > gcm_selftest runs it with N random cases per level */

static ssize_t gt_write(struct file *file, const char __user *buf,
			size_t len, loff_t *ppos)
{
	unsigned int iters;
	int err;

	err = kstrtouint_from_user(buf, len, 0, &iters);
	if (!err)
		err = esp_gcm_run_selftest(iters);
	return err ?: len;
}

static const struct file_operations gt_fops = {
	.open	= simple_open,
	.write	= gt_write,
	.llseek	= default_llseek,
};

void esp_gcm_test_init(void)
{
	debugfs_create_file("gcm_selftest", 0200, eso_debugfs_dir(), NULL,
			    &gt_fops);
}
