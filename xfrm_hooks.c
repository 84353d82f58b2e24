// SPDX-License-Identifier: GPL-2.0
/*
 * The xfrm_type_offload callbacks: encap (esp_gso.c), xmit and input_tail;
 * and the batches of the module's own AEADs (ChaCha20-Poly1305, AES-GCM):
 * the encryption of a whole GSO packet (eso_encrypt_segments()) and the
 * decryption of an RX run (eso_decrypt_run()).
 *
 * xmit runs once per segment from validate_xmit_xfrm(), after segmentation:
 * it adds padding, next header and TFC padding, fills in the
 * sequence number that esp_gso.c gave the segment and encrypts through
 * the SA's AEAD (x->data, set up by esp4/esp6) with esp4/esp6's exported
 * esp_output_head()/esp_output_tail().
 *
 * Async crypto: if the AEAD returns -EINPROGRESS, esp4/esp6's completion
 * (esp_output_done) sees XFRM_DEV_RESUME, which validate_xmit_xfrm() set
 * before calling us, and hands the segment to xfrm_dev_resume(); that
 * transmits it or queues it on the per-CPU xfrm_backlog, and
 * validate_xmit_xfrm() holds later packets back while that backlog is not
 * empty, so order is kept.
 */

#include <crypto/aead.h>
#include <crypto/internal/geniv.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <net/esp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sch_generic.h>
#include <net/xfrm.h>

#include "chacha_simd.h"
#include "esp_swoffload.h"
#include "gcm_simd.h"

/*
 * esp6's exports, looked up at load rather than linked: on a host booted
 * with ipv6.disable=1, esp6 cannot load (xfrm_register_type() finds no
 * AF_INET6 afinfo), and a link-time dependency on it would keep this
 * module off such a host altogether. Only the IPv6 half uses them, and it
 * is registered only once they are here (esp_offload.c).
 */
static struct {
	int (*output_head)(struct xfrm_state *x, struct sk_buff *skb,
			   struct esp_info *esp);
	int (*output_tail)(struct xfrm_state *x, struct sk_buff *skb,
			   struct esp_info *esp);
	int (*input_done2)(struct sk_buff *skb, int err);
} eso_esp6;

void eso_esp6_put(void)
{
	if (eso_esp6.output_head)
		symbol_put(esp6_output_head);
	if (eso_esp6.output_tail)
		symbol_put(esp6_output_tail);
	if (eso_esp6.input_done2)
		symbol_put(esp6_input_done2);
	memset(&eso_esp6, 0, sizeof(eso_esp6));
}

/* Load esp6 if it is not, and take its exports; false if it cannot load. */
bool eso_esp6_get(void)
{
	eso_esp6.output_head = symbol_request(esp6_output_head);
	eso_esp6.output_tail = symbol_get(esp6_output_tail);
	eso_esp6.input_done2 = symbol_get(esp6_input_done2);
	if (eso_esp6.output_head && eso_esp6.output_tail &&
	    eso_esp6.input_done2)
		return true;
	eso_esp6_put();
	return false;
}

/* esp4's or esp6's esp_output_head() and esp_output_tail(), for tx_nic.c */
int eso_output_head(struct xfrm_state *x, struct sk_buff *skb,
		    struct esp_info *esp, bool ipv6)
{
	return ipv6 ? eso_esp6.output_head(x, skb, esp) :
		      esp_output_head(x, skb, esp);
}

int eso_output_tail(struct xfrm_state *x, struct sk_buff *skb,
		    struct esp_info *esp, bool ipv6)
{
	return ipv6 ? eso_esp6.output_tail(x, skb, esp) :
		      esp_output_tail(x, skb, esp);
}

/* TFC padding as esp4/esp6 do it, which stock esp4_offload skips. */
static unsigned int eso_tfc_len(const struct xfrm_state *x,
				const struct sk_buff *skb)
{
	const struct dst_entry *dst = skb_dst(skb);
	unsigned int mtu, padto;

	if (!x->tfcpad)
		return 0;

	mtu = dst ? dst_mtu(dst) : READ_ONCE(skb->dev->mtu);
	padto = min_t(u32, x->tfcpad,
		      xfrm_state_mtu((struct xfrm_state *)x, mtu));
	return skb->len < padto ? padto - skb->len : 0;
}

/*
 * The high 32 bits of this segment's ESN. xfrm reserved the segments'
 * numbers from xo->seq.{hi,low}; a segment whose low half is below the
 * first one's wrapped past 2^32. esp_output_tail() reads the high half
 * from the shared xfrm_offload, so such a segment (one in 2^32) gets a
 * private copy of the sec_path first.
 */
static int eso_seq_hi(struct sk_buff *skb, u32 low, u32 *hi)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	u32 base_hi = xo->seq.hi;

	if (likely(low >= xo->seq.low)) {
		*hi = base_hi;
		return 0;
	}

	if (!skb_ext_add(skb, SKB_EXT_SEC_PATH))
		return -ENOMEM;
	xo = xfrm_offload(skb);
	xo->seq.hi = base_hi + 1;
	xo->seq.low = low;
	*hi = xo->seq.hi;
	return 0;
}

static void eso_fix_outer_len(struct sk_buff *skb, bool ipv6)
{
	if (ipv6) {
		unsigned int len = skb->len - sizeof(struct ipv6hdr);

		ipv6_hdr(skb)->payload_len = htons(len > IPV6_MAXPLEN ? 0 : len);
	} else {
		ip_hdr(skb)->tot_len = htons(skb->len);
		ip_send_check(ip_hdr(skb));
	}
}

/*
 * An AEAD that completes later takes the segment away from
 * validate_xmit_xfrm(), which returns NULL for it. On a device with a
 * qdisc that is fine: the packet was already queued and accounted as
 * sent. Without one, __dev_queue_xmit() goes straight from
 * validate_xmit_skb() to the driver, and a NULL there leaves its return
 * code at -ENOMEM (net/core/dev.c, "if (!skb) goto out;"): TCP believes
 * the segment was never sent, although esp_output_done() transmits it,
 * and the connection stalls on ACKs for data it thinks it never sent. The
 * stock esp4_offload behaves the same. Nothing here can change the
 * return code, so say what helps: a qdisc on the egress device.
 */
static bool eso_dev_has_queue(const struct net_device *dev,
			      const struct sk_buff *skb)
{
	struct netdev_queue *txq = skb_get_tx_queue(dev, skb);

	/* noqueue is a qdisc without an enqueue operation */
	return rcu_dereference_bh(txq->qdisc)->enqueue;
}

static void eso_async_on_noqueue(struct net *net, const struct net_device *dev)
{
	eso_count(net, ESO_TX_ASYNC_NOQUEUE);
	pr_warn_once(ESO_NAME ": %s has no qdisc, so packets encrypted by an asynchronous AEAD are reported to the sender as failed; add a qdisc (tc qdisc replace dev %s root pfifo)\n",
		     dev->name, dev->name);
}

/*
 * esp-null. An SA with ecb(cipher_null) and no authentication has nothing
 * to encrypt and no ICV, yet esp4/esp6 walk every packet through
 * authenc(digest_null,ecb(cipher_null)): a request and a scatterlist per
 * packet and, for a segment that keeps TCP's pages, a copy of its payload
 * into pages of the SA's own (out of place). With null_nocrypt the module
 * leaves that walk out. On TX each segment only gets its trailer, at
 * segmentation, and keeps pointing at TCP's pages: the checksum pass is
 * the only pass over the payload. On RX the GRO callback marks the packet
 * CRYPTO_DONE, as a NIC marks what it decrypted, and xfrm_input() checks
 * the replay window and strips the trailer (input_tail).
 */
static bool null_nocrypt = true;	/* debugfs: N walks the crypto API */

/* Whether @x is esp-null that the module carries without a crypto call. */
bool eso_null_nocrypt(const struct xfrm_state *x)
{
	struct crypto_aead *aead = x->data;

	/*
	 * Received packets go to xfrm_input() as CRYPTO_DONE, which calls
	 * our input_tail: an SA from before the module loaded has none.
	 */
	if (!READ_ONCE(null_nocrypt) || !eso_state_is_ours(x) || x->aead ||
	    x->encap || !x->ealg || x->props.ealgo != SADB_EALG_NULL)
		return false;
	if (x->aalg && x->props.aalgo != SADB_X_AALG_NULL)
		return false;
	return !crypto_aead_ivsize(aead) && !crypto_aead_authsize(aead);
}

/*
 * Everything before the encryption of one segment (skb->data at the
 * payload, the ESP header in front of it): padding, next header, TFC
 * padding and the room for the ICV, behind the payload in its recycled
 * page if @own_pages says it may have one (tx_pages.c), as a ready-made
 * trailer for esp-null (tx_pages.c), or else by esp4/esp6's
 * esp_output_head().
 * Returns the segment's sequence number's low half, or a negative error.
 */
static s64 eso_output_prepare(struct xfrm_state *x, struct sk_buff *skb,
			      bool ipv6, bool own_pages, struct esp_info *esp)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	struct crypto_aead *aead = x->data;
	unsigned int blksize;

	esp->inplace = true;
	esp->proto = xo->proto;
	esp->tfclen = eso_tfc_len(x, skb);
	blksize = ALIGN(crypto_aead_blocksize(aead), 4);
	esp->clen = ALIGN(skb->len + 2 + esp->tfclen, blksize);
	esp->plen = esp->clen - skb->len - esp->tfclen;
	esp->tailen = esp->tfclen + esp->plen + crypto_aead_authsize(aead);
	esp->esph = ip_esp_hdr(skb);

	if (x->encap)
		esp->nfrags = 0;
	else if (own_pages)
		esp->nfrags = eso_tx_pages_trailer(skb, esp);
	else if (eso_null_nocrypt(x) && skb_is_nonlinear(skb))
		esp->nfrags = eso_tx_null_trailer(skb, esp);
	else
		esp->nfrags = 0;
	if (!esp->nfrags)
		esp->nfrags = ipv6 ? eso_esp6.output_head(x, skb, esp) :
				     esp_output_head(x, skb, esp);
	if (esp->nfrags < 0)
		return esp->nfrags;
	return ntohl(esp->esph->seq_no);
}

/*
 * A segment that is now a finished ESP packet: without a sec_path,
 * validate_xmit_xfrm() lets it through as it is. A trailer that went into
 * a page fragment is copied back for a device that takes only linear
 * skbs, as esp_xmit() does.
 */
static int eso_seg_finished(struct sk_buff *skb)
{
	struct net_device *dev = eso_out_dev(skb);

	secpath_reset(skb);
	if (dev && skb_needs_linearize(skb, dev->features) &&
	    __skb_linearize(skb))
		return -ENOMEM;
	return 0;
}

/*
 * Encrypt one prepared segment through the SA's AEAD with esp4/esp6's
 * esp_output_tail(); on return (0) the segment is a finished ESP packet.
 * From validate_xmit_xfrm() (@in_gso false) the network header is the
 * outer one, whose length is set here, and skb->data is left there.
 * During segmentation (@in_gso) the network header is still the inner
 * one in tunnel mode, and the outer header's own GSO handler sets the
 * outer length afterwards; skb->data is left at the mac header.
 */
static int eso_output_finish(struct xfrm_state *x, struct sk_buff *skb,
			     bool ipv6, struct esp_info *esp, u32 low,
			     bool in_gso)
{
	struct net *net = xs_net(x);
	struct net_device *dev;
	bool has_queue;
	u32 hi;
	int err;

	err = eso_seq_hi(skb, low, &hi);
	if (err)
		return err;
	esp->seqno = cpu_to_be64(((u64)hi << 32) | low);

	if (in_gso) {
		skb_push(skb, skb->data - skb_mac_header(skb));
	} else {
		skb_push(skb, -skb_network_offset(skb));
		eso_fix_outer_len(skb, ipv6);
	}

	/*
	 * Once the AEAD returns -EINPROGRESS its completion may already have
	 * sent and freed the skb on another CPU: look at it before.
	 */
	if (eso_null_nocrypt(x)) {
		/* esp-null: the trailer is all there was to add */
		eso_count(net, ESO_TX_NULL);
		goto done;
	}
	/* skb->dev is still unset if an NFQUEUE in OUTPUT segments */
	dev = eso_out_dev(skb);
	has_queue = !dev || eso_dev_has_queue(dev, skb);
	err = ipv6 ? eso_esp6.output_tail(x, skb, esp) :
		     esp_output_tail(x, skb, esp);
	if (err == -EINPROGRESS) {
		eso_count(net, ESO_TX_ASYNC);
		if (!has_queue)
			eso_async_on_noqueue(net, dev);
		return err;
	}
	if (err)	/* NET_XMIT_DROP for -ENOSPC: not a "finished" 1 */
		return err > 0 ? -ENOBUFS : err;
done:
	err = eso_seg_finished(skb);
	if (!err)
		eso_count(net, ESO_TX_SEGMENTS);
	return err;
}

/* A packet xfrm did not segment: number and encrypt it, in the section. */
static int eso_xmit_single(struct xfrm_state *x, struct sk_buff *skb,
			   bool ipv6, struct esp_info *esp,
			   struct eso_tx_turn *turn)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	s64 low;
	int err;

	err = eso_tx_order_numbers(x, xo, skb, 1, 1, turn);
	if (err == -EOVERFLOW) {
		/*
		 * Out of numbers, and counted so (XfrmOutStateSeqError).
		 * Dropped here: validate_xmit_xfrm() would count an error
		 * returned to it as XfrmOutStateProtoError as well, and
		 * takes -EINPROGRESS as "consumed".
		 */
		kfree_skb(skb);
		return -EINPROGRESS;
	}
	if (err)
		return err;
	ip_esp_hdr(skb)->seq_no = htonl(xo->seq.low);
	low = eso_output_prepare(x, skb, ipv6, false, esp);
	return low < 0 ? low : eso_output_finish(x, skb, ipv6, esp, low, false);
}

static int eso_xmit(struct xfrm_state *x, struct sk_buff *skb, bool ipv6)
{
	struct esp_info esp;
	s64 low;
	int err;

	if (unlikely(!xfrm_offload(skb)))
		return -EINVAL;

	/*
	 * A segment's number was settled at segmentation; a packet xfrm did
	 * not segment is settled here, in the section (tx_order.c).
	 */
	if (xfrm_offload(skb)->flags & XFRM_GSO_SEGMENT) {
		/* nonlinear: tx_pages.c's (eso_tx_pages_own()) */
		low = eso_output_prepare(x, skb, ipv6, skb_is_nonlinear(skb),
					 &esp);
		err = low < 0 ? low :
		      eso_output_finish(x, skb, ipv6, &esp, low, false);
		if (!err)
			eso_tx_order_account(skb->len);
	} else {
		struct eso_tx_turn turn;

		eso_tx_order_begin(x, &turn);
		err = eso_xmit_single(x, skb, ipv6, &esp, &turn);
		/* -EINPROGRESS: the skb may be sent and freed already */
		if (!err)
			eso_tx_order_account(skb->len);
		eso_tx_order_end(&turn);
	}
	if (err && err != -EINPROGRESS)
		eso_count(xs_net(x), ESO_TX_ERRORS);
	return err;
}

/*
 * Append @skb to the segment list @head whose last ->next is @tail. As
 * skb_segment() leaves it, the head's ->prev is the last segment:
 * validate_xmit_skb_list() chains lists through it, and the one
 * skb_segment() set may be a segment dropped since.
 */
static void eso_seg_append(struct sk_buff **head, struct sk_buff ***tail,
			   struct sk_buff *skb)
{
	**tail = skb;
	*tail = &skb->next;
	(*head)->prev = skb;
}

/*
 * Batch encryption. esp4/esp6 give an rfc7539esp SA the transform
 * "seqiv(rfc7539esp(chacha20,poly1305))", and an rfc4106 SA
 * "seqiv(rfc4106(gcm(aes)))": an IV-generating wrapper whose context
 * (struct aead_geniv_ctx) holds the real AEAD and a salt. When that real
 * AEAD is one of this module's, eso_gso_segment() has every segment of a
 * super-packet encrypted here, at segmentation, in one batch call of that
 * AEAD: one FPU section and one allocation for the whole batch instead of
 * one of each per 1.4 KB segment. The segments then leave with their
 * sec_path dropped, and validate_xmit_xfrm() passes them through. seqiv's
 * part is done here as seqiv does it: the IV is the 64-bit sequence number
 * XOR the salt, written after the ESP header and given to the AEAD as the
 * tail of the associated data, which rfc7539esp and rfc4106 alike do not
 * authenticate (the AD they authenticate is spi, [seq hi,] seq).
 */
struct eso_batch_ops {
	const char *geniv;	/* driver name of seqiv over the AEAD */
	bool (*is_ours)(struct crypto_aead *tfm);
	/* can the batch do this tfm's requests here and now? NULL: always */
	bool (*ready)(struct crypto_aead *tfm);
	/*
	 * Synchronous; reads each request's tfm, lengths, IV and
	 * scatterlists, never its context (eso_batch_req_size())
	 */
	int (*batch)(struct crypto_aead *tfm, struct aead_request **reqs,
		     unsigned int n, bool enc, int *errs);
};

static const struct eso_batch_ops eso_batch_aeads[] = {
	{
		.geniv		= "seqiv(" ESP_CHACHA_DRIVER ")",
		.is_ours	= esp_chacha_is_ours,
		.batch		= esp_chacha_batch,
	}, {
		/*
		 * Not ready where SIMD is not usable, and for AES-192: the
		 * stock driver behind it does those, perhaps asynchronously,
		 * so they take the per-packet paths, which allow for that.
		 */
		.geniv		= "seqiv(" ESP_GCM_DRIVER ")",
		.is_ours	= esp_gcm_is_ours,
		.ready		= esp_gcm_batch_ready,
		.batch		= esp_gcm_batch,
	},
};

/* Which of the module's AEADs @x's is, if any; its real AEAD in *child. */
static const struct eso_batch_ops *eso_batch_child(struct xfrm_state *x,
						   struct crypto_aead **child)
{
	struct crypto_aead *aead = x->data;
	const char *name = crypto_tfm_alg_driver_name(crypto_aead_tfm(aead));
	struct aead_geniv_ctx *ctx;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(eso_batch_aeads); i++) {
		const struct eso_batch_ops *ops = &eso_batch_aeads[i];

		if (strcmp(name, ops->geniv))
			continue;
		ctx = crypto_aead_ctx(aead);
		if (!ops->is_ours(ctx->child))
			return NULL;
		*child = ctx->child;
		return ops;
	}
	return NULL;
}

/* The batch operations of @child, one of ours (eso_batch_child()). */
static const struct eso_batch_ops *eso_batch_ops_of(struct crypto_aead *child)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(eso_batch_aeads); i++)
		if (eso_batch_aeads[i].is_ours(child))
			return &eso_batch_aeads[i];
	return NULL;
}

/* @x's real AEAD if it is ours and its batch can do the work now. */
static struct crypto_aead *eso_batch_ready(struct xfrm_state *x)
{
	const struct eso_batch_ops *ops;
	struct crypto_aead *child;

	ops = eso_batch_child(x, &child);
	if (!ops || (ops->ready && !ops->ready(child)))
		return NULL;
	return child;
}

static bool tx_batch = true;	/* debugfs: N encrypts each in eso_xmit() */

/* The AEAD to batch @x's segments with, or NULL to leave them to eso_xmit(). */
struct crypto_aead *eso_batch_aead(struct xfrm_state *x)
{
	return READ_ONCE(tx_batch) ? eso_batch_ready(x) : NULL;
}

#define ESO_IVLEN 8	/* rfc7539esp, rfc4106 */

struct eso_batch_seg {
	struct sk_buff *skb;
	struct esp_info esp;
	struct aead_request *req;	/* NULL: not (or no longer) batched */
	unsigned int data_off;		/* skb->data - mac header on entry */
	u32 low;
	int err;
};

/* One segment's request, IV, associated data and scatterlist, in @mem. */
struct eso_batch_req {
	u8 iv[ESO_IVLEN];
	__be32 ad[5];		/* spi, [seq hi,] seq, IV (2 words) */
	struct scatterlist sg[];
	/* the aead_request follows the scatterlist */
};

/* Requests are laid out back to back: keep each one's start aligned. */
#define ESO_BATCH_ALIGN max(__alignof__(struct aead_request), \
			    __alignof__(struct eso_batch_req))

/*
 * One batch request: IV, associated data, scatterlist, aead_request, and
 * no request context (crypto_aead_reqsize()): ops->batch never uses it,
 * and a request the batch does not do is made anew by the per-packet
 * paths. Nothing in it is secret (the IV and the AD go on the wire, the
 * rest are pointers and lengths), so it is freed with kfree().
 */
static size_t eso_batch_req_size(int nfrags)
{
	return ALIGN(ALIGN(struct_size((struct eso_batch_req *)NULL, sg,
				       nfrags + 1),
			   __alignof__(struct aead_request)) +
		     sizeof(struct aead_request), ESO_BATCH_ALIGN);
}

/* Put skb->data back where the segmentation left it. */
static void eso_batch_restore_data(struct eso_batch_seg *bs)
{
	struct sk_buff *skb = bs->skb;
	unsigned char *want = skb_mac_header(skb) + bs->data_off;

	if (skb->data > want)
		__skb_push(skb, skb->data - want);
	else
		__skb_pull(skb, want - skb->data);
}

/*
 * Fill @br (whose IV is set) with the associated data rfc7539esp and
 * rfc4106 expect under seqiv: spi, [seq hi,] seq, IV; and a request for @cryptlen bytes
 * of @skb from @off, in place, in the @nfrags + 1 entries that
 * eso_batch_req_size() made room for. NULL if the skb would not map.
 */
static struct aead_request *eso_batch_req_init(struct eso_batch_req *br,
					       struct crypto_aead *child,
					       const struct ip_esp_hdr *esph,
					       bool esn, u32 hi,
					       struct sk_buff *skb, int off,
					       int nfrags,
					       unsigned int cryptlen)
{
	struct aead_request *req;
	unsigned int adlen, i = 0;

	br->ad[i++] = esph->spi;
	if (esn)
		br->ad[i++] = htonl(hi);
	br->ad[i++] = esph->seq_no;
	memcpy(&br->ad[i], br->iv, ESO_IVLEN);
	adlen = (i + 2) * sizeof(__be32);

	sg_init_table(br->sg, nfrags + 1);
	sg_set_buf(br->sg, br->ad, adlen);
	if (unlikely(skb_to_sgvec(skb, br->sg + 1, off, skb->len - off) < 0))
		return NULL;

	req = (void *)PTR_ALIGN((u8 *)(br->sg + nfrags + 1),
				__alignof__(struct aead_request));
	aead_request_set_tfm(req, child);
	aead_request_set_callback(req, 0, NULL, NULL);
	aead_request_set_crypt(req, br->sg, br->sg, cryptlen, br->iv);
	aead_request_set_ad(req, adlen);
	return req;
}

/* Set up @bs's request in @mem; the segment is prepared (padded). */
static int eso_batch_setup(struct xfrm_state *x, struct crypto_aead *child,
			   struct eso_batch_seg *bs, void *mem)
{
	struct aead_geniv_ctx *ctx = crypto_aead_ctx(x->data);
	struct xfrm_offload *xo = xfrm_offload(bs->skb);
	bool esn = x->props.flags & XFRM_STATE_ESN;
	struct eso_batch_req *br = mem;
	struct ip_esp_hdr *esph;
	u32 hi = 0;
	__be64 seq;

	if (esn)
		hi = xo->seq.hi + (bs->low < xo->seq.low);
	seq = cpu_to_be64(((u64)hi << 32) | bs->low);
	memcpy(br->iv, &seq, ESO_IVLEN);
	crypto_xor(br->iv, ctx->salt, ESO_IVLEN);

	esph = (struct ip_esp_hdr *)skb_transport_header(bs->skb);
	memcpy(esph + 1, br->iv, ESO_IVLEN);

	/* skb->data is the payload, behind the IV */
	bs->req = eso_batch_req_init(br, child, esph, esn, hi, bs->skb, 0,
				     bs->esp.nfrags, bs->esp.clen);
	return bs->req ? 0 : -EINVAL;
}

/*
 * What xfrm_outer_mode_prep() does before type_offload->xmit(): the
 * transport header at the ESP header, skb->data at the payload behind
 * the @ivlen bytes of IV. eso_batch_restore_data() undoes it.
 */
static void eso_seg_to_payload(struct eso_batch_seg *bs, unsigned int esp_off,
			       unsigned int ivlen)
{
	struct sk_buff *skb = bs->skb;
	unsigned char *esph = skb_mac_header(skb) + esp_off;

	bs->data_off = skb->data - skb_mac_header(skb);
	skb_set_transport_header(skb, esph - skb->data);
	__skb_pull(skb, esph + sizeof(struct ip_esp_hdr) + ivlen - skb->data);
}

/*
 * Prepare @bs (padding, trailer, ICV room). A segment that cannot be
 * encrypted in place is encrypted on its own right away, as eso_xmit()
 * would. Returns 0 if the segment is to join the batch.
 */
static int eso_batch_prepare(struct xfrm_state *x, struct eso_batch_seg *bs,
			     unsigned int esp_off, bool ipv6)
{
	struct sk_buff *skb = bs->skb;
	bool linear;
	s64 low;

	eso_seg_to_payload(bs, esp_off, ESO_IVLEN);
	linear = !skb_is_nonlinear(skb);
	/* segmentation copied: a nonlinear segment has tx_pages.c's page */
	low = eso_output_prepare(x, skb, ipv6, !linear, &bs->esp);
	if (low < 0)
		return low;
	bs->low = low;
	/*
	 * Without tailroom for the trailer, esp_output_head() appends it as a
	 * page fragment of the SA's own and asks for out-of-place encryption,
	 * because other fragments may be pages the skb does not own. A
	 * segment that was linear (segmentation copied) has no other
	 * fragment, so in place is safe.
	 */
	if (bs->esp.inplace || linear)
		return 0;

	low = eso_output_finish(x, skb, ipv6, &bs->esp, bs->low, true);
	return low ? low : 1;
}

/*
 * Encrypt the segments @segs of one super-packet of @x with @child
 * (eso_batch_aead()). Returns the list
 * of the ones that are now finished ESP packets; failed ones are freed
 * and counted.
 */
struct sk_buff *eso_encrypt_segments(struct xfrm_state *x,
				     struct crypto_aead *child,
				     struct sk_buff *segs,
				     unsigned int esp_off, bool ipv6)
{
	const struct eso_batch_ops *ops = eso_batch_ops_of(child);
	struct aead_request **reqs;
	struct net *net = xs_net(x);
	struct eso_batch_seg *bs;
	struct sk_buff *skb, *next, *head = NULL, **tail = &head;
	unsigned int n = 0, i, nreq = 0;
	size_t memsize = 0;
	u8 *mem = NULL, *p;
	int *errs;

	/* untouched: validate_xmit_xfrm() does them (eso_xmit()) */
	if (!ops || (ops->ready && !ops->ready(child)))
		return segs;
	skb_list_walk_safe(segs, skb, next)
		n++;
	bs = kcalloc(n, sizeof(*bs) + sizeof(*reqs) + sizeof(*errs),
		     GFP_ATOMIC);
	if (!bs)
		return segs;	/* untouched: validate_xmit_xfrm() does them */
	reqs = (struct aead_request **)(bs + n);
	errs = (int *)(reqs + n);

	i = 0;
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		bs[i].skb = skb;
		bs[i].err = eso_batch_prepare(x, &bs[i], esp_off, ipv6);
		if (!bs[i].err)
			memsize += eso_batch_req_size(bs[i].esp.nfrags);
		i++;
	}

	if (memsize)
		mem = kmalloc(memsize, GFP_ATOMIC);
	for (i = 0, p = mem; i < n; i++) {
		if (bs[i].err)
			continue;
		if (!p) {
			/* no memory for the batch: one at a time, as eso_xmit() */
			bs[i].err = eso_output_finish(x, bs[i].skb, ipv6,
						      &bs[i].esp, bs[i].low,
						      true) ?: 1;
			continue;
		}
		bs[i].err = eso_batch_setup(x, child, &bs[i], p);
		if (!bs[i].err)
			reqs[nreq++] = bs[i].req;
		p += eso_batch_req_size(bs[i].esp.nfrags);
	}

	if (nreq)
		ops->batch(child, reqs, nreq, true, errs);

	for (i = 0, nreq = 0; i < n; i++) {
		skb = bs[i].skb;
		if (bs[i].req) {
			bs[i].err = errs[nreq++];
			/* the outer length: see eso_output_finish() */
			if (!bs[i].err)
				bs[i].err = eso_seg_finished(skb);
			if (!bs[i].err) {
				eso_count(net, ESO_TX_SEGMENTS);
				eso_count(net, ESO_TX_BATCHED);
			}
		}
		/*
		 * Never: the batches are synchronous (and the one-at-a-time
		 * path above, without memory, only runs where ops->ready()
		 * says the AEAD is too). Were it async, the request would own
		 * skb, and its esp_output_done() would find no
		 * XFRM_DEV_RESUME and no dst->xfrm here.
		 */
		if (WARN_ON_ONCE(bs[i].err == -EINPROGRESS))
			continue;
		if (bs[i].err && bs[i].err != 1) {
			eso_count(net, ESO_TX_ERRORS);
			kfree_skb(skb);
			continue;
		}
		eso_batch_restore_data(&bs[i]);
		eso_seg_append(&head, &tail, skb);
	}

	kfree(mem);
	kfree(bs);
	return head ? head : ERR_PTR(-EINVAL);
}

/*
 * esp-null's checksum, once. Without an ICV the inner TCP/UDP checksum is
 * the only check an esp-null packet has, so it is computed on TX (by the
 * segmentation, which has no checksum offload to leave it to) and verified
 * on RX: two passes over every byte, where clear TCP over veth makes none
 * (CHECKSUM_PARTIAL travels to the receiver, which takes it as good).
 * Leaving the segments CHECKSUM_PARTIAL is not an option: esp4/esp6 and
 * every other receiver verify the inner checksum of a decapsulated packet,
 * so a checksum that was never filled in would be dropped by a stock
 * peer on any link that carries CHECKSUM_PARTIAL (veth, virtio).
 *
 * What can go is the second pass when both ends are on one host. A segment
 * whose checksum the segmentation just computed is marked
 * CHECKSUM_UNNECESSARY, which on output means the same as CHECKSUM_NONE
 * (skbuff.h) and which veth hands to the receiving namespace unchanged.
 * The RX side of esp-null (eso_rx_null_done()) keeps a packet's
 * CHECKSUM_UNNECESSARY, as it would for clear TCP, because esp-null does not
 * change a byte of the payload; a stock receiver sets CHECKSUM_NONE and
 * verifies the (correct) sum. A wire or a NIC never sees the flag. Only
 * segments are marked: a single packet's checksum may be whatever its
 * sender (a raw socket, say) put there.
 */
static bool null_csum_once = true;	/* debugfs: N leaves them unmarked */

/*
 * Finish the segments @segs of one super-packet of the esp-null SA @x:
 * trailer only. Returns the finished ones; failed ones are freed, counted.
 */
struct sk_buff *eso_null_segments(struct xfrm_state *x, struct sk_buff *segs,
				  unsigned int esp_off, bool ipv6)
{
	struct sk_buff *skb, *next, *head = NULL, **tail = &head;
	bool csum_verified = READ_ONCE(null_csum_once);
	struct net *net = xs_net(x);
	unsigned int n = 0;

	skb_list_walk_safe(segs, skb, next) {
		struct eso_batch_seg bs = { .skb = skb };

		skb_mark_not_on_list(skb);
		eso_seg_to_payload(&bs, esp_off, 0);
		if (eso_output_prepare(x, skb, ipv6, false, &bs.esp) < 0 ||
		    eso_seg_finished(skb)) {
			eso_count(net, ESO_TX_ERRORS);
			kfree_skb(skb);
			continue;
		}
		if (csum_verified && skb->ip_summed == CHECKSUM_NONE) {
			skb->ip_summed = CHECKSUM_UNNECESSARY;
			skb->csum_level = 0;
		}
		eso_batch_restore_data(&bs);
		eso_seg_append(&head, &tail, skb);
		n++;
	}
	eso_count_add(net, ESO_TX_SEGMENTS, n);
	eso_count_add(net, ESO_TX_NULL, n);
	return head ? head : ERR_PTR(-EINVAL);
}

/*
 * RX batch: the packets of one SA that wait together in rx_steer.c's queue
 * are decrypted in one batch call of the SA's AEAD (one of the module's)
 * before xfrm sees them, each
 * exactly as esp_input() would (same associated data, in place, after
 * the same copy-on-write), and leave marked CRYPTO_DONE with their
 * verdict, as a NIC that decrypts marks them. xfrm_input() then does
 * what it does for those: drops a failed ICV (integrity_failed,
 * XfrmInStateProtoError, as the stock path counts it), checks and
 * advances the replay window, and calls input_tail instead of
 * type->input. The replay check comes after the decryption here, as with
 * hardware offload: a replayed packet is dropped all the same, it has
 * only been decrypted first. For ESN the high half of the sequence number
 * is inferred from the replay window exactly as xfrm_input() infers it.
 * Packets that cannot be set up are left alone: xfrm decrypts them.
 */
static bool rx_batch = true;	/* debugfs: N leaves each to xfrm */

/* The AEAD to decrypt runs of @x's packets with, or NULL to leave them to xfrm. */
struct crypto_aead *eso_rx_batch_aead(struct xfrm_state *x)
{
	/* CRYPTO_DONE needs our input_tail, as in eso_null_nocrypt() */
	if (!READ_ONCE(rx_batch) || !eso_state_is_ours(x))
		return NULL;
	return eso_batch_ready(x);
}

/*
 * Make @skb writable in place as esp_input() does; returns the number of
 * scatterlist entries its data needs, or < 0.
 */
static int eso_rx_make_writable(struct sk_buff *skb)
{
	struct sk_buff *trailer;

	if (!skb_cloned(skb)) {
		if (!skb_is_nonlinear(skb))
			return 1;
		if (!skb_has_frag_list(skb) && !skb_has_shared_frag(skb))
			return skb_shinfo(skb)->nr_frags + 1;
	}
	return skb_cow_data(skb, 0, &trailer);
}

/* Set up the decryption of @skb (ESP header at skb->data) in @mem. */
static struct aead_request *eso_rx_batch_setup(struct xfrm_state *x,
					       struct crypto_aead *child,
					       struct sk_buff *skb,
					       int nfrags, void *mem)
{
	const unsigned int hlen = sizeof(struct ip_esp_hdr) + ESO_IVLEN;
	struct ip_esp_hdr *esph = (struct ip_esp_hdr *)skb->data;
	bool esn = x->props.flags & XFRM_STATE_ESN;
	struct eso_batch_req *br = mem;
	u32 seq_hi = 0;

	if (esn) {
		/* xo->seq is TX's; eso_input_tail() compares this with xfrm's */
		seq_hi = xfrm_replay_seqhi(x, esph->seq_no);
		xfrm_offload(skb)->seq.hi = seq_hi;
	}
	memcpy(br->iv, esph + 1, ESO_IVLEN);
	return eso_batch_req_init(br, child, esph, esn, seq_hi,
				  skb, hlen, nfrags, skb->len - hlen);
}

/* What xfrm_input() is to make of @skb's decryption status @err. */
static void eso_rx_mark_done(struct xfrm_state *x, struct sk_buff *skb,
			     int err)
{
	struct xfrm_offload *xo = xfrm_offload(skb);

	xo->flags |= CRYPTO_DONE;
	if (!err)
		xo->status = CRYPTO_SUCCESS;
	else if (err == -EBADMSG)
		xo->status = x->props.mode == XFRM_MODE_TUNNEL ?
			     CRYPTO_TUNNEL_ESP_AUTH_FAILED :
			     CRYPTO_TRANSPORT_ESP_AUTH_FAILED;
	else
		xo->status = CRYPTO_INVALID_PROTOCOL;
}

/*
 * An esp-null packet (eso_null_nocrypt()): nothing to decrypt or verify.
 * Its payload is what its sender sent, byte for byte, so an inner checksum
 * already verified (CHECKSUM_UNNECESSARY: see null_csum_once) stays so.
 * Anything else is verified by GRO or TCP: CHECKSUM_COMPLETE would have
 * to follow the pulls of GRO and xfrm, which track only their own copy.
 */
void eso_rx_null_done(struct xfrm_state *x, struct sk_buff *skb)
{
	struct net *net = xs_net(x);

	eso_rx_mark_done(x, skb, 0);
	eso_count(net, ESO_RX_NULL);
	if (skb->ip_summed == CHECKSUM_UNNECESSARY)
		eso_count(net, ESO_RX_NULL_CSUM_KEPT);
	else
		skb->ip_summed = CHECKSUM_NONE;
}

/*
 * Decrypt the packets in @run (at most ESO_RX_RUN, all of @x, ESP header
 * at skb->data, sec_path with XFRM_GRO set) with @child
 * (eso_rx_batch_aead()).
 */
void eso_decrypt_run(struct xfrm_state *x, struct crypto_aead *child,
		     struct sk_buff_head *run)
{
	const struct eso_batch_ops *ops = eso_batch_ops_of(child);
	const unsigned int hlen = sizeof(struct ip_esp_hdr) + ESO_IVLEN;
	unsigned int n = 0, nreq = 0, i;
	int nfrags[ESO_RX_RUN], *errs;
	struct aead_request **reqs;
	struct sk_buff *skb;
	size_t memsize = 0;
	u8 *mem, *p;

	if (WARN_ON_ONCE(skb_queue_len(run) > ESO_RX_RUN))
		return;
	/* xfrm decrypts them one by one */
	if (!ops || (ops->ready && !ops->ready(child)))
		return;
	skb_queue_walk(run, skb) {
		nfrags[n] = -EINVAL;
		if (skb->len > hlen && pskb_may_pull(skb, hlen))
			nfrags[n] = eso_rx_make_writable(skb);
		if (nfrags[n] > 0)
			memsize += eso_batch_req_size(nfrags[n]);
		n++;
	}
	if (!memsize)
		return;

	/* the requests first: kmalloc() aligns them, eso_batch_req_size() keeps it */
	mem = kmalloc(memsize + n * (sizeof(*reqs) + sizeof(*errs)),
		      GFP_ATOMIC);
	if (!mem)
		return;		/* xfrm decrypts them one by one */
	reqs = (struct aead_request **)(mem + memsize);
	errs = (int *)(reqs + n);

	i = 0;
	p = mem;
	skb_queue_walk(run, skb) {
		if (nfrags[i] > 0) {
			reqs[nreq] = eso_rx_batch_setup(x, child, skb,
							nfrags[i], p);
			p += eso_batch_req_size(nfrags[i]);
			if (reqs[nreq])
				nreq++;
			else
				nfrags[i] = -EINVAL;
		}
		i++;
	}

	if (nreq)
		ops->batch(child, reqs, nreq, false, errs);

	i = 0;
	nreq = 0;
	skb_queue_walk(run, skb) {
		if (nfrags[i++] <= 0)
			continue;
		/* not done (not ready after all): xfrm decrypts it */
		if (errs[nreq] == -EAGAIN) {
			nreq++;
			continue;
		}
		/* the ciphertext's sum says nothing about the plaintext */
		skb->ip_summed = CHECKSUM_NONE;
		eso_rx_mark_done(x, skb, errs[nreq]);
		if (!errs[nreq++])
			eso_count(xs_net(x), ESO_RX_BATCHED);
	}
	kfree(mem);
}

/* A NIC's SA (x->xso.dev) gets what esp4_offload/esp6_offload do: tx_nic.c */
static int eso_xmit4(struct xfrm_state *x, struct sk_buff *skb,
		     netdev_features_t features)
{
	if (unlikely(x->xso.dev))
		return eso_nic_xmit(x, skb, features, false);
	return eso_xmit(x, skb, false);
}

static int eso_xmit6(struct xfrm_state *x, struct sk_buff *skb,
		     netdev_features_t features)
{
	if (unlikely(x->xso.dev))
		return eso_nic_xmit(x, skb, features, true);
	return eso_xmit(x, skb, true);
}

/*
 * With ESN, eso_decrypt_run() checked the ICV with the high sequence bits
 * the replay window gave before the run; xfrm_input() has just inferred
 * them again, after the run's earlier packets moved the window. They differ
 * for a packet that fell below the window meanwhile (late by more than the
 * window, or replayed): xfrm_input() takes it for one of the next 2^32, and
 * esp_input() would check its ICV with those bits and fail it. Fail it here
 * too, or it would move the window into a subspace the peer is not in and
 * every later packet would fail.
 */
static bool eso_batch_esn_stale(struct xfrm_state *x, struct sk_buff *skb)
{
	struct crypto_aead *child;

	/*
	 * Only eso_decrypt_run() marks the packets of our AEADs' SAs
	 * CRYPTO_DONE, but for a NIC's SA (x->xso.dev: a NIC may do rfc4106
	 * itself); GRO leaves packets that arrive so alone.
	 */
	if (likely(!(x->props.flags & XFRM_STATE_ESN)) || x->xso.dev ||
	    !eso_batch_child(x, &child))
		return false;
	if (likely(xfrm_offload(skb)->seq.hi ==
		   ntohl(XFRM_SKB_CB(skb)->seq.input.hi)))
		return false;
	eso_count(xs_net(x), ESO_RX_BATCH_ESN_STALE);
	return true;
}

/*
 * Called by xfrm_input() instead of type->input when the packet arrives
 * with CRYPTO_DONE set and its ICV verified: decrypted by eso_decrypt_run().
 * What is left is esp_input()'s tail: padding, next header, ESP header off.
 */
static int eso_input_tail(struct xfrm_state *x, struct sk_buff *skb,
			  bool ipv6)
{
	struct crypto_aead *aead = x->data;

	if (eso_batch_esn_stale(x, skb))
		return -EBADMSG;	/* what esp_input() would return */
	if (!pskb_may_pull(skb, sizeof(struct ip_esp_hdr) +
				crypto_aead_ivsize(aead)))
		return -EINVAL;

	return ipv6 ? eso_esp6.input_done2(skb, 0) :
		      esp_input_done2(skb, 0);
}

static int eso_input_tail4(struct xfrm_state *x, struct sk_buff *skb)
{
	return eso_input_tail(x, skb, false);
}

static int eso_input_tail6(struct xfrm_state *x, struct sk_buff *skb)
{
	return eso_input_tail(x, skb, true);
}

/* The switches of this file's paths, for tests (debugfs.c). */
void eso_hooks_init(void)
{
	eso_debugfs_bool("null_nocrypt", &null_nocrypt);
	eso_debugfs_bool("null_csum_once", &null_csum_once);
	eso_debugfs_bool("tx_batch", &tx_batch);
	eso_debugfs_bool("rx_batch", &rx_batch);
}

const struct xfrm_type_offload eso_type_offload4 = {
	.owner		= THIS_MODULE,
	.proto		= IPPROTO_ESP,
	.encap		= eso_encap4,
	.input_tail	= eso_input_tail4,
	.xmit		= eso_xmit4,
};

const struct xfrm_type_offload eso_type_offload6 = {
	.owner		= THIS_MODULE,
	.proto		= IPPROTO_ESP,
	.encap		= eso_encap6,
	.input_tail	= eso_input_tail6,
	.xmit		= eso_xmit6,
};
