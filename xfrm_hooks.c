// SPDX-License-Identifier: GPL-2.0
/*
 * The xfrm_type_offload callbacks: encap (esp_gso.c), xmit and input_tail.
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
#include <linux/skbuff.h>
#include <net/esp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sch_generic.h>
#include <net/xfrm.h>

#include "esp_swoffload.h"

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
static bool eso_dev_has_queue(const struct sk_buff *skb)
{
	struct netdev_queue *txq = skb_get_tx_queue(skb->dev, skb);

	/* noqueue is a qdisc without an enqueue operation */
	return rcu_dereference_bh(txq->qdisc)->enqueue;
}

static void eso_async_on_noqueue(struct net *net, const struct net_device *dev)
{
	eso_count(net, ESO_TX_ASYNC_NOQUEUE);
	pr_warn_once(ESO_NAME ": %s has no qdisc, so packets encrypted by an asynchronous AEAD are reported to the sender as failed; add a qdisc (tc qdisc replace dev %s root pfifo)\n",
		     dev->name, dev->name);
}

static int eso_xmit(struct xfrm_state *x, struct sk_buff *skb, bool ipv6)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	struct net *net = xs_net(x);
	struct crypto_aead *aead = x->data;
	struct esp_info esp = { .inplace = true };
	struct net_device *dev;
	unsigned int blksize;
	bool has_queue;
	u32 low, hi;
	int err;

	if (unlikely(!xo))
		return -EINVAL;

	/* skb->data is the payload to encrypt; the ESP header precedes it. */
	esp.proto = xo->proto;
	esp.tfclen = eso_tfc_len(x, skb);
	blksize = ALIGN(crypto_aead_blocksize(aead), 4);
	esp.clen = ALIGN(skb->len + 2 + esp.tfclen, blksize);
	esp.plen = esp.clen - skb->len - esp.tfclen;
	esp.tailen = esp.tfclen + esp.plen + crypto_aead_authsize(aead);
	esp.esph = ip_esp_hdr(skb);

	esp.nfrags = ipv6 ? esp6_output_head(x, skb, &esp) :
			    esp_output_head(x, skb, &esp);
	if (esp.nfrags < 0) {
		err = esp.nfrags;
		goto err;
	}

	low = ntohl(esp.esph->seq_no);
	err = eso_seq_hi(skb, low, &hi);
	if (err)
		goto err;
	esp.seqno = cpu_to_be64(((u64)hi << 32) | low);

	skb_push(skb, -skb_network_offset(skb));
	eso_fix_outer_len(skb, ipv6);

	/*
	 * Once the AEAD returns -EINPROGRESS its completion may already have
	 * sent and freed the skb on another CPU: look at it before.
	 */
	dev = skb->dev;
	has_queue = eso_dev_has_queue(skb);
	err = ipv6 ? esp6_output_tail(x, skb, &esp) :
		     esp_output_tail(x, skb, &esp);
	if (err == -EINPROGRESS) {
		eso_count(net, ESO_TX_ASYNC);
		if (!has_queue)
			eso_async_on_noqueue(net, dev);
		return err;
	}
	if (err)
		goto err;

	secpath_reset(skb);
	eso_count(net, ESO_TX_SEGMENTS);
	return 0;

err:
	eso_count(net, ESO_TX_ERRORS);
	return err;
}

static int eso_xmit4(struct xfrm_state *x, struct sk_buff *skb,
		     netdev_features_t features)
{
	return eso_xmit(x, skb, false);
}

static int eso_xmit6(struct xfrm_state *x, struct sk_buff *skb,
		     netdev_features_t features)
{
	return eso_xmit(x, skb, true);
}

/*
 * Called by xfrm_input() instead of type->input when the packet arrives
 * with CRYPTO_DONE already set (decrypted before xfrm saw it). Nothing in
 * this module sets it: xfrm decrypts our SAs' packets through type->input.
 */
static int eso_input_tail(struct xfrm_state *x, struct sk_buff *skb,
			  bool ipv6)
{
	struct crypto_aead *aead = x->data;

	if (!pskb_may_pull(skb, sizeof(struct ip_esp_hdr) +
				crypto_aead_ivsize(aead)))
		return -EINVAL;

	return ipv6 ? esp6_input_done2(skb, 0) : esp_input_done2(skb, 0);
}

static int eso_input_tail4(struct xfrm_state *x, struct sk_buff *skb)
{
	return eso_input_tail(x, skb, false);
}

static int eso_input_tail6(struct xfrm_state *x, struct sk_buff *skb)
{
	return eso_input_tail(x, skb, true);
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
