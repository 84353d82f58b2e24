// SPDX-License-Identifier: GPL-2.0
/*
 * esp_nicsim: a test fixture for selftests/75-nicoffload.sh, not part of
 * esp_swoffload. Two Ethernet devices, esonic0 and esonic1, wired to each
 * other, that offer IPsec crypto offload (NETIF_F_HW_ESP) the way a NIC
 * does, without the crypto: an SA added with `offload dev esonicN` is
 * accepted (xdo_dev_state_add), and
 *
 * - TX: a packet that reaches the driver marked XFRM_XMIT with a sec_path
 *   whose SA is offloaded to this device is one the stack left for the NIC
 *   to encrypt: it is counted (xmit_offloaded) and crosses to the peer as
 *   it is, ESP header, plaintext and trailer. Any other ESP packet is
 *   counted as xmit_esp_plain (encrypted in software: no sec_path).
 * - RX: an ESP packet for an SA offloaded to the receiving device in
 *   direction in gets a sec_path with CRYPTO_DONE and CRYPTO_SUCCESS, as
 *   a NIC that decrypted it would give it (rx_decrypted); xfrm_input() then
 *   checks its sequence number against the replay window and strips it
 *   with the type_offload's input_tail.
 *
 * So TCP between two namespaces over the pair works end to end only if
 * every packet of an offloaded SA is handed to the driver whole, numbered
 * in order and with its trailer. No GSO_ESP and no ESP checksum offload:
 * the fixture would have to segment and checksum what a NIC does.
 * Counters in /sys/kernel/debug/esp_nicsim/<dev>.
 */

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/version.h>
#include <net/ip.h>
#include <net/esp.h>
#include <net/ipv6.h>
#include <net/xfrm.h>

struct nicsim {
	struct net_device *peer;
	atomic64_t xmit_offloaded;
	atomic64_t xmit_esp_plain;
	atomic64_t rx_decrypted;
	atomic64_t tx_packets, tx_bytes, rx_packets, rx_bytes;
	atomic_t sas;
};

static struct net_device *nicsim_dev[2];
static struct dentry *nicsim_dir;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static int nicsim_state_add(struct xfrm_state *x, struct netlink_ext_ack *extack)
#else
static int nicsim_state_add(struct xfrm_state *x)
#endif
{
	struct nicsim *ns = netdev_priv(x->xso.real_dev);

	if (x->id.proto != IPPROTO_ESP || !x->aead)
		return -EINVAL;
	atomic_inc(&ns->sas);
	/* the stack wants a handle that is not 0 */
	x->xso.offload_handle = 1;
	return 0;
}

static void nicsim_state_delete(struct xfrm_state *x)
{
	struct nicsim *ns = netdev_priv(x->xso.real_dev);

	atomic_dec(&ns->sas);
}

static bool nicsim_offload_ok(struct sk_buff *skb, struct xfrm_state *x)
{
	return true;
}

static const struct xfrmdev_ops nicsim_xfrmdev_ops = {
	.xdo_dev_state_add	= nicsim_state_add,
	.xdo_dev_state_delete	= nicsim_state_delete,
	.xdo_dev_offload_ok	= nicsim_offload_ok,
};

/* ESP header of an IPv4/IPv6 packet at skb->data (no extension headers) */
static struct ip_esp_hdr *nicsim_esp(struct sk_buff *skb, xfrm_address_t **daddr,
				     unsigned short *family)
{
	unsigned int off;

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph;

		if (!pskb_may_pull(skb, sizeof(*iph)))
			return NULL;
		iph = ip_hdr(skb);
		if (iph->protocol != IPPROTO_ESP)
			return NULL;
		off = iph->ihl * 4;
		*daddr = (xfrm_address_t *)&iph->daddr;
		*family = AF_INET;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h;

		if (!pskb_may_pull(skb, sizeof(*ip6h)))
			return NULL;
		ip6h = ipv6_hdr(skb);
		if (ip6h->nexthdr != IPPROTO_ESP)
			return NULL;
		off = sizeof(*ip6h);
		*daddr = (xfrm_address_t *)&ip6h->daddr;
		*family = AF_INET6;
	} else {
		return NULL;
	}
	if (!pskb_may_pull(skb, off + sizeof(struct ip_esp_hdr)))
		return NULL;
	skb_set_transport_header(skb, off);
	/* pskb_may_pull() may have moved the headers */
	if (*family == AF_INET)
		*daddr = (xfrm_address_t *)&ip_hdr(skb)->daddr;
	else
		*daddr = (xfrm_address_t *)&ipv6_hdr(skb)->daddr;
	return ip_esp_hdr(skb);
}

/* What a NIC that decrypted the packet would hand up. */
static void nicsim_rx_offload(struct net_device *dev, struct sk_buff *skb)
{
	struct nicsim *ns = netdev_priv(dev);
	struct xfrm_offload *xo;
	struct ip_esp_hdr *esph;
	xfrm_address_t *daddr;
	unsigned short family;
	struct xfrm_state *x;
	struct sec_path *sp;

	skb_reset_network_header(skb);
	esph = nicsim_esp(skb, &daddr, &family);
	if (!esph)
		return;
	x = xfrm_state_lookup(dev_net(dev), skb->mark, daddr, esph->spi,
			      IPPROTO_ESP, family);
	if (!x)
		return;
	if (x->xso.dev != dev || x->xso.dir != XFRM_DEV_OFFLOAD_IN) {
		xfrm_state_put(x);
		return;
	}
	sp = secpath_set(skb);
	if (!sp || sp->len == XFRM_MAX_DEPTH) {
		xfrm_state_put(x);
		return;
	}
	sp->xvec[sp->len++] = x;
	sp->olen++;
	xo = xfrm_offload(skb);
	xo->flags = CRYPTO_DONE;
	xo->status = CRYPTO_SUCCESS;
	skb->ip_summed = CHECKSUM_NONE;
	atomic64_inc(&ns->rx_decrypted);
}

static netdev_tx_t nicsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct nicsim *ns = netdev_priv(dev);
	struct net_device *peer = ns->peer;
	struct xfrm_offload *xo = xfrm_offload(skb);
	struct sec_path *sp = skb_sec_path(skb);
	unsigned int len = skb->len;

	if (sp && sp->len && xo && (xo->flags & XFRM_XMIT) &&
	    sp->xvec[sp->len - 1]->xso.dev == dev) {
		atomic64_inc(&ns->xmit_offloaded);
	} else if ((skb->protocol == htons(ETH_P_IP) &&
		    ip_hdr(skb)->protocol == IPPROTO_ESP) ||
		   (skb->protocol == htons(ETH_P_IPV6) &&
		    ipv6_hdr(skb)->nexthdr == IPPROTO_ESP)) {
		atomic64_inc(&ns->xmit_esp_plain);
	}
	atomic64_inc(&ns->tx_packets);
	atomic64_add(len, &ns->tx_bytes);

	/* the sec_path goes with the rest of the sender's state */
	if (__dev_forward_skb(peer, skb))
		return NETDEV_TX_OK;	/* freed, counted by the core */
	nicsim_rx_offload(peer, skb);
	skb_reset_network_header(skb);
	if (netif_rx(skb) == NET_RX_SUCCESS) {
		struct nicsim *pn = netdev_priv(peer);

		atomic64_inc(&pn->rx_packets);
		atomic64_add(len, &pn->rx_bytes);
	}
	return NETDEV_TX_OK;
}

static void nicsim_get_stats64(struct net_device *dev,
			       struct rtnl_link_stats64 *s)
{
	struct nicsim *ns = netdev_priv(dev);

	s->tx_packets = atomic64_read(&ns->tx_packets);
	s->tx_bytes = atomic64_read(&ns->tx_bytes);
	s->rx_packets = atomic64_read(&ns->rx_packets);
	s->rx_bytes = atomic64_read(&ns->rx_bytes);
}

static const struct net_device_ops nicsim_ops = {
	.ndo_start_xmit		= nicsim_xmit,
	.ndo_get_stats64	= nicsim_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
};

static int nicsim_show(struct seq_file *m, void *v)
{
	struct nicsim *ns = netdev_priv(m->private);

	seq_printf(m, "sas %d\nxmit_offloaded %lld\nxmit_esp_plain %lld\nrx_decrypted %lld\n",
		   atomic_read(&ns->sas), atomic64_read(&ns->xmit_offloaded),
		   atomic64_read(&ns->xmit_esp_plain),
		   atomic64_read(&ns->rx_decrypted));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nicsim);

static void nicsim_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &nicsim_ops;
	dev->xfrmdev_ops = &nicsim_xfrmdev_ops;
	dev->needs_free_netdev = true;
	dev->features |= NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HW_ESP;
	dev->hw_features |= NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HW_ESP;
	dev->hw_enc_features |= NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HW_ESP;
	eth_hw_addr_random(dev);
}

static int __init nicsim_init(void)
{
	int i, reg = 0, err = -ENOMEM;

	for (i = 0; i < 2; i++) {
		nicsim_dev[i] = alloc_netdev(sizeof(struct nicsim), "esonic%d",
					     NET_NAME_ENUM, nicsim_setup);
		if (!nicsim_dev[i])
			goto fail;
	}
	for (i = 0; i < 2; i++)
		((struct nicsim *)netdev_priv(nicsim_dev[i]))->peer =
			nicsim_dev[!i];
	for (reg = 0; reg < 2; reg++) {
		err = register_netdev(nicsim_dev[reg]);
		if (err)
			goto fail;
	}
	nicsim_dir = debugfs_create_dir("esp_nicsim", NULL);
	for (i = 0; i < 2; i++)
		debugfs_create_file(netdev_name(nicsim_dev[i]), 0400, nicsim_dir,
				    nicsim_dev[i], &nicsim_fops);
	return 0;
fail:
	/* an unregistered device frees itself: needs_free_netdev */
	for (i = 0; i < 2; i++) {
		if (i < reg)
			unregister_netdev(nicsim_dev[i]);
		else if (nicsim_dev[i])
			free_netdev(nicsim_dev[i]);
	}
	return err;
}

static void __exit nicsim_exit(void)
{
	debugfs_remove_recursive(nicsim_dir);
	rtnl_lock();
	unregister_netdevice(nicsim_dev[0]);
	unregister_netdevice(nicsim_dev[1]);
	rtnl_unlock();
}

module_init(nicsim_init);
module_exit(nicsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("esp_swoffload test fixture: a device pair with IPsec crypto offload and no crypto");
