// SPDX-License-Identifier: GPL-2.0
/*
 * TX of SAs whose crypto a NIC does: `ip xfrm state ... offload dev X dir
 * out`, strongSwan's hw_offload. xfrm_dev_state_add() binds such an SA to
 * the device only if the SA has a type_offload, which is this module's
 * while it is loaded (esp4_offload and esp6_offload cannot load next to
 * it), so the module does for these SAs what those modules do, and only
 * that (esp_xmit() and esp4_gso_segment() in net/ipv4/esp4_offload.c,
 * esp6_xmit() and esp6_gso_segment() in net/ipv6/esp6_offload.c, of which
 * the code below is a copy):
 *
 * - a packet that leaves by the SA's device, which has NETIF_F_HW_ESP, gets
 *   its ESP header, sequence number and, unless the device segments it
 *   (NETIF_F_GSO_ESP), its trailer, and is marked XFRM_XMIT with its
 *   sec_path kept: validate_xmit_xfrm() passes it on and the driver, which
 *   finds the SA in the sec_path, encrypts it;
 * - any other packet of the SA (rerouted to another device, or the device
 *   lost NETIF_F_HW_ESP) is encrypted here, in software, by the SA's AEAD
 *   (CRYPTO_FALLBACK), as those modules do.
 *
 * A GSO packet the device does not segment itself is segmented with the
 * device's checksum features, and each segment numbered here, in the order
 * validate_xmit_xfrm() hands them over, from the numbers xfrm reserved
 * (the segments share one xfrm_offload). None of the module's own TX paths
 * applies to these SAs: batch encryption, TFC padding (xfrm_dev_state_add()
 * refuses it), the TX order section, recycled pages. The driver expects the
 * packets esp_xmit() makes.
 *
 * ESP in UDP (6.12 offloads its crypto too: x->encap with a device) takes
 * the trailer and the UDP header from esp_output_head() as there.
 */

#include <crypto/aead.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/esp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/xfrm.h>

#include "esp_swoffload.h"

/* The first such SA gets a line in the kernel log; the others work the same. */
static void eso_nic_note(struct xfrm_state *x)
{
	pr_info_once(ESO_NAME ": SA spi 0x%08x has NIC crypto offload (offload dev %s): its packets are left for the device to encrypt, as esp4_offload/esp6_offload do, and get none of this module's TX paths\n",
		     ntohl(x->id.spi), netdev_name(x->xso.dev));
}

/* May the device that @skb leaves by encrypt it for @x? As esp_xmit(). */
static bool eso_nic_hw(struct xfrm_state *x, struct sk_buff *skb,
		       netdev_features_t features, bool ipv6)
{
	/* esp6_xmit() does not look at gso_partial_features */
	if (!(features & NETIF_F_HW_ESP) &&
	    (ipv6 || !(skb->dev->gso_partial_features & NETIF_F_HW_ESP)))
		return false;
	return x->xso.dev == skb->dev;
}

/*
 * The features to segment a GSO packet of a NIC's SA with, leaving by
 * @dev, as esp4_gso_segment() and esp6_gso_segment() compute them (they
 * take skb->dev, which eso_out_dev() stands in for): the device's
 * scatter-gather and checksumming where it encrypts, none where the
 * segments are encrypted in software.
 */
netdev_features_t eso_nic_gso_features(struct xfrm_state *x,
				       struct net_device *dev,
				       netdev_features_t features, bool ipv6)
{
	netdev_features_t partial = ipv6 ? 0 : dev->gso_partial_features;

	if ((!(partial & NETIF_F_HW_ESP) && !(features & NETIF_F_HW_ESP)) ||
	    x->xso.dev != dev)
		return features & ~(NETIF_F_SG | NETIF_F_CSUM_MASK |
				    NETIF_F_SCTP_CRC);
	if (!(features & NETIF_F_HW_ESP_TX_CSUM) &&
	    !(partial & NETIF_F_HW_ESP_TX_CSUM))
		return features & ~(NETIF_F_CSUM_MASK | NETIF_F_SCTP_CRC);
	return features;
}

/* type_offload->xmit for a NIC's SA (x->xso.dev): esp_xmit(), esp6_xmit() */
int eso_nic_xmit(struct xfrm_state *x, struct sk_buff *skb,
		 netdev_features_t features, bool ipv6)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	struct crypto_aead *aead = x->data;
	bool hw, udp = false;
	struct esp_info esp;
	int blksize, err;
	u32 seq;

	if (!xo)
		return -EINVAL;
	eso_nic_note(x);
	hw = eso_nic_hw(x, skb, features, ipv6);
	if (!hw)
		xo->flags |= CRYPTO_FALLBACK;
	if (x->encap)
		udp = x->encap->encap_type == UDP_ENCAP_ESPINUDP;

	esp.inplace = true;
	esp.proto = xo->proto;
	esp.tfclen = 0;
	blksize = ALIGN(crypto_aead_blocksize(aead), 4);
	esp.clen = ALIGN(skb->len + 2 + esp.tfclen, blksize);
	esp.plen = esp.clen - skb->len - esp.tfclen;
	esp.tailen = esp.tfclen + esp.plen + crypto_aead_authsize(aead);
	esp.esph = ip_esp_hdr(skb);

	/* the device segments a GSO packet and adds each trailer itself */
	if (!hw || !skb_is_gso(skb) || udp) {
		esp.nfrags = eso_output_head(x, skb, &esp, ipv6);
		if (esp.nfrags < 0)
			return esp.nfrags;
	}

	seq = xo->seq.low;
	esp.esph->spi = x->id.spi;
	skb_push(skb, -skb_network_offset(skb));
	if (xo->flags & XFRM_GSO_SEGMENT) {
		esp.esph->seq_no = htonl(seq);
		if (!skb_is_gso(skb))
			xo->seq.low++;
		else
			xo->seq.low += skb_shinfo(skb)->gso_segs;
	}
	if (xo->seq.low < seq)
		xo->seq.hi++;
	esp.seqno = cpu_to_be64(seq + ((u64)xo->seq.hi << 32));
	if (ipv6) {
		unsigned int len = skb->len - sizeof(struct ipv6hdr);

		ipv6_hdr(skb)->payload_len = htons(len > IPV6_MAXPLEN ? 0 : len);
	} else {
		if (hw && udp) {
			/*
			 * esp_output_head() put the UDP header in front of
			 * ESP but did not say so in the IP header: it writes
			 * the protocol through the mac header, which points
			 * elsewhere here (esp_xmit()).
			 */
			ip_hdr(skb)->protocol = IPPROTO_UDP;
			esp.esph->seq_no = htonl(seq);
		}
		ip_hdr(skb)->tot_len = htons(skb->len);
		ip_send_check(ip_hdr(skb));
	}

	if (hw) {
		/* the sec_path is the driver's now: a private copy */
		if (!skb_ext_add(skb, SKB_EXT_SEC_PATH))
			return -ENOMEM;
		xo = xfrm_offload(skb);
		if (!xo)
			return -EINVAL;
		xo->flags |= XFRM_XMIT;
		return 0;
	}

	err = eso_output_tail(x, skb, &esp, ipv6);
	if (err)
		return err;
	secpath_reset(skb);
	if (skb_needs_linearize(skb, skb->dev->features) &&
	    __skb_linearize(skb))
		return -ENOMEM;
	return 0;
}
