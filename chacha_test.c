// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of the module's AEAD at the active level (chacha_simd.c; run by
 * writing a number of random cases to debugfs chacha_selftest).
 *
 * Self-test: RFC 8439 vectors (ChaCha20 2.4.2, AEAD 2.8.2 and A.5, both in
 * the rfc7539esp form), the RFC 7634 appendix A (ESP) and B (IKEv2)
 * examples, the dispatched block function against the portable one, then
 * a differential test against the kernel's own template
 * "rfc7539esp(chacha20-generic,poly1305-generic)": random lengths
 * 0..65535, random scatterlist splits and offsets, in place and out of
 * place, encrypt and decrypt, single-bit forgeries, the batch entry point,
 * and the bound on FPU sections (4 KiB of data each).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/sizes.h>
#include <crypto/aead.h>

#include "chacha_simd.h"
#include "chacha_impl.h"

#define CT_MAXLEN	65535U
#define CT_MAXAD	64U
#define CT_SLACK	64U	/* random buffer offsets */
#define CT_BUFSZ	(CT_MAXAD + CT_MAXLEN + 16 + CT_SLACK)
#define CT_MAXSG	8
#define CT_REF		"rfc7539esp(chacha20-generic,poly1305-generic)"

struct ct_vec {
	const char *name, *key, *iv, *ad, *pt, *ct;
};

/* Hex strings; keys carry the 4-byte salt, ad ends with the 8-byte IV. */
static const struct ct_vec ct_vecs[] = {
	{
		.name = "RFC 8439 2.8.2 (ESP form)",
		.key =
			"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f07000000",
		.iv = "4041424344454647",
		.ad = "50515253c0c1c2c3c4c5c6c74041424344454647",
		.pt =
			"4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e",
		.ct =
			"d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b61161ae10b594f09e26a7e902ecbd0600691",
	}, {
		.name = "RFC 8439 A.5 (ESP form)",
		.key =
			"1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c000000000",
		.iv = "0102030405060708",
		.ad = "f33388860000000000004e910102030405060708",
		.pt =
			"496e7465726e65742d4472616674732061726520647261667420646f63756d656e74732076616c696420666f722061206d6178696d756d206f6620736978206d6f6e74687320616e64206d617920626520757064617465642c207265706c616365642c206f72206f62736f6c65746564206279206f7468657220646f63756d656e747320617420616e792074696d652e20497420697320696e617070726f70726961746520746f2075736520496e7465726e65742d447261667473206173207265666572656e6365206d6174657269616c206f7220746f2063697465207468656d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67726573732e2fe2809d",
		.ct =
			"64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb24c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c8559797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523eaf4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a1049e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29a6ad5cb4022b02709beead9d67890cbb22392336fea1851f38",
	}, {
		/* AD = SPI 0x01020304, sequence number 5; pt = IPv4 ICMP + trailer */
		.name = "RFC 7634 A (ESP example)",
		.key =
			"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3",
		.iv = "1011121314151617",
		.ad = "01020304000000051011121314151617",
		.pt =
			"45000054a6f200004001e778c6336405c000020508005b7a3a080000553bec100007362708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363701020204",
		.ct =
			"24039428b97f417e3c13753a4f05087b67c352e6a7fab1b982d466ef407ae5c614ee8099d52844eb61aa95dfab4c02f72aa71e7c4c4f64c9befe2facc638e8f3cbec163fac469b502773f6fb94e664da9165b82829f641e076aaa8266b7fb0f7b11b369907e1ad43",
	}, {
		/* AD = IKE header + encrypted payload header (32 bytes) */
		.name = "RFC 7634 B (IKEv2 example)",
		.key =
			"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3",
		.iv = "1011121314151617",
		.ad =
			"c0c1c2c3c4c5c6c7d0d1d2d3d4d5d6d72e2025000000000900000045290000291011121314151617",
		.pt = "0000000c000040010000000a00",
		.ct = "610394701f8d017f7c129248896b71bfe25236efd7cdc67066906315b2",
	},
};

/* RFC 8439 2.4.2: key 00..1f, nonce 000000000000004a00000000, counter 1 */
static const char * const ct_chacha[] = {
	"6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d",
	"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
};

struct ct_state {
	struct crypto_aead *ref, *mine;
	struct aead_request *rreq, *mreq;
	u8 *p, *r, *a, *b;	/* plain, reference out, our src, our dst */
	u64 rng;
	unsigned int cases;
};

static u32 ct_rand(struct ct_state *t)
{
	/* xorshift64*: reproducible from the seed printed on failure */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return (t->rng * 0x2545f4914f6cdd1dULL) >> 32;
}

static void ct_fill(struct ct_state *t, u8 *buf, unsigned int len)
{
	while (len--)
		*buf++ = ct_rand(t);
}

static int ct_hex(u8 *dst, const char *hex)
{
	size_t n = strlen(hex) / 2;

	return hex2bin(dst, hex, n) ? -EINVAL : (int)n;
}

/* Build an sg list over buf[0..len) with 1..CT_MAXSG random pieces. */
static void ct_sg(struct ct_state *t, struct scatterlist *sg, u8 *buf,
		  unsigned int len, bool split)
{
	unsigned int k = split ? 1 + ct_rand(t) % CT_MAXSG : 1, i = 0;

	sg_init_table(sg, CT_MAXSG);
	while (i < k - 1 && len > 1) {
		unsigned int n = 1 + ct_rand(t) % (len - 1);

		/* favour small pieces: headers and page-ish fragments */
		if (ct_rand(t) & 1)
			n = 1 + ct_rand(t) % min(len - 1, 80U);
		sg_set_buf(&sg[i++], buf, n);
		buf += n;
		len -= n;
	}
	sg_set_buf(&sg[i], buf, len);
	sg_mark_end(&sg[i]);
}

static int ct_aead(struct aead_request *req, struct scatterlist *src,
		   struct scatterlist *dst, unsigned int assoclen,
		   unsigned int len, u8 *iv, bool enc)
{
	aead_request_set_callback(req, 0, NULL, NULL);
	aead_request_set_ad(req, assoclen);
	aead_request_set_crypt(req, src, dst, len, iv);
	return enc ? crypto_aead_encrypt(req) : crypto_aead_decrypt(req);
}

static int ct_kat(struct ct_state *t)
{
	struct scatterlist sg[CT_MAXSG], sgd[CT_MAXSG];
	u8 key[36], iv[8], *exp = t->r;
	unsigned int i, al, pl, cl;
	u32 state[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };
	int err;

	/* ChaCha20 alone at the dispatched level: RFC 8439 2.4.2 */
	for (i = 0; i < 8; i++)
		state[4 + i] = 0x03020100 + 0x04040404 * i;
	state[12] = 1;
	state[14] = 0x4a000000;
	pl = strlen(ct_chacha[1]);
	memset(t->a, 0, 2 * CHACHA_BLOCK_SIZE);
	memcpy(t->a, ct_chacha[1], pl);
	esp_chacha_xor_raw(state, t->a, t->a, 2);
	if (ct_hex(exp, ct_chacha[0]) != pl || memcmp(t->a, exp, pl)) {
		pr_err("chacha selftest: RFC 8439 2.4.2 keystream mismatch\n");
		return -EINVAL;
	}
	t->cases++;

	/* dispatched block function against the portable one */
	for (i = 0; i <= 24; i++) {
		u32 s1[16], s2[16];
		int j;

		for (j = 0; j < 16; j++)
			s1[j] = ct_rand(t);
		if (i & 1)
			s1[12] = 0xfffffffe;	/* 32-bit counter wrap */
		memcpy(s2, s1, sizeof(s1));
		ct_fill(t, t->p, i * CHACHA_BLOCK_SIZE);
		esp_chacha_xor_raw(s1, t->a, t->p, i);
		chacha_xor_generic(s2, t->b, t->p, i);
		if (memcmp(t->a, t->b, i * CHACHA_BLOCK_SIZE) ||
		    memcmp(s1, s2, sizeof(s1))) {
			pr_err("chacha selftest: %u blocks differ from generic\n",
			       i);
			return -EINVAL;
		}
		t->cases++;
	}

	for (i = 0; i < ARRAY_SIZE(ct_vecs); i++) {
		const struct ct_vec *v = &ct_vecs[i];
		bool split;

		if (ct_hex(key, v->key) != 36 || ct_hex(iv, v->iv) != 8)
			return -EINVAL;
		al = ct_hex(t->p, v->ad);
		pl = ct_hex(t->p + al, v->pt);
		cl = ct_hex(exp, v->ct);
		err = crypto_aead_setkey(t->mine, key, sizeof(key)) ?:
		      crypto_aead_setauthsize(t->mine, 16);
		if (err)
			return err;
		for (split = false; ; split = true) {
			/* encrypt, in place */
			memcpy(t->a, t->p, al + pl);
			ct_sg(t, sg, t->a, al + pl + 16, split);
			err = ct_aead(t->mreq, sg, sg, al, pl, iv, true);
			if (err || memcmp(t->a + al, exp, cl)) {
				pr_err("chacha selftest: %s: encrypt (%d)\n",
				       v->name, err);
				return err ?: -EINVAL;
			}
			/* decrypt, out of place */
			ct_sg(t, sgd, t->b, al + pl, split);
			err = ct_aead(t->mreq, sg, sgd, al, cl, iv, false);
			if (err || memcmp(t->b + al, t->p + al, pl)) {
				pr_err("chacha selftest: %s: decrypt (%d)\n",
				       v->name, err);
				return err ?: -EINVAL;
			}
			/* forged tag */
			t->a[al + pl + 15] ^= 0x80;
			err = ct_aead(t->mreq, sg, sgd, al, cl, iv, false);
			if (err != -EBADMSG) {
				pr_err("chacha selftest: %s: forgery gave %d\n",
				       v->name, err);
				return -EINVAL;
			}
			t->cases += 3;
			if (split)
				break;
		}
	}
	return 0;
}

static unsigned int ct_len(struct ct_state *t, unsigned int i)
{
	static const unsigned int edge[] = {
		0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 191, 192, 255, 256,
		257, 511, 512, 513, 1023, 1024, 1025, 1420, 1438, 4096,
		65535,
	};

	if (i < ARRAY_SIZE(edge))
		return edge[i];
	switch (ct_rand(t) % 4) {
	case 0:
		return ct_rand(t) % 129;
	case 1:
		return ct_rand(t) % 2049;
	default:
		return ct_rand(t) % (CT_MAXLEN + 1);
	}
}

/* One random case; returns 0 or a negative error (already logged). */
static int ct_diff_one(struct ct_state *t, unsigned int i)
{
	struct scatterlist sgs[CT_MAXSG], sgd[CT_MAXSG], sgr;
	unsigned int len = ct_len(t, i), al, total, os, od, bit, pos;
	bool inplace = ct_rand(t) & 1;
	u8 iv[8], *dst;
	int err, rerr;

	al = ct_rand(t) & 1 ? 16 + 4 * (ct_rand(t) & 1) :
			      8 + ct_rand(t) % (CT_MAXAD - 7);
	total = al + len + 16;
	os = ct_rand(t) % CT_SLACK;
	od = ct_rand(t) % CT_SLACK;
	ct_fill(t, iv, sizeof(iv));
	ct_fill(t, t->p, al + len);
	memcpy(t->p + al - 8, iv, 8);	/* as ESP: IV at the end of the AD */

	/* reference: linear, in place */
	memcpy(t->r, t->p, al + len);
	sg_init_one(&sgr, t->r, total);
	err = ct_aead(t->rreq, &sgr, &sgr, al, len, iv, true);
	if (err) {
		pr_err("chacha selftest: reference encrypt: %d\n", err);
		return err;
	}

	/* ours: encrypt */
	memcpy(t->a + os, t->p, al + len);
	ct_sg(t, sgs, t->a + os, total, true);
	dst = t->a + os;
	if (!inplace) {
		dst = t->b + od;
		memcpy(dst, t->p, al);
		ct_sg(t, sgd, dst, total, true);
	}
	err = ct_aead(t->mreq, sgs, inplace ? sgs : sgd, al, len, iv, true);
	if (err || memcmp(dst, t->r, total)) {
		pr_err("chacha selftest: encrypt differs: len %u assoclen %u %s (%d)\n",
		       len, al, inplace ? "in place" : "out of place", err);
		return err ?: -EINVAL;
	}

	/* ours: decrypt what the reference produced */
	inplace = ct_rand(t) & 1;
	memcpy(t->a + os, t->r, total);
	ct_sg(t, sgs, t->a + os, total, true);
	dst = t->a + os;
	if (!inplace) {
		dst = t->b + od;
		memcpy(dst, t->p, al);
		ct_sg(t, sgd, dst, al + len, true);
	}
	err = ct_aead(t->mreq, sgs, inplace ? sgs : sgd, al, len + 16, iv,
		      false);
	if (err || memcmp(dst, t->p, al + len)) {
		pr_err("chacha selftest: decrypt differs: len %u assoclen %u %s (%d)\n",
		       len, al, inplace ? "in place" : "out of place", err);
		return err ?: -EINVAL;
	}

	/* forgery: one flipped bit anywhere; both must agree */
	pos = ct_rand(t) % total;
	bit = ct_rand(t) % 8;
	memcpy(t->a + os, t->r, total);
	t->a[os + pos] ^= 1 << bit;
	ct_sg(t, sgs, t->a + os, total, true);
	ct_sg(t, sgd, t->b + od, al + len, true);
	err = ct_aead(t->mreq, sgs, sgd, al, len + 16, iv, false);
	t->r[pos] ^= 1 << bit;
	rerr = ct_aead(t->rreq, &sgr, &sgr, al, len + 16, iv, false);
	/* the IV copy in the AD is not authenticated (req->iv is used) */
	if (err != rerr ||
	    err != (pos >= al - 8 && pos < al ? 0 : -EBADMSG)) {
		pr_err("chacha selftest: flipped byte %u of %u: ours %d, reference %d\n",
		       pos, total, err, rerr);
		return -EINVAL;
	}
	t->cases += 3;
	return 0;
}

/* Batch entry point: n requests, two of them forged, in one call. */
static int ct_batch(struct ct_state *t)
{
	struct scatterlist sg[8], sgr;
	struct aead_request *req[8];
	unsigned int i, len[8], off[8], o = 0;
	u8 iv[8][8];
	int errs[8], err, ret = 0;

	for (i = 0; i < 8; i++) {
		req[i] = aead_request_alloc(t->mine, GFP_KERNEL);
		if (!req[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	/* encrypt 8 packets with the reference, decrypt them in a batch */
	for (i = 0; i < 8; i++) {
		len[i] = ct_rand(t) % 2000;
		off[i] = o;
		ct_fill(t, iv[i], 8);
		ct_fill(t, t->p + o, 16 + len[i]);
		memcpy(t->a + o, t->p + o, 16 + len[i]);
		sg_init_one(&sgr, t->a + o, 16 + len[i] + 16);
		err = ct_aead(t->rreq, &sgr, &sgr, 16, len[i], iv[i], true);
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
	err = esp_chacha_batch(t->mine, req, 8, false, errs);
	for (i = 0; i < 8; i++) {
		int want = i == 3 || i == 6 ? -EBADMSG : 0;

		if (errs[i] != want ||
		    (!want && memcmp(t->a + off[i] + 16, t->p + off[i] + 16, len[i]))) {
			pr_err("chacha selftest: batch decrypt %u: %d\n", i,
			       errs[i]);
			ret = -EINVAL;
			goto out;
		}
	}
	if (err != -EBADMSG) {
		ret = -EINVAL;
		goto out;
	}
	/* and encrypt them back in a batch: must give the same bytes */
	for (i = 0; i < 8; i++)
		aead_request_set_crypt(req[i], &sg[i], &sg[i], len[i], iv[i]);
	memcpy(t->a, t->p, o);
	err = esp_chacha_batch(t->mine, req, 8, true, NULL);
	if (err || memcmp(t->a, t->r, o)) {
		pr_err("chacha selftest: batch encrypt: %d\n", err);
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
 * FPU sections hold at most 4 KiB of data (CC_FPU_BYTES, chacha_simd.c):
 * at a SIMD level, one 65535-byte request takes 16 sections or a few more,
 * and a batch of 16 requests of 1 KiB shares them (at least 4, fewer than
 * 16).
 * The portable level takes none.
 */
#define CT_FPU_N	16

static int ct_fpu(struct ct_state *t, bool simd)
{
	struct scatterlist sg[CT_FPU_N];
	struct aead_request *req[CT_FPU_N] = { };
	unsigned long s0, one, batch;
	unsigned int i, len = 1024, sz = 16 + 1024 + 16;
	u8 iv[8] = { 9 };
	bool ok;
	int err;

	/* preemption off: sections begun on this CPU are ours alone */
	sg_init_one(&sg[0], t->a, 16 + CT_MAXLEN + 16);
	preempt_disable();
	s0 = esp_chacha_fpu_sections();
	err = ct_aead(t->mreq, sg, sg, 16, CT_MAXLEN, iv, true);
	one = esp_chacha_fpu_sections() - s0;
	preempt_enable();
	if (err)
		goto out;

	for (i = 0; i < CT_FPU_N; i++) {
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
	s0 = esp_chacha_fpu_sections();
	err = esp_chacha_batch(t->mine, req, CT_FPU_N, true, NULL);
	batch = esp_chacha_fpu_sections() - s0;
	preempt_enable();
	if (err)
		goto out;

	if (simd)
		ok = one >= DIV_ROUND_UP(CT_MAXLEN, SZ_4K) &&
		     one <= DIV_ROUND_UP(CT_MAXLEN, SZ_4K) + 4 &&
		     batch >= CT_FPU_N * len / SZ_4K && batch < CT_FPU_N;
	else
		ok = !one && !batch;
	if (!ok) {
		pr_err("chacha selftest: FPU sections: %lu for %u bytes, %lu for %u x %u bytes (batch)\n",
		       one, CT_MAXLEN, batch, CT_FPU_N, len);
		err = -EINVAL;
		goto out;
	}
	pr_info("chacha selftest: FPU sections: %lu for %u bytes, %lu for %u x %u bytes (batch)\n",
		one, CT_MAXLEN, batch, CT_FPU_N, len);
	t->cases += 2;
out:
	for (i = 0; i < CT_FPU_N; i++)
		aead_request_free(req[i]);
	return err;
}

static void ct_free(struct ct_state *t)
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

static int ct_alloc(struct ct_state *t)
{
	int err;

	t->p = kmalloc(CT_BUFSZ, GFP_KERNEL);
	t->r = kmalloc(CT_BUFSZ, GFP_KERNEL);
	t->a = kmalloc(CT_BUFSZ, GFP_KERNEL);
	t->b = kmalloc(CT_BUFSZ, GFP_KERNEL);
	if (!t->p || !t->r || !t->a || !t->b)
		return -ENOMEM;
	t->mine = crypto_alloc_aead(ESP_CHACHA_DRIVER, 0, 0);
	if (IS_ERR(t->mine)) {
		err = PTR_ERR(t->mine);
		pr_err("chacha selftest: allocating %s: %d\n",
		       ESP_CHACHA_DRIVER, err);
		return err;
	}
	if (!esp_chacha_is_ours(t->mine))
		return -EINVAL;
	t->mreq = aead_request_alloc(t->mine, GFP_KERNEL);
	if (!t->mreq)
		return -ENOMEM;
	return 0;
}

/*
 * What the stock template refuses, this AEAD refuses too: a tag shorter
 * than 16 bytes, and work before a key is set (the batch as well as
 * crypto_aead_encrypt()). Runs on the fresh, keyless tfm.
 */
static int ct_api(struct ct_state *t)
{
	struct aead_request *req = t->mreq;
	struct scatterlist sg;
	u8 iv[8] = { };
	int err, errs[1] = { };

	if (crypto_aead_setauthsize(t->mine, 8) != -EINVAL ||
	    crypto_aead_setauthsize(t->mine, 15) != -EINVAL ||
	    crypto_aead_setauthsize(t->mine, 16)) {
		pr_err("chacha selftest: setauthsize accepts a short tag or refuses 16\n");
		return -EINVAL;
	}
	sg_init_one(&sg, t->a, 16 + 64 + 16);
	err = ct_aead(req, &sg, &sg, 16, 64, iv, true);
	if (err != -ENOKEY) {
		pr_err("chacha selftest: encrypt without a key: %d\n", err);
		return -EINVAL;
	}
	err = esp_chacha_batch(t->mine, &req, 1, true, errs);
	if (err != -ENOKEY || errs[0] != -ENOKEY) {
		pr_err("chacha selftest: batch without a key: %d/%d\n", err,
		       errs[0]);
		return -EINVAL;
	}
	return 0;
}

int esp_chacha_selftest(const char *level, unsigned int iters)
{
	struct ct_state t = { };
	u8 key[36];
	unsigned int i;
	u64 seed;
	int err;

	seed = get_random_u64() | 1;
	t.rng = seed;
	err = ct_alloc(&t);
	if (err)
		goto out;
	err = ct_api(&t);
	if (err)
		goto out;
	err = ct_kat(&t);
	if (err)
		goto out;

	t.ref = crypto_alloc_aead(CT_REF, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(t.ref)) {
		err = PTR_ERR(t.ref);
		pr_err("chacha selftest: allocating %s: %d\n", CT_REF, err);
		goto out;
	}
	t.rreq = aead_request_alloc(t.ref, GFP_KERNEL);
	if (!t.rreq) {
		err = -ENOMEM;
		goto out;
	}
	ct_fill(&t, key, sizeof(key));
	err = crypto_aead_setkey(t.ref, key, sizeof(key)) ?:
	      crypto_aead_setkey(t.mine, key, sizeof(key)) ?:
	      crypto_aead_setauthsize(t.ref, 16) ?:
	      crypto_aead_setauthsize(t.mine, 16);
	if (err)
		goto out;
	for (i = 0; i < iters && !err; i++) {
		err = ct_diff_one(&t, i);
		cond_resched();
	}
	if (!err)
		err = ct_batch(&t);
	if (!err)
		err = ct_fpu(&t, strcmp(level, "generic"));
out:
	if (err)
		pr_err("chacha selftest %s: FAILED (%d) after %u cases, seed %llx\n",
		       level, err, t.cases, seed);
	else
		pr_info("chacha selftest %s: passed %u cases\n", level,
			t.cases);
	ct_free(&t);
	return err;
}
