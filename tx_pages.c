// SPDX-License-Identifier: GPL-2.0
/*
 * TX: the payload of each segment to be encrypted, copied into a page of
 * the module's own, from a per-CPU page_pool.
 *
 * A segment is encrypted in place, so its payload must be a copy: the
 * pages of the TCP write queue stay untouched for retransmission. Left to
 * skb_segment(), that copy goes into a linear skb head of about 2 KB,
 * freshly allocated for every segment, which Debian's kernels zero first
 * (CONFIG_INIT_ON_ALLOC_DEFAULT_ON): an allocation and a pass over its
 * memory per segment, on top of the copy. Here the segmentation only
 * references TCP's pages (NETIF_F_SG) and leaves the inner checksum to
 * us (NETIF_F_HW_CSUM); the copy and the checksum are then one pass into
 * a page fragment that came back from an earlier segment: page_pool
 * recycles a page when the last skb that holds it is freed, on any CPU,
 * and does not zero it again.
 *
 * Behind the payload the fragment keeps ESO_TX_TAILROOM bytes, where
 * eso_tx_pages_trailer() puts the ESP trailer and the ICV, so that the
 * encryption stays in place (esp_output_head() would otherwise append the
 * trailer in a page of the SA's and encrypt out of place).
 *
 * A receiver finds the payload in a page fragment, not in a kmalloc()ed
 * head: GRO moves such fragments into the first packet of a flow and
 * frees the others at once, instead of chaining them whole in its
 * frag_list, each with its sec_path (and its SA) until the last byte
 * was read.
 */

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/checksum.h>
#include <net/esp.h>
#include <net/xfrm.h>

#include "compat.h"
#include "esp_swoffload.h"

/* Room for the trailer behind the payload: padding, pad length, next header, ICV */
#define ESO_TX_TAILROOM 128

/* Pages each CPU's pool keeps for reuse (in its ring): 2 MB */
#define ESO_TX_POOL_PAGES 512

static DEFINE_PER_CPU(struct page_pool *, eso_tx_pool);

/*
 * esp-null's trailers, ready made: an esp-null segment keeps TCP's pages
 * (nothing is encrypted), and its trailer (0-3 bytes of padding 1, 2, 3,
 * the pad length, the next header) depends on its length and protocol
 * only. Each CPU has every one of them in a page pair of its own, slot
 * (proto * 4 + padding) of ESO_NULL_SLOT bytes, and a segment takes a
 * reference to its slot instead of a trailer fragment written for it
 * under the SA's lock (esp_output_head()). The pages are only ever read:
 * their fragments are marked shared, so that nothing writes in place.
 */
#define ESO_NULL_SLOT		8
#define ESO_NULL_ORDER		1	/* 256 protocols * 4 paddings * 8 bytes */
static DEFINE_PER_CPU(struct page *, eso_null_trailers);

/* debugfs: N leaves the copy to skb_segment(), into new skb heads */
static bool tx_recycle = true;

/* Should @x's segments be left with TCP's pages, for eso_tx_pages_own()? */
bool eso_tx_pages_wanted(const struct xfrm_state *x)
{
	/* the trailer of TFC padding or UDP encapsulation is not ours to place */
	return READ_ONCE(tx_recycle) && !x->tfcpad && !x->encap;
}

/*
 * The inner checksum that segmentation left to us (CHECKSUM_PARTIAL), as
 * skb_checksum_help() computes it: the covered bytes in the head, then
 * @payload_csum, the sum of the paged bytes behind them.
 */
static void eso_tx_csum_finish(struct sk_buff *skb, __wsum payload_csum)
{
	u8 *start = skb->head + skb->csum_start;
	unsigned int hlen = skb_tail_pointer(skb) - start;
	__wsum csum;

	csum = csum_block_add(csum_partial(start, hlen, 0), payload_csum, hlen);
	*(__sum16 *)(start + skb->csum_offset) = csum_fold(csum) ?: CSUM_MANGLED_0;
	skb->ip_summed = CHECKSUM_NONE;
}

/* Can @skb's paged data be replaced by a copy in one fragment of ours? */
static bool eso_tx_pages_fit(struct sk_buff *skb)
{
	if (!skb->data_len || skb_cloned(skb) || skb_has_frag_list(skb) ||
	    skb_zcopy(skb))
		return false;
	/* the checksum's start and field in the head, the rest in pages */
	if (skb->ip_summed == CHECKSUM_PARTIAL &&
	    skb->head + skb->csum_start + skb->csum_offset + sizeof(__sum16) >
	    skb_tail_pointer(skb))
		return false;
	return skb->data_len + ESO_TX_TAILROOM <= PAGE_SIZE;
}

/*
 * Copy @skb's paged data into a fragment of this CPU's pool (BH off). The
 * fragment's room for the trailer is charged now, as esp_output_head()
 * charges a trailer it appends: to the skb and to its socket.
 */
static bool eso_tx_pages_copy(struct sk_buff *skb)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	unsigned int len = skb->data_len, off;
	struct sock *sk = skb->sk;
	struct page *page;
	__wsum csum;
	int i;

	if (!eso_tx_pages_fit(skb))
		return false;
	page = page_pool_alloc_frag(this_cpu_read(eso_tx_pool), &off,
				    len + ESO_TX_TAILROOM,
				    GFP_ATOMIC | __GFP_NOWARN);
	if (!page)
		return false;

	csum = skb_copy_and_csum_bits(skb, skb_headlen(skb),
				      page_address(page) + off, len);
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		eso_tx_csum_finish(skb, csum);

	for (i = 0; i < shinfo->nr_frags; i++)
		skb_frag_unref(skb, i);
	__skb_fill_page_desc(skb, 0, page, off, len);
	shinfo->nr_frags = 1;
	shinfo->flags &= ~SKBFL_SHARED_FRAG;
	skb_mark_for_recycle(skb);
	skb->truesize += ESO_TX_TAILROOM;
	if (sk && sk_fullsock(sk))
		refcount_add(ESO_TX_TAILROOM, &sk->sk_wmem_alloc);
	return true;
}

/*
 * Give every segment in @segs (segmented with NETIF_F_SG | NETIF_F_HW_CSUM)
 * its payload in a page of ours, or, where that cannot be, make it what
 * skb_segment() makes without NETIF_F_SG: linear, with its checksum
 * filled in. So a segment of an SA that reaches eso_xmit() nonlinear is
 * one of ours.
 */
int eso_tx_pages_own(struct xfrm_state *x, struct sk_buff *segs)
{
	struct net *net = xs_net(x);
	unsigned int n = 0, linear = 0;
	struct sk_buff *skb;
	int err = 0;

	local_bh_disable();	/* the pool's allocation side is per CPU */
	for (skb = segs; skb; skb = skb->next) {
		if (eso_tx_pages_copy(skb)) {
			n++;
			continue;
		}
		if (skb->ip_summed == CHECKSUM_PARTIAL)
			err = skb_checksum_help(skb);
		if (!err)
			err = __skb_linearize(skb);
		if (err)
			break;
		linear++;
	}
	local_bh_enable();
	eso_count_add(net, ESO_TX_RECYCLED, n);
	eso_count_add(net, ESO_TX_LINEAR_COPIES, linear);
	return err;
}

/*
 * esp_output_head() for a segment that eso_tx_pages_own() gave a page:
 * the trailer goes into the room behind the payload, and the encryption
 * stays in place. Returns the scatterlist entries esp_output_tail()
 * needs, or 0 if @skb is not such a segment (or the trailer too long).
 */
int eso_tx_pages_trailer(struct sk_buff *skb, struct esp_info *esp)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	skb_frag_t *frag;

	if (shinfo->nr_frags != 1 || !skb->pp_recycle || skb_cloned(skb) ||
	    skb_has_frag_list(skb) || esp->tailen > ESO_TX_TAILROOM)
		return 0;

	frag = &shinfo->frags[0];
	esp_output_fill_trailer(skb_frag_address(frag) + skb_frag_size(frag),
				esp->tfclen, esp->plen, esp->proto);
	skb_frag_size_add(frag, esp->tailen);
	/* not skb_len_add(): the room is in skb->truesize already */
	skb->len += esp->tailen;
	skb->data_len += esp->tailen;
	return 2;	/* the head from the ESP header on, the fragment */
}

/*
 * The trailer of esp-null segment @skb (no TFC padding), as a fragment of
 * this CPU's ready-made trailers. Returns the scatterlist entries it would
 * need, or 0 if @skb takes no more fragments (esp_output_head() then).
 */
int eso_tx_null_trailer(struct sk_buff *skb, const struct esp_info *esp)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	unsigned int pad = esp->plen - 2;
	struct page *page;

	if (esp->tfclen || pad > 3 || shinfo->nr_frags >= MAX_SKB_FRAGS ||
	    skb_has_frag_list(skb) || skb_cloned(skb))
		return 0;
	page = this_cpu_read(eso_null_trailers);
	get_page(page);
	__skb_fill_page_desc(skb, shinfo->nr_frags++, page,
			     (esp->proto * 4 + pad) * ESO_NULL_SLOT, esp->plen);
	shinfo->flags |= SKBFL_SHARED_FRAG;
	skb->len += esp->plen;
	skb->data_len += esp->plen;
	return shinfo->nr_frags + 1;
}

static int eso_null_trailers_init(unsigned int cpu)
{
	struct page *page;
	unsigned int proto, pad, i;
	u8 *p;

	page = alloc_pages_node(cpu_to_node(cpu), GFP_KERNEL | __GFP_COMP,
				ESO_NULL_ORDER);
	if (!page)
		return -ENOMEM;
	p = page_address(page);
	for (proto = 0; proto < 256; proto++) {
		for (pad = 0; pad < 4; pad++, p += ESO_NULL_SLOT) {
			for (i = 0; i < pad; i++)
				p[i] = i + 1;
			p[pad] = pad;
			p[pad + 1] = proto;
		}
	}
	per_cpu(eso_null_trailers, cpu) = page;
	return 0;
}

int eso_tx_pages_init(void)
{
	struct page_pool_params pp = {
		.flags = ESO_PP_FLAGS,
		.order = 0,
		.pool_size = ESO_TX_POOL_PAGES,
		.nid = NUMA_NO_NODE,
	};
	unsigned int cpu;

	eso_debugfs_bool("tx_recycle", &tx_recycle);
	for_each_possible_cpu(cpu) {
		struct page_pool *pool = page_pool_create(&pp);

		if (IS_ERR(pool)) {
			eso_tx_pages_exit();
			return PTR_ERR(pool);
		}
		per_cpu(eso_tx_pool, cpu) = pool;
		if (eso_null_trailers_init(cpu)) {
			eso_tx_pages_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Pages still in skbs keep their pool: page_pool_destroy() leaves it to
 * the kernel to free once the last one is back. Nothing there calls into
 * this module; the trailer pages, too, go when their last fragment does.
 */
void eso_tx_pages_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct page *page = per_cpu(eso_null_trailers, cpu);

		if (per_cpu(eso_tx_pool, cpu))
			page_pool_destroy(per_cpu(eso_tx_pool, cpu));
		per_cpu(eso_tx_pool, cpu) = NULL;
		if (page)
			put_page(page);	/* compound: freed whole by the last put */
		per_cpu(eso_null_trailers, cpu) = NULL;
	}
}
