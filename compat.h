/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that knows kernel versions (6.1 to 6.12): everything the
 * rest of the module needs that changed between them, as inline helpers.
 */
#ifndef _ESP_SWOFFLOAD_COMPAT_H
#define _ESP_SWOFFLOAD_COMPAT_H

#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <net/gro.h>
#include <net/xfrm.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#include <net/hotdata.h>	/* netdev_max_backlog became a field in 6.9 */
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#include <net/gso.h>	/* skb_eth_gso_segment() moved here in 6.4 */
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#include <linux/skbuff_ref.h>	/* skb_frag_unref() moved here in 6.9 */
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#include <net/page_pool/helpers.h>	/* split out of page_pool.h in 6.6 */
#else
#include <net/page_pool.h>
#endif
/* a pool that hands out fragments said so, until every pool did */
#ifdef PP_FLAG_PAGE_FRAG
#define ESO_PP_FLAGS PP_FLAG_PAGE_FRAG
#else
#define ESO_PP_FLAGS 0
#endif

/*
 * Since 6.5 the ESP-in-UDP GRO path calls the ESP gro_receive callback
 * too, marked with NAPI_GRO_CB(skb)->proto == IPPROTO_UDP.
 */
static inline bool eso_gro_is_udp_encap(struct sk_buff *skb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return NAPI_GRO_CB(skb)->proto == IPPROTO_UDP;
#else
	return false;
#endif
}

/* The inbound SA for a packet, as the stock GRO path looks it up. */
static inline struct xfrm_state *
eso_input_state_lookup(struct net *net, u32 mark, xfrm_address_t *daddr,
		       __be32 spi, unsigned short family)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	struct xfrm_state *x;

	x = xfrm_input_state_lookup(net, mark, daddr, spi, IPPROTO_ESP, family);
	/* an SA pinned to the output direction is not for input */
	if (x && x->dir && x->dir != XFRM_SA_DIR_IN) {
		xfrm_state_put(x);
		x = NULL;
	}
	return x;
#else
	return xfrm_state_lookup(net, mark, daddr, spi, IPPROTO_ESP, family);
#endif
}

/* What xfrm_input() notes of an SA that took a packet: 6.12 its last use. */
static inline void eso_state_used_in(struct xfrm_state *x)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	x->lastused = ktime_get_real_seconds();
#endif
}

/* A device for NAPI instances that belong to no real device. */
static inline struct net_device *eso_alloc_napi_dev(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return alloc_netdev_dummy(0);
#else
	struct net_device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (dev)
		init_dummy_netdev(dev);
	return dev;
#endif
}

static inline void eso_free_napi_dev(struct net_device *dev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	free_netdev(dev);
#else
	kfree(dev);
#endif
}

/* The per-CPU backlog limit, which also bounds xfrm's gro_cells. */
static inline int eso_max_backlog(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	return READ_ONCE(net_hotdata.max_backlog);
#else
	return READ_ONCE(netdev_max_backlog);
#endif
}

/*
 * Does @dev run tc or netfilter egress hooks, which may hand its packets
 * on to another device (mirred, bpf_redirect(), nft fwd and dup)? tc's
 * egress entry moved from miniq_egress (set while filters exist) to
 * tcx_egress (set while clsact or a tcx program is attached) in 6.6.
 */
static inline bool eso_dev_has_egress_hooks(const struct net_device *dev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#ifdef CONFIG_NET_XGRESS
	if (rcu_access_pointer(dev->tcx_egress))
		return true;
#endif
#elif defined(CONFIG_NET_CLS_ACT)
	if (rcu_access_pointer(dev->miniq_egress))
		return true;
#endif
#ifdef CONFIG_NETFILTER_EGRESS
	if (rcu_access_pointer(dev->nf_hooks_egress))
		return true;
#endif
	return false;
}

#endif /* _ESP_SWOFFLOAD_COMPAT_H */
