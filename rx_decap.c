// SPDX-License-Identifier: GPL-2.0
/*
 * RX: the module finishes a run of one SA's packets itself and hands the
 * inner packets to GRO, for SAs whose crypto it does (its own batched AEADs,
 * and esp-null): rx_steer.c's home NAPI decrypts the run (eso_decrypt_run()),
 * then eso_rx_decap_run() does, once per run under the SA's lock, what
 * xfrm_input() does per packet for a packet that arrives decrypted
 * (CRYPTO_DONE): the state, ICV, replay window and lifetime checks, the
 * replay advance and the lifetime counts, with the same counters and audit
 * records. Then, per packet, esp_input_done2()'s trailer and header removal,
 * the mode's decapsulation (xfrm4/6_transport_input() or _remove_tunnel_encap())
 * and transport_finish()'s header fix-up; and instead of queueing the inner
 * packet on xfrm's gro_cells, for a second NAPI to give to GRO, it goes to
 * GRO on the home NAPI at once (napi_gro_receive()), which the poll flushes
 * before it returns. So one SA's inner packets reach the stack on one CPU,
 * in order, as before, without xfrm_input(), gro_cells and their NAPI.
 *
 * Why not xfrm_input(): the replay window and the lifetime checks are all
 * it does for such a packet that the stack needs, and it does them one
 * packet and one lock round at a time, with a second GRO pass behind it.
 * xfrm_replay_check()/_advance() are not exported (Module.symvers of 6.1
 * and 6.12), so the window is kept here exactly as net/xfrm/xfrm_replay.c
 * keeps it, for all three replay modes (legacy, bmp, ESN; the same in 6.1
 * and 6.12).
 *
 * Left to xfrm_input(), as before: SAs whose packets another handler of
 * xfrm_rcv_cb() may claim (an xfrm interface: x->if_id), UDP-encapsulated
 * and BEET SAs, and any SA while somebody listens for replay events
 * (xfrm_aevent_is_on(): xfrm_replay_notify() is static, so only xfrm_input()
 * can send them). A packet the batch could not decrypt (no CRYPTO_DONE)
 * stays in the run for xfrm_input() too.
 */

#include <crypto/aead.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dsfield.h>
#include <net/dst_metadata.h>
#include <net/esp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/xfrm.h>

#include "compat.h"
#include "esp_swoffload.h"

/* debugfs rx_decap: N leaves every packet to xfrm_input() */
static bool rx_decap = true;

void eso_rx_decap_init(void)
{
	eso_debugfs_bool("rx_decap", &rx_decap);
}

/* May the module finish @x's packets itself? */
bool eso_rx_decap_ok(struct xfrm_state *x)
{
	if (!READ_ONCE(rx_decap) || !eso_state_is_ours(x) || x->encap ||
	    x->if_id || x->xso.dev)
		return false;
	if (x->props.mode != XFRM_MODE_TRANSPORT &&
	    x->props.mode != XFRM_MODE_TUNNEL)
		return false;
	if (!eso_rx_batch_aead(x) && !eso_null_nocrypt(x))
		return false;
	return !xfrm_aevent_is_on(xs_net(x));
}

/*
 * The replay window, as net/xfrm/xfrm_replay.c checks and advances it
 * (xfrm_replay_check_legacy/_bmp/_esn(), xfrm_replay_advance*()), x->lock
 * held. Returns 0 if @net_seq may be accepted.
 */
static unsigned int eso_bmp_bit(const struct xfrm_replay_state_esn *r, u32 diff)
{
	u32 pos = (r->seq - 1) % r->replay_window;

	return pos >= diff ? (pos - diff) % r->replay_window :
			     r->replay_window - (diff - pos);
}

static bool eso_bmp_test(const struct xfrm_replay_state_esn *r, unsigned int bit)
{
	return r->bmp[bit >> 5] & (1U << (bit & 0x1f));
}

static int eso_replay_check(struct xfrm_state *x, struct sk_buff *skb,
			    __be32 net_seq)
{
	struct xfrm_replay_state_esn *r = x->replay_esn;
	u32 seq = ntohl(net_seq), diff;

	switch (x->repl_mode) {
	case XFRM_REPLAY_MODE_LEGACY:
		if (!x->props.replay_window)
			return 0;
		if (unlikely(!seq))
			goto err;
		if (likely(seq > x->replay.seq))
			return 0;
		diff = x->replay.seq - seq;
		if (diff >= x->props.replay_window)
			goto err_window;
		if (x->replay.bitmap & (1U << diff))
			goto err_replay;
		return 0;
	case XFRM_REPLAY_MODE_BMP:
		if (!r->replay_window)
			return 0;
		if (unlikely(!seq))
			goto err;
		if (likely(seq > r->seq))
			return 0;
		diff = r->seq - seq;
		break;
	case XFRM_REPLAY_MODE_ESN: {
		u32 wsize = r->replay_window, top = r->seq;
		u32 bottom = top - wsize + 1;

		if (!wsize)
			return 0;
		if (unlikely(!seq && !r->seq_hi && r->seq < wsize - 1))
			goto err;
		diff = top - seq;
		if (likely(top >= wsize - 1)) {
			/* the window within one subspace */
			if (likely(seq > top) || seq < bottom)
				return 0;
		} else {
			/* the window across two */
			if (likely(seq > top && seq < bottom))
				return 0;
			if (seq >= bottom)
				diff = ~seq + top + 1;
		}
		break;
	}
	default:
		goto err;
	}
	if (diff >= r->replay_window)
		goto err_window;
	if (eso_bmp_test(r, eso_bmp_bit(r, diff)))
		goto err_replay;
	return 0;

err_window:
	x->stats.replay_window++;
	goto err;
err_replay:
	x->stats.replay++;
err:
	xfrm_audit_state_replay(x, skb, net_seq);
	return -EINVAL;
}

/* Clear the bits of the @diff - 1 numbers skipped, or the whole window. */
static void eso_bmp_slide(struct xfrm_replay_state_esn *r, u32 diff)
{
	u32 pos = (r->seq - 1) % r->replay_window, i;

	if (diff < r->replay_window) {
		for (i = 1; i < diff; i++) {
			unsigned int bit = (pos + i) % r->replay_window;

			r->bmp[bit >> 5] &= ~(1U << (bit & 0x1f));
		}
	} else {
		for (i = 0; i <= (r->replay_window - 1) >> 5; i++)
			r->bmp[i] = 0;
	}
}

static void eso_replay_advance(struct xfrm_state *x, __be32 net_seq)
{
	struct xfrm_replay_state_esn *r = x->replay_esn;
	u32 seq = ntohl(net_seq), diff, pos;
	unsigned int bit;

	if (x->repl_mode == XFRM_REPLAY_MODE_LEGACY) {
		if (!x->props.replay_window)
			return;
		if (seq > x->replay.seq) {
			diff = seq - x->replay.seq;
			x->replay.bitmap = diff < x->props.replay_window ?
					   x->replay.bitmap << diff | 1 : 1;
			x->replay.seq = seq;
		} else {
			x->replay.bitmap |= 1U << (x->replay.seq - seq);
		}
		return;
	}
	if (!r->replay_window)
		return;
	pos = (r->seq - 1) % r->replay_window;
	if (x->repl_mode == XFRM_REPLAY_MODE_ESN) {
		int wrap = xfrm_replay_seqhi(x, net_seq) - r->seq_hi;

		if ((!wrap && seq > r->seq) || wrap > 0) {
			diff = wrap ? ~r->seq + seq + 1 : seq - r->seq;
			eso_bmp_slide(r, diff);
			bit = (pos + diff) % r->replay_window;
			r->seq = seq;
			if (unlikely(wrap > 0))
				r->seq_hi++;
		} else {
			bit = eso_bmp_bit(r, r->seq - seq);
		}
	} else if (seq > r->seq) {
		diff = seq - r->seq;
		eso_bmp_slide(r, diff);
		bit = (pos + diff) % r->replay_window;
		r->seq = seq;
	} else {
		bit = eso_bmp_bit(r, r->seq - seq);
	}
	r->bmp[bit >> 5] |= 1U << (bit & 0x1f);
}

/*
 * With ESN, the batch checked the ICV with the high sequence bits the
 * window gave before the run; the run's earlier packets may have moved the
 * window since. They differ for a packet that fell below the window
 * meanwhile (late by more than the window, or replayed): xfrm would take it
 * for one of the next 2^32 and fail its ICV with those bits. Fail it too,
 * or it would move the window into a subspace the peer is not in.
 */
static bool eso_rx_esn_stale(struct xfrm_state *x, struct sk_buff *skb,
			     __be32 seq)
{
	if (likely(!(x->props.flags & XFRM_STATE_ESN)) || !eso_rx_batch_aead(x))
		return false;
	if (likely(xfrm_offload(skb)->seq.hi == xfrm_replay_seqhi(x, seq)))
		return false;
	eso_count(xs_net(x), ESO_RX_BATCH_ESN_STALE);
	return true;
}

/* What becomes of one packet of the run. */
struct eso_decap {
	int nexthdr;		/* its inner protocol, or < 0: drop it */
	unsigned int trim;	/* trailer and ICV */
	bool drop;		/* dropped and counted: free it */
};

/*
 * The @len bytes @back bytes before the end of @skb: in its last fragment,
 * where a trailer nearly always is, else copied to @buf.
 */
static const u8 *eso_tail_bytes(const struct sk_buff *skb, unsigned int back,
				unsigned int len, u8 *buf)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);

	if (skb->data_len && !skb_has_frag_list(skb)) {
		const skb_frag_t *f = &sh->frags[sh->nr_frags - 1];

		if (skb_frag_size(f) >= back)
			return (const u8 *)skb_frag_address(f) +
			       skb_frag_size(f) - back;
	}
	return skb_header_pointer(skb, skb->len - back, len, buf);
}

/* pskb_trim() of @trim bytes that lie in the last fragment, as they do. */
static int eso_trim_tail(struct sk_buff *skb, unsigned int trim)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	skb_frag_t *f;

	if (!skb->data_len || skb_has_frag_list(skb) || skb_cloned(skb))
		return pskb_trim(skb, skb->len - trim);
	f = &sh->frags[sh->nr_frags - 1];
	if (skb_frag_size(f) < trim)
		return pskb_trim(skb, skb->len - trim);
	if (skb_frag_size(f) == trim)
		skb_frag_unref(skb, --sh->nr_frags);
	else
		skb_frag_size_sub(f, trim);
	skb->len -= trim;
	skb->data_len -= trim;
	return 0;
}

/*
 * esp_remove_trailer()'s check, without the trim: the pad length and next
 * header in front of the ICV. Returns the next header, or < 0.
 */
static int eso_trailer(struct xfrm_state *x, struct sk_buff *skb,
		       unsigned int *trim)
{
	struct crypto_aead *aead = x->data;
	unsigned int alen = crypto_aead_authsize(aead);
	unsigned int hlen = sizeof(struct ip_esp_hdr) + crypto_aead_ivsize(aead);
	const u8 *tail;
	u8 buf[2];

	if (skb->len < hlen + alen + 2)
		return -EINVAL;
	tail = eso_tail_bytes(skb, alen + 2, 2, buf);
	if (!tail)
		return -EINVAL;
	if (tail[0] + 2 + alen >= skb->len - hlen)
		return -EINVAL;	/* "ipsec esp packet is garbage" */
	*trim = alen + tail[0] + 2;
	/* RFC 4303: a dummy packet is dropped, as xfrm drops it */
	return tail[1] == IPPROTO_NONE ? -EINVAL : tail[1];
}

/*
 * The checks xfrm_input() makes of a decrypted packet of @x, in its order,
 * and for one that passes them the replay advance and the lifetime counts;
 * x->lock held. Returns true if @skb goes on.
 */
static bool eso_decap_admit(struct xfrm_state *x, struct sk_buff *skb,
			    struct eso_decap *d, unsigned int hlen)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	struct net *net = xs_net(x);
	__be32 seq = XFRM_SPI_SKB_CB(skb)->seq;

	if (unlikely(x->km.state != XFRM_STATE_VALID)) {
		XFRM_INC_STATS(net, x->km.state == XFRM_STATE_ACQ ?
			       LINUX_MIB_XFRMACQUIREERROR :
			       LINUX_MIB_XFRMINSTATEINVALID);
		return false;
	}
	if (!(xo->status & CRYPTO_SUCCESS)) {
		if (xo->status & (CRYPTO_TRANSPORT_ESP_AUTH_FAILED |
				  CRYPTO_TUNNEL_ESP_AUTH_FAILED)) {
			xfrm_audit_state_icvfail(x, skb, IPPROTO_ESP);
			x->stats.integrity_failed++;
			XFRM_INC_STATS(net, LINUX_MIB_XFRMINSTATEPROTOERROR);
		} else if (xo->status & CRYPTO_INVALID_PROTOCOL) {
			XFRM_INC_STATS(net, LINUX_MIB_XFRMINSTATEPROTOERROR);
		} else {
			XFRM_INC_STATS(net, LINUX_MIB_XFRMINBUFFERERROR);
		}
		return false;
	}
	if (eso_replay_check(x, skb, seq)) {
		XFRM_INC_STATS(net, LINUX_MIB_XFRMINSTATESEQERROR);
		return false;
	}
	if (xfrm_state_check_expire(x)) {
		XFRM_INC_STATS(net, LINUX_MIB_XFRMINSTATEEXPIRED);
		return false;
	}
	/* what input_tail (eso_input_tail()) would fail with -EBADMSG */
	if (unlikely(eso_rx_esn_stale(x, skb, seq))) {
		xfrm_audit_state_icvfail(x, skb, IPPROTO_ESP);
		x->stats.integrity_failed++;
		XFRM_INC_STATS(net, LINUX_MIB_XFRMINSTATEPROTOERROR);
		return false;
	}
	if (d->nexthdr < 0) {
		XFRM_INC_STATS(net, LINUX_MIB_XFRMINSTATEPROTOERROR);
		return false;
	}
	eso_replay_advance(x, seq);
	x->curlft.bytes += skb->len - hlen - d->trim;
	x->curlft.packets++;
	eso_state_used_in(x);
	return true;
}

/*
 * Transport mode: the IP header (and IPv6's extension headers up to ESP)
 * moves over the ESP header, then takes the inner protocol and length, as
 * xfrm4/6_transport_input() and transport_finish() leave it.
 */
static void eso_decap_transport(struct sk_buff *skb, unsigned int nhlen,
				int nexthdr, bool ipv6)
{
	u8 *nh = skb->data - nhlen;

	memmove(nh, skb_network_header(skb), nhlen);
	xfrm_offload(skb)->orig_mac_len = skb_mac_header_was_set(skb) ?
		skb_mac_header_len(skb) : 0;
	skb->network_header = nh - skb->head;
	__skb_push(skb, nhlen);
	if (ipv6) {
		nh[IP6CB(skb)->nhoff] = nexthdr;
		ipv6_hdr(skb)->payload_len = htons(skb->len - sizeof(struct ipv6hdr));
	} else {
		struct iphdr *iph = ip_hdr(skb);

		iph->protocol = nexthdr;
		iph->tot_len = htons(skb->len);
		ip_send_check(iph);
	}
}

/*
 * Tunnel mode: the inner packet is what is left, as
 * xfrm4/6_remove_tunnel_encap() leave it: the outer header's DSCP copied
 * in with XFRM_STATE_DECAP_DSCP, its CE mark unless XFRM_STATE_NOECN.
 */
static int eso_decap_tunnel(struct xfrm_state *x, struct sk_buff *skb,
			    int nexthdr, bool ipv6)
{
	u8 tos = ipv6 ? ipv6_get_dsfield(ipv6_hdr(skb)) : ip_hdr(skb)->tos;

	if (nexthdr == IPPROTO_IPIP) {
		struct iphdr *inner = (struct iphdr *)skb->data;

		if (!pskb_may_pull(skb, sizeof(*inner)))
			return -EINVAL;
		inner = (struct iphdr *)skb->data;
		skb->protocol = htons(ETH_P_IP);
		if (x->props.flags & XFRM_STATE_DECAP_DSCP)
			ipv4_copy_dscp(tos, inner);
		if (!(x->props.flags & XFRM_STATE_NOECN) && INET_ECN_is_ce(tos))
			IP_ECN_set_ce(inner);
	} else if (nexthdr == IPPROTO_IPV6) {
		struct ipv6hdr *inner;

		if (!pskb_may_pull(skb, sizeof(*inner)))
			return -EINVAL;
		inner = (struct ipv6hdr *)skb->data;
		skb->protocol = htons(ETH_P_IPV6);
		if (x->props.flags & XFRM_STATE_DECAP_DSCP)
			ipv6_copy_dscp(tos, inner);
		if (!(x->props.flags & XFRM_STATE_NOECN) && INET_ECN_is_ce(tos))
			IP6_ECN_set_ce(skb, inner);
	} else {
		return -EINVAL;
	}
	skb_reset_network_header(skb);
	skb_mac_header_rebuild(skb);
	if (skb->mac_len)
		eth_hdr(skb)->h_proto = skb->protocol;
	return 0;
}

/*
 * The ESP header and trailer off @skb (ESP header at skb->data), the mode's
 * decapsulation, and what xfrm_input() leaves of the offload state for a
 * GRO packet; on return skb->data is at the (inner) network header, the
 * MAC header in front of it, as transport_finish() leaves a packet for
 * gro_cells.
 */
static int eso_decap_one(struct xfrm_state *x, struct sk_buff *skb,
			 const struct eso_decap *d, unsigned int hlen, bool ipv6)
{
	/* the IP header, and IPv6's extension headers in front of ESP */
	unsigned int nhlen = skb->data - skb_network_header(skb);
	struct sec_path *sp;
	int err;

	err = skb_unclone(skb, GFP_ATOMIC);
	if (!err)
		err = eso_trim_tail(skb, d->trim);
	if (err)
		return err;
	__skb_pull(skb, hlen);
	if (x->props.mode == XFRM_MODE_TUNNEL) {
		err = eso_decap_tunnel(x, skb, d->nexthdr, ipv6);
		if (err)
			return err;
	} else {
		eso_decap_transport(skb, nhlen, d->nexthdr, ipv6);
		skb_mac_header_rebuild_full(skb, xfrm_offload(skb)->orig_mac_len);
		skb_reset_network_header(skb);
	}
	skb_reset_transport_header(skb);
	nf_reset_ct(skb);
	sp = skb_sec_path(skb);
	sp->olen = 0;
	if (skb_valid_dst(skb))
		skb_dst_drop(skb);
	return 0;
}

/*
 * Finish what it can of @run (packets of @x, decrypted by the batch or
 * esp-null, ESP header at skb->data, each holding its device: eso_rx_steer())
 * and hand the inner packets to GRO on @napi; what it leaves in @run goes
 * to xfrm_input(). Returns the number of packets it took.
 */
unsigned int eso_rx_decap_run(struct xfrm_state *x, struct sk_buff_head *run,
			      struct napi_struct *napi)
{
	struct crypto_aead *aead = x->data;
	unsigned int hlen = sizeof(struct ip_esp_hdr) + crypto_aead_ivsize(aead);
	struct eso_decap d[ESO_RX_RUN];
	struct sk_buff_head mine;
	struct net *net = xs_net(x);
	bool ipv6 = x->props.family == AF_INET6;
	struct sk_buff *skb, *tmp;
	unsigned int n = 0, i, taken, good = 0, trusted = 0;

	__skb_queue_head_init(&mine);
	skb_queue_walk_safe(run, skb, tmp) {
		if (n == ESO_RX_RUN)
			break;
		if (!(xfrm_offload(skb)->flags & CRYPTO_DONE))
			continue;	/* not decrypted: xfrm does it */
		__skb_unlink(skb, run);
		__skb_queue_tail(&mine, skb);
		d[n].nexthdr = eso_trailer(x, skb, &d[n].trim);
		n++;
	}
	if (!n)
		return 0;
	taken = n;

	i = 0;
	spin_lock(&x->lock);
	skb_queue_walk(&mine, skb) {
		d[i].drop = !eso_decap_admit(x, skb, &d[i], hlen);
		i++;
	}
	spin_unlock(&x->lock);

	i = 0;
	while ((skb = __skb_dequeue(&mine))) {
		struct net_device *dev = skb->dev;

		if (d[i].drop || eso_decap_one(x, skb, &d[i], hlen, ipv6)) {
			if (!d[i].drop)
				XFRM_INC_STATS(net, LINUX_MIB_XFRMINSTATEMODEERROR);
			kfree_skb(skb);
		} else {
			good++;
			trusted += eso_rx_trust_csum(x, skb, d[i].nexthdr);
			napi_gro_receive(napi, skb);
		}
		/* the poll flushes GRO before the device may go: see there */
		dev_put(dev);
		i++;
	}
	eso_count_add(net, ESO_RX_DECAPPED, taken);
	eso_count_add(net, ESO_RX_DECRYPTED, good);
	eso_count_add(net, ESO_RX_CSUM_BY_ICV, trusted);
	return taken;
}
