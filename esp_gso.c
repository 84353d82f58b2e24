// SPDX-License-Identifier: GPL-2.0
/*
 * TX: the ESP header is built once on a GSO super-packet (encap), and the
 * super-packet is segmented as late as possible, at the device
 * (gso_segment). Each segment leaves here with its own ESP header and its
 * own sequence number; xfrm_hooks.c then pads and encrypts it, one segment
 * at a time from validate_xmit_xfrm(), or, when the SA's AEAD is one of
 * this module's (ChaCha20-Poly1305, AES-GCM), all segments here in one
 * batch (eso_encrypt_segments()).
 *
 * Sequence numbers: xfrm_output() reserved gso_segs numbers for the
 * super-packet (xfrm_replay_overflow_offload*()), starting at
 * xo->seq.low; tx_order.c keeps them or replaces them with fresh ones.
 * Each segment gets its number written into its own copy of the ESP
 * header here, once; the shared xfrm_offload is not modified per
 * segment, so nothing depends on the order the segments are later
 * encrypted in.
 *
 * Lifetime: xfrm counted the super-packet as one packet; the segments are
 * counted here, as the peer counts them (eso_count_lifetime()).
 */

#include <crypto/aead.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <net/esp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/xfrm.h>

#include "compat.h"
#include "esp_swoffload.h"

static void eso_encap_common(struct xfrm_state *x, struct sk_buff *skb,
			     u8 proto)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	struct ip_esp_hdr *esph;

	/*
	 * xfrm_outer_mode_output() left the mac header pointing at the
	 * protocol/next-header byte of the outer header and the transport
	 * header at the room reserved for ESP header + IV.
	 */
	skb_push(skb, -skb_network_offset(skb));
	esph = ip_esp_hdr(skb);
	*skb_mac_header(skb) = IPPROTO_ESP;

	esph->spi = x->id.spi;
	esph->seq_no = htonl(XFRM_SKB_CB(skb)->seq.output.low);

	xo->proto = proto;
}

void eso_encap4(struct xfrm_state *x, struct sk_buff *skb)
{
	eso_encap_common(x, skb, ip_hdr(skb)->protocol);
}

void eso_encap6(struct xfrm_state *x, struct sk_buff *skb)
{
	u8 proto = ipv6_hdr(skb)->nexthdr;

	if (x->outer_mode.encap == XFRM_MODE_TRANSPORT) {
		__be16 frag;

		/* offsets from skb->data: it must be at the IPv6 header */
		skb_push(skb, -skb_network_offset(skb));
		ipv6_skip_exthdr(skb, sizeof(struct ipv6hdr), &proto, &frag);
	}
	eso_encap_common(x, skb, proto);
}

/*
 * BEET: the inner header was replaced by the outer one, plus a pseudo
 * header when an IPv4 inner packet had options. Find the inner transport
 * header and protocol, and tell the inner GSO handler which IP version
 * the header in front of it now is.
 */
static const struct net_offload *eso_beet_inner(struct xfrm_state *x,
						struct sk_buff *skb, bool ipv6)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	u8 proto = xo->proto;

	skb->transport_header += x->props.header_len;
	if (x->sel.family != AF_INET6) {
		if (ipv6)
			skb->transport_header -= sizeof(struct ipv6hdr) -
						 sizeof(struct iphdr);
		if (proto == IPPROTO_BEETPH) {
			const struct ip_beet_phdr *ph = (void *)skb->data;

			skb->transport_header += ph->hdrlen * 8;
			proto = ph->nexthdr;
		} else {
			skb->transport_header -= IPV4_BEET_PHMAXLEN;
		}
		if (ipv6 && proto == IPPROTO_TCP)
			skb_shinfo(skb)->gso_type |= SKB_GSO_TCPV6;
	} else {
		__be16 frag;

		skb->transport_header += ipv6_skip_exthdr(skb, 0, &proto, &frag);
		if (!ipv6 && proto == IPPROTO_TCP)
			skb_shinfo(skb)->gso_type |= SKB_GSO_TCPV4;
	}
	if (!ipv6 && proto == IPPROTO_IPV6)
		skb_shinfo(skb)->gso_type |= SKB_GSO_IPXIP4;
	if (ipv6 && proto == IPPROTO_IPIP)
		skb_shinfo(skb)->gso_type |= SKB_GSO_IPXIP6;

	__skb_pull(skb, skb_transport_offset(skb));
	return ipv6 ? rcu_dereference(inet6_offloads[proto]) :
		      rcu_dereference(inet_offloads[proto]);
}

/* Segment the inner packet; on return every segment carries all headers. */
static struct sk_buff *eso_segment_inner(struct xfrm_state *x,
					 struct sk_buff *skb,
					 netdev_features_t features,
					 bool ipv6)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	const struct net_offload *ops;

	switch (x->outer_mode.encap) {
	case XFRM_MODE_TUNNEL: {
		const struct xfrm_mode *inner = xfrm_ip2inner_mode(x, xo->proto);

		if (!inner)
			return ERR_PTR(-EINVAL);
		return skb_eth_gso_segment(skb, features,
					   inner->family == AF_INET6 ?
					   htons(ETH_P_IPV6) : htons(ETH_P_IP));
	}
	case XFRM_MODE_TRANSPORT:
		skb->transport_header += x->props.header_len;
		ops = ipv6 ? rcu_dereference(inet6_offloads[xo->proto]) :
			     rcu_dereference(inet_offloads[xo->proto]);
		break;
	case XFRM_MODE_BEET:
		ops = eso_beet_inner(x, skb, ipv6);
		break;
	default:
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (unlikely(!ops || !ops->callbacks.gso_segment))
		return ERR_PTR(-EPROTONOSUPPORT);
	return ops->callbacks.gso_segment(skb, features);
}

static bool eso_dev_gso_esp(const struct net_device *dev)
{
	return (dev->features | dev->hw_enc_features) & NETIF_F_GSO_ESP;
}

/*
 * The length of @seg that xfrm_output_one() would count in the SA's lifetime
 * for it: from behind ESP header and IV (@inner_off from the mac header) to
 * the end (no trailer yet), i.e. the transport packet in transport mode, the
 * inner IP packet in tunnel mode, as the peer counts it on the inbound SA.
 */
static unsigned int eso_seg_inner_len(const struct sk_buff *seg,
				      unsigned int inner_off)
{
	return seg->len - skb_mac_offset(seg) - inner_off;
}

/*
 * xfrm_output_one() counted the super-packet in @x's lifetime as one packet
 * of its inner length @inner_len; it leaves as @n packets of @bytes in all,
 * each with its own copy of the inner headers. Count the difference, so
 * that the packet and byte limits (and a key manager's rekeying on them:
 * strongSwan's life_packets) see what goes on the wire. xfrm checks the
 * limits before each packet it numbers: a limit crossed inside a
 * super-packet takes effect at the SA's next packet, so a hard limit lets
 * the rest of that super-packet's segments past it.
 */
static void eso_count_lifetime(struct xfrm_state *x, unsigned int n,
			       u64 bytes, unsigned int inner_len)
{
	if (n < 2)
		return;
	spin_lock(&x->lock);
	x->curlft.packets += n - 1;
	if (bytes > inner_len)
		x->curlft.bytes += bytes - inner_len;
	spin_unlock(&x->lock);
}

/*
 * Write each segment's sequence number into its copy of the ESP header,
 * inside the SA's TX order section (tx_order.c), which first settles
 * which numbers they are. xfrm reserved gso_segs of them for the
 * super-packet at xfrm_output() time. A GSO packet from an untrusted
 * source (SKB_GSO_DODGY: a VM's virtio or tap traffic, forwarded into the
 * SA) carries gso_segs 0 until something segments it: it got none, and
 * like any segmentation into more than gso_segs it takes fresh numbers
 * now, as does a super-packet that packets numbered after it overtook on
 * the way here. Once numbered, the segments count in the SA's lifetime.
 */
static int eso_number_segments(struct xfrm_state *x, struct sk_buff *skb,
			       struct sk_buff *segs, unsigned int esp_off,
			       unsigned int reserved, unsigned int inner_len,
			       struct eso_tx_turn *turn)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	unsigned int hlen = sizeof(struct ip_esp_hdr) +
			    crypto_aead_ivsize(x->data);
	struct sk_buff *seg, *next;
	unsigned int n = 0;
	u64 bytes = 0;
	int err;

	skb_list_walk_safe(segs, seg, next) {
		bytes += eso_seg_inner_len(seg, esp_off + hlen);
		n++;
	}
	err = eso_tx_order_numbers(x, xo, skb, reserved, n, turn);
	if (err)
		return err;
	eso_count_lifetime(x, n, bytes, inner_len);

	n = 0;
	skb_list_walk_safe(segs, seg, next) {
		struct ip_esp_hdr *esph;

		esph = (struct ip_esp_hdr *)(skb_mac_header(seg) + esp_off);
		esph->seq_no = htonl(xo->seq.low + n);
		n++;
	}
	return n;
}

/*
 * Number the segments @segs of @skb and, where this module finishes them
 * here, encrypt them, in one pass through the TX order section: the
 * numbers are settled under its lock, the encryption runs beside other
 * CPUs', and the segments leave in the order of their numbers when their
 * turn comes (tx_order.c). Segments left to eso_xmit() are encrypted
 * later, in the turn only where it spans the transmit.
 */
static struct sk_buff *eso_finish_segments(struct xfrm_state *x,
					   struct sk_buff *skb,
					   struct sk_buff *segs,
					   unsigned int esp_off,
					   unsigned int reserved,
					   unsigned int inner_len,
					   struct crypto_aead *batch_aead,
					   bool nocrypt, bool ipv6)
{
	struct eso_tx_turn turn;
	int n;

	eso_tx_order_begin(x, &turn);
	n = eso_number_segments(x, skb, segs, esp_off, reserved, inner_len,
				&turn);
	if (n < 0) {
		/* out of numbers: counted as xfrm counts it (XfrmOutStateSeqError) */
		kfree_skb_list(segs);
		segs = ERR_PTR(n);
	} else if (batch_aead || nocrypt) {
		segs = batch_aead ?
		       eso_encrypt_segments(x, batch_aead, segs, esp_off, ipv6) :
		       eso_null_segments(x, segs, esp_off, ipv6);
		if (!IS_ERR(segs))
			eso_tx_order_account(skb->len);
	}
	eso_tx_order_end(&turn);
	if (n >= 0)
		eso_count(xs_net(x), ESO_TX_GSO_SKBS);
	return segs;
}

static struct sk_buff *eso_gso_segment(struct sk_buff *skb,
				       struct net_device *dev,
				       netdev_features_t features, bool ipv6)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	unsigned int esp_off, reserved, inner_len;
	struct crypto_aead *aead, *batch_aead;
	struct sec_path *sp;
	struct xfrm_state *x;
	struct sk_buff *segs;
	bool nocrypt, own_pages;

	if (!xo || !(skb_shinfo(skb)->gso_type & SKB_GSO_ESP))
		goto bad;

	sp = skb_sec_path(skb);
	x = sp->xvec[sp->len - 1];
	if (!eso_state_is_ours(x) || ip_esp_hdr(skb)->spi != x->id.spi)
		goto bad;

	aead = x->data;
	if (!pskb_may_pull(skb, sizeof(struct ip_esp_hdr) +
				crypto_aead_ivsize(aead)))
		goto bad;

	esp_off = skb_transport_header(skb) - skb_mac_header(skb);
	reserved = skb_shinfo(skb)->gso_segs;
	__skb_pull(skb, sizeof(struct ip_esp_hdr) + crypto_aead_ivsize(aead));
	inner_len = skb->len;	/* what xfrm counted: eso_count_lifetime() */
	skb->encap_hdr_csum = 1;
	xo->flags |= XFRM_GSO_SEGMENT;

	if (unlikely(x->xso.dev)) {
		/* a NIC's SA: segments for eso_nic_xmit() to number (tx_nic.c) */
		segs = eso_segment_inner(x, skb,
					 eso_nic_gso_features(x, dev, features,
							      ipv6), ipv6);
		if (IS_ERR_OR_NULL(segs))
			goto bad;
		return segs;
	}

	/*
	 * The inner checksum is computed here, in software. Segments to be
	 * encrypted are copies, encrypted in place: the copy and the
	 * checksum are one pass and the pages of the TCP write queue are
	 * never written to. The copy goes into recycled pages
	 * (tx_pages.c), or, without them, into the linear skb that
	 * skb_segment() makes. Encrypting out of place from TCP's pages
	 * instead, as esp_output_tail() can, would not save the pass: seqiv,
	 * in front of every ESP AEAD, copies a source to a distinct
	 * destination before it encrypts (seqiv_aead_encrypt()), and the
	 * checksum would need a pass of its own. The batch, which bypasses
	 * seqiv, was measured out of place and cost more instructions
	 * (docs/performance.md). esp-null segments carried
	 * without a crypto call are never written to at all: they keep
	 * TCP's pages, and the checksum is the one pass.
	 */
	/*
	 * Finished segments (batch, esp-null) carry no sec_path. A device
	 * that takes GSO_ESP itself gets the super-packet segmented in
	 * validate_xmit_xfrm() instead, which wants every segment's
	 * offload entry: give it segments for eso_xmit().
	 */
	if (eso_dev_gso_esp(dev)) {
		batch_aead = NULL;
		nocrypt = false;
	} else {
		batch_aead = eso_batch_aead(x);
		nocrypt = !batch_aead && eso_null_nocrypt(x);
	}
	own_pages = !nocrypt && eso_tx_pages_wanted(x);
	features &= ~(NETIF_F_CSUM_MASK | NETIF_F_SCTP_CRC);
	if (own_pages)
		features |= NETIF_F_SG | NETIF_F_HW_CSUM;
	else if (!nocrypt)
		features &= ~NETIF_F_SG;
	segs = eso_segment_inner(x, skb, features, ipv6);
	if (IS_ERR_OR_NULL(segs))
		goto bad;
	if (own_pages && eso_tx_pages_own(x, segs)) {
		kfree_skb_list(segs);
		eso_count(dev_net(dev), ESO_TX_ERRORS);
		return ERR_PTR(-ENOMEM);
	}

	return eso_finish_segments(x, skb, segs, esp_off, reserved, inner_len,
				   batch_aead, nocrypt, ipv6);

bad:
	eso_count(dev_net(dev), ESO_FALLBACK_GSO_BAD);
	return ERR_PTR(-EINVAL);
}

static struct sk_buff *eso_gso_segment_dev(struct sk_buff *skb,
					   netdev_features_t features,
					   bool ipv6)
{
	struct net_device *dev = eso_out_dev(skb);

	if (unlikely(!dev))
		return ERR_PTR(-EINVAL);
	return eso_gso_segment(skb, dev, features, ipv6);
}

struct sk_buff *eso_gso_segment4(struct sk_buff *skb,
				 netdev_features_t features)
{
	return eso_gso_segment_dev(skb, features, false);
}

struct sk_buff *eso_gso_segment6(struct sk_buff *skb,
				 netdev_features_t features)
{
	return eso_gso_segment_dev(skb, features, true);
}
