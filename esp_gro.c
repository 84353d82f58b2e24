// SPDX-License-Identifier: GPL-2.0
/*
 * RX: ESP packets are taken at GRO time, their SA is looked up once and
 * the packet goes straight into xfrm_input() with XFRM_GRO set. xfrm
 * decrypts, checks ICV and replay window exactly as on the stock path,
 * and after decapsulation feeds the inner packet to its gro_cells, so the
 * inner TCP segments are aggregated again.
 *
 * What this callback refuses (and leaves to the ordinary, non-GRO receive
 * path, which handles and counts it as the stock kernel does): packets
 * whose IP length does not match the frame (e.g. Ethernet padding, which
 * ip_rcv() trims but GRO does not), ESP-in-UDP (6.12 hands those to us
 * too), ESP inside an outer tunnel before the tunnel device decapsulated
 * it, and SPIs without an SA. Packets too short to be ESP for their SA
 * are dropped and counted here.
 *
 * When xfrm has finished a packet, eso_rx_finish_cb() sees it: to count
 * asynchronous decryptions in flight (rx_steer.c) and, once a packet of
 * one of our SAs passed its ICV, to tell the stack which checksum the ICV
 * vouches for (see there).
 */

#include <crypto/aead.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <net/gro.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/xfrm.h>

#include "compat.h"
#include "esp_swoffload.h"

static struct xfrm_state *eso_rx_state(struct net *net, struct sk_buff *skb,
				       __be32 spi, bool ipv6)
{
	xfrm_address_t *daddr = ipv6 ?
		(xfrm_address_t *)&ipv6_hdr(skb)->daddr :
		(xfrm_address_t *)&ip_hdr(skb)->daddr;

	return eso_input_state_lookup(net, skb->mark, daddr, spi,
				      ipv6 ? AF_INET6 : AF_INET);
}

/*
 * Offset from the IPv6 header of the next-header byte that says ESP: after
 * decryption xfrm6_transport_finish() writes the inner protocol there
 * (through IP6CB(skb)->nhoff). @esp_off is where ESP starts.
 */
static unsigned int eso_ipv6_esp_nhoff(const struct sk_buff *skb,
				       unsigned int esp_off)
{
	const u8 *nh = skb_network_header(skb);
	unsigned int off = sizeof(struct ipv6hdr);
	unsigned int prev = offsetof(struct ipv6hdr, nexthdr);

	while (off < esp_off) {
		const struct ipv6_opt_hdr *eh = (const void *)(nh + off);

		prev = off;	/* nexthdr is the first byte of every ext header */
		off += ipv6_optlen(eh);
	}
	return off == esp_off && nh[prev] == IPPROTO_ESP ? prev : 0;
}

/* Does the network header's length say exactly what the frame holds? */
static bool eso_len_matches(const struct sk_buff *skb, bool ipv6)
{
	unsigned int from_nh = skb->len + (skb->data - skb_network_header(skb));

	if (ipv6)
		return ntohs(ipv6_hdr(skb)->payload_len) +
		       sizeof(struct ipv6hdr) == from_nh;
	return ntohs(ip_hdr(skb)->tot_len) == from_nh;
}

static struct sk_buff *eso_gro_receive(struct sk_buff *skb, bool ipv6)
{
	int offset = skb_gro_offset(skb);
	struct net *net = dev_net(skb->dev);
	struct xfrm_state *x;
	unsigned int min_len, nhoff = 0;
	struct sec_path *sp;
	__be32 seq, spi;
	bool had_sp;

	if (eso_gro_is_udp_encap(skb))
		goto not_ours;	/* ESP in UDP: the stock path's job */
	/*
	 * ESP inside an outer tunnel (GRE, IPIP, VXLAN...: encap_mark; FOU
	 * or GUE: is_fou), met by GRO while it walks the outer headers. The
	 * stock path has the tunnel decapsulate it first, and netfilter,
	 * routing (iif, rp_filter, VRF) and xfrm see it come from the tunnel
	 * device. Taken here, it would come from the device the outer packet
	 * came in on, past the outer packet's own checks; and the headers
	 * are not what the rest of this function expects (in 6.12, GRO no
	 * longer points the network header at the inner IP header). Left
	 * alone, it comes back to GRO from the tunnel device (gro_cells), as
	 * a packet of its own: ours then.
	 */
	if (NAPI_GRO_CB(skb)->encap_mark || NAPI_GRO_CB(skb)->is_fou)
		goto not_ours;
	if (!pskb_pull(skb, offset))
		return NULL;

	if (!eso_len_matches(skb, ipv6) ||
	    xfrm_parse_spi(skb, IPPROTO_ESP, &spi, &seq) != 0)
		goto push_back;
	if (ipv6) {
		nhoff = eso_ipv6_esp_nhoff(skb, skb->data -
						skb_network_header(skb));
		if (!nhoff)
			goto push_back;
	}

	sp = skb_sec_path(skb);
	had_sp = !!sp;
	/*
	 * Decrypted by the device already (NIC crypto offload): xfrm_input()
	 * finishes those on the ordinary path; one more transform here would
	 * decrypt the plaintext again.
	 */
	if (sp && sp->olen && (sp->ovec[sp->olen - 1].flags & CRYPTO_DONE))
		goto push_back;
	/*
	 * ESP inside a packet another SA already decapsulated (tunnel mode,
	 * whose inner packet comes back through GRO with sp->olen reset):
	 * one more transform would not make an offload entry xfrm_offload()
	 * can return. The non-GRO path handles nested transforms.
	 */
	if (sp && sp->len != sp->olen)
		goto push_back;
	sp = secpath_set(skb);
	if (!sp || sp->len == XFRM_MAX_DEPTH) {
		eso_count(net, ESO_RX_DROP_SECPATH);
		goto reset;
	}

	x = eso_rx_state(net, skb, spi, ipv6);
	if (!x) {
		eso_count(net, ESO_RX_DROP_NO_STATE);
		goto reset;
	}
	/*
	 * A larval SA (ALLOCSPI before the key manager's UPDSA, or an
	 * acquire) has no AEAD yet, and a dead or expired one is about to
	 * go: xfrm_input() drops and counts both, on the ordinary path.
	 */
	if (READ_ONCE(x->km.state) != XFRM_STATE_VALID || !x->data) {
		xfrm_state_put(x);
		goto reset;
	}

	min_len = sizeof(struct ip_esp_hdr) + crypto_aead_ivsize(x->data) +
		  crypto_aead_authsize(x->data);
	if (skb->len < min_len) {
		xfrm_state_put(x);
		eso_count(net, ESO_RX_DROP_TRUNCATED);
		kfree_skb(skb);
		return ERR_PTR(-EINPROGRESS);
	}

	/* The sec_path owns the reference on x from here on. */
	skb->mark = xfrm_smark_get(skb->mark, x);
	sp->xvec[sp->len++] = x;
	sp->olen++;

	xfrm_offload(skb)->flags |= XFRM_GRO;
	if (ipv6) {
		IP6CB(skb)->nhoff = nhoff;
		XFRM_TUNNEL_SKB_CB(skb)->tunnel.ip6 = NULL;
		XFRM_SPI_SKB_CB(skb)->family = AF_INET6;
		XFRM_SPI_SKB_CB(skb)->daddroff = offsetof(struct ipv6hdr, daddr);
	} else {
		XFRM_TUNNEL_SKB_CB(skb)->tunnel.ip4 = NULL;
		XFRM_SPI_SKB_CB(skb)->family = AF_INET;
		XFRM_SPI_SKB_CB(skb)->daddroff = offsetof(struct iphdr, daddr);
	}
	XFRM_SPI_SKB_CB(skb)->seq = seq;
	if (eso_null_nocrypt(x))
		eso_rx_null_done(x, skb);
	eso_count(net, ESO_RX_GRO_PACKETS);

	/*
	 * xfrm_input() owns the skb from here, on the SA's home CPU: it drops
	 * and counts (/proc/net/xfrm_stat) whatever fails ICV, replay or
	 * state checks.
	 */
	eso_rx_steer(skb, spi);
	return ERR_PTR(-EINPROGRESS);

reset:
	/* Only drop a sec_path we added; an outer SA's must survive. */
	if (!had_sp)
		secpath_reset(skb);
push_back:
	skb_push(skb, offset);
not_ours:
	NAPI_GRO_CB(skb)->same_flow = 0;
	NAPI_GRO_CB(skb)->flush = 1;
	return NULL;
}

struct sk_buff *eso_gro_receive4(struct list_head *head, struct sk_buff *skb)
{
	return eso_gro_receive(skb, false);
}

struct sk_buff *eso_gro_receive6(struct list_head *head, struct sk_buff *skb)
{
	return eso_gro_receive(skb, true);
}

/*
 * A packet that passed its SA's ICV is, bit for bit, what the peer sent:
 * no corruption on the way survives a 64- to 128-bit tag, and the 16-bit
 * one's complement sum of TCP/UDP can only repeat that verdict, by a full
 * pass over every payload byte. So, like WireGuard after Poly1305, the
 * checksum the ICV vouches for (eso_rx_icv_covers()) is marked
 * CHECKSUM_UNNECESSARY, and GRO and TCP skip that pass. SAs without an ICV
 * (esp-null with no auth) keep the check. Only SAs this module carries are
 * touched; for them this is also where a packet counts as decrypted.
 */
static bool csum_by_icv = true;	/* debugfs: N verifies them all */

/* The checksums an ICV can stand in for: TCP's and UDP's. */
static bool eso_l4_has_csum(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP;
}

/*
 * The one rule, for every mode: the ICV covers the ESP payload and nothing
 * else, so it vouches for one checksum at most, that of a TCP or UDP header
 * the payload carries directly, and only where that checksum's whole way,
 * from the host that computed it to the one that checks it, is the way the
 * ICV covers.
 *
 * Which header: in transport mode the payload is the transport packet, of
 * protocol @nexthdr (the ESP trailer's next header; the IP header still says
 * ESP when xfrm_rcv_cb() runs). In tunnel mode it is the inner IP packet:
 * the header is the one its IP header names (no IPv6 extension header in
 * between), unless the packet is a fragment, whose checksum covers bytes
 * of other packets. In BEET mode it is the transport packet again, behind
 * the IP header xfrm rebuilt for it, which names it. Whatever that TCP or
 * UDP payload carries in turn (VXLAN, say, in UDP) came from elsewhere,
 * hence csum_level 0: its checksums are checked as on the stock path.
 * Anything else (GRE, IPIP, ...) is a tunnel whose inner packets may go on
 * from here, with checksums the peer never looked at: nothing is vouched
 * for, and the packet keeps CHECKSUM_NONE.
 *
 * Whose way: in transport mode the peer is the packet's origin and this
 * host its destination. In tunnel and BEET mode the inner packet may come
 * from a host behind the peer (its checksum then also guards the hop to the
 * peer, which the ICV never saw: the peer forwards without checking it), or
 * go on from here (GRO must still check it before merging a forwarded
 * packet, whose checksum GSO would otherwise recompute over corrupted data).
 * So there only packets the peer itself sent (inner source = the SA's outer
 * source) to a local address count.
 */
static bool eso_rx_icv_covers(struct xfrm_state *x, struct sk_buff *skb,
			      int nexthdr)
{
	struct net *net = xs_net(x);

	if (x->props.mode == XFRM_MODE_TRANSPORT)
		return eso_l4_has_csum(nexthdr);
	if (ip_hdr(skb)->version == 4) {
		const struct iphdr *iph = ip_hdr(skb);

		return x->props.family == AF_INET &&
		       eso_l4_has_csum(iph->protocol) && !ip_is_fragment(iph) &&
		       iph->saddr == x->props.saddr.a4 &&
		       __ip_dev_find(net, iph->daddr, false);
	}
	return x->props.family == AF_INET6 &&
	       eso_l4_has_csum(ipv6_hdr(skb)->nexthdr) &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &x->props.saddr.in6) &&
	       ipv6_chk_addr(net, &ipv6_hdr(skb)->daddr, NULL, 0);
}

/*
 * @skb of our SA @x passed all its checks; @nexthdr is its ESP trailer's next
 * header. Mark the checksum the ICV vouches for as verified, if there is
 * one. Returns whether there was.
 */
bool eso_rx_trust_csum(struct xfrm_state *x, struct sk_buff *skb, int nexthdr)
{
	if (!csum_by_icv || !crypto_aead_authsize(x->data) ||
	    !eso_rx_icv_covers(x, skb, nexthdr))
		return false;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb->csum_level = 0;
	return true;
}

static void eso_rx_authenticated(struct sk_buff *skb)
{
	struct sec_path *sp = skb_sec_path(skb);
	struct xfrm_state *x;

	if (!sp || !sp->len)
		return;
	x = sp->xvec[sp->len - 1];
	if (!eso_state_is_ours(x))
		return;
	eso_count(xs_net(x), ESO_RX_DECRYPTED);
	/* xfrm_input() keeps the last transform's next header there */
	if (eso_rx_trust_csum(x, skb, XFRM_MODE_SKB_CB(skb)->protocol))
		eso_count(xs_net(x), ESO_RX_CSUM_BY_ICV);
}

/*
 * The hook: xfrm_input() ends every packet it finishes, after all its
 * transforms succeeded (@err 0) or when it drops it (@err -1), with
 * xfrm_rcv_cb(), which walks the protocol handlers of the family for the
 * last transform's protocol in priority order and calls each cb_handler
 * until one returns <= 0. That protocol is ESP, or AH or IPComp when the
 * ESP payload held another transform (IPComp inside ESP, in transport
 * mode). xfrm interfaces (10) and vti (100) end the walk for their
 * packets, so ours comes first in all three lists and returns 1:
 * rx_steer.c must see every packet it handed over finish, or its count
 * of packets in flight would never come down. Its receive and error
 * handlers decline every packet, leaving them to the others as before.
 * (With ah4/ipcomp4 not loaded, a stray AH or IPComp packet is now
 * refused by xfrm's handler, with ICMP port unreachable, instead of by
 * IP, with protocol unreachable.)
 */
static int eso_rx_finish_cb(struct sk_buff *skb, int err)
{
	eso_rx_finished(skb);
	if (!err)
		eso_rx_authenticated(skb);
	return 1;
}

static int eso_xfrm_decline(struct sk_buff *skb)
{
	return -EINVAL;
}

static int eso_xfrm_decline_input(struct sk_buff *skb, int nexthdr,
				  __be32 spi, int encap_type)
{
	return -EINVAL;
}

static int eso_xfrm4_err(struct sk_buff *skb, u32 info)
{
	return -ENOENT;
}

static int eso_xfrm6_err(struct sk_buff *skb, struct inet6_skb_parm *opt,
			 u8 type, u8 code, int offset, __be32 info)
{
	return -ENOENT;
}

/* Before esp4/esp6 (0), xfrm interfaces (10) and vti (100). */
#define ESO_XFRM_PRIO 200

static const u8 eso_rx_protos[] = { IPPROTO_ESP, IPPROTO_AH, IPPROTO_COMP };
#define ESO_NR_PROTOS ARRAY_SIZE(eso_rx_protos)

/* One handler per list: each links itself into its list (->next). */
static struct xfrm4_protocol eso_xfrm4[ESO_NR_PROTOS];
static struct xfrm6_protocol eso_xfrm6[ESO_NR_PROTOS];

static void eso_rx_cb_unregister(unsigned int n4, unsigned int n6)
{
	while (n6--)
		xfrm6_protocol_deregister(&eso_xfrm6[n6], eso_rx_protos[n6]);
	while (n4--)
		xfrm4_protocol_deregister(&eso_xfrm4[n4], eso_rx_protos[n4]);
}

int eso_rx_cb_init(void)
{
	unsigned int n4, n6;
	int err = 0;

	eso_debugfs_bool("csum_by_icv", &csum_by_icv);
	for (n4 = 0; n4 < ESO_NR_PROTOS && !err; n4++) {
		eso_xfrm4[n4] = (struct xfrm4_protocol) {
			.handler	= eso_xfrm_decline,
			.input_handler	= eso_xfrm_decline_input,
			.cb_handler	= eso_rx_finish_cb,
			.err_handler	= eso_xfrm4_err,
			.priority	= ESO_XFRM_PRIO,
		};
		err = xfrm4_protocol_register(&eso_xfrm4[n4], eso_rx_protos[n4]);
	}
	if (err) {
		eso_rx_cb_unregister(n4 - 1, 0);
		return err;
	}
	for (n6 = 0; n6 < ESO_NR_PROTOS && !err; n6++) {
		eso_xfrm6[n6] = (struct xfrm6_protocol) {
			.handler	= eso_xfrm_decline,
			.input_handler	= eso_xfrm_decline_input,
			.cb_handler	= eso_rx_finish_cb,
			.err_handler	= eso_xfrm6_err,
			.priority	= ESO_XFRM_PRIO,
		};
		err = xfrm6_protocol_register(&eso_xfrm6[n6], eso_rx_protos[n6]);
	}
	if (err)
		eso_rx_cb_unregister(n4, n6 - 1);
	return err;
}

/* Every deregistration waits for readers (synchronize_net()). */
void eso_rx_cb_exit(void)
{
	eso_rx_cb_unregister(ESO_NR_PROTOS, ESO_NR_PROTOS);
}
