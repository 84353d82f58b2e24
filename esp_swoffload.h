/* SPDX-License-Identifier: GPL-2.0 */
/*
 * esp_swoffload: software GSO/GRO offload for IPsec ESP.
 *
 * Shared declarations of the module's files:
 *   esp_offload.c  module init/exit, registration, conflict checks
 *   esp_gso.c      TX: ESP header built once, late segmentation
 *   esp_gro.c      RX: ESP taken at GRO time, handed to xfrm; inner
 *                  checksums trusted once the ICV verified
 *   xfrm_hooks.c   xfrm_type_offload callbacks: per-segment encryption,
 *                  input tail, async completion accounting; batch
 *                  encryption of a GSO packet and decryption of an RX run
 *                  for our ChaCha20-Poly1305 and AES-GCM
 *   rx_steer.c     in-order hand-off of each SA's packets on one CPU
 *   rx_decap.c     RX: a run of one SA's packets finished without xfrm_input()
 *   tx_order.c     TX: an SA's packets reach the device in number order
 *   tx_pages.c     TX: segment payloads copied into recycled pages
 *   tx_nic.c       TX of SAs whose crypto a NIC does, as esp4_offload's
 *   stats.c        per-netns counters in /proc/net/esp_swoffload
 *   debugfs.c      switches for tests in /sys/kernel/debug/esp_swoffload
 */
#ifndef _ESP_SWOFFLOAD_H
#define _ESP_SWOFFLOAD_H

#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <net/netns/generic.h>
#include <net/xfrm.h>

#define ESO_NAME "esp_swoffload"

/* Counters, one set per network namespace; see stats.c for the names. */
enum eso_counter {
	ESO_TX_GSO_SKBS,	/* GSO super-packets segmented by us */
	ESO_TX_SEGMENTS,	/* ESP packets encrypted by us */
	ESO_TX_BATCHED,		/* ...of which in one batch per GSO packet */
	ESO_TX_NULL,		/* ...of which esp-null, without a crypto call */
	ESO_TX_ASYNC,		/* encryptions completed asynchronously */
	ESO_TX_ASYNC_NOQUEUE,	/* ... on a device without a qdisc (broken) */
	ESO_TX_ERRORS,		/* encryptions that failed; skb dropped */
	ESO_TX_RECYCLED,	/* segments whose payload went into our pages */
	ESO_TX_LINEAR_COPIES,	/* ...that did not fit one: copied linear */
	ESO_TX_RENUMBERED,	/* given fresh numbers: overtaken, or DODGY */
	ESO_TX_BACKLOG_DROPPED,	/* held back by xfrm_backlog, no qdisc */
	ESO_RX_GRO_PACKETS,	/* ESP packets taken at GRO, handed to xfrm */
	ESO_RX_DECRYPTED,	/* our SAs' packets xfrm decrypted and verified */
	ESO_RX_BATCHED,		/* ...decrypted by us in one batch per run */
	ESO_RX_BATCH_ESN_STALE,	/* ...whose ESN high bits xfrm then saw moved */
	ESO_RX_NULL,		/* esp-null packets given to xfrm as CRYPTO_DONE */
	ESO_RX_NULL_CSUM_KEPT,	/* ...of which arrived with checksums verified */
	ESO_RX_DECAPPED,	/* finished by us, not xfrm_input() (rx_decap.c) */
	ESO_RX_CSUM_BY_ICV,	/* inner checksums vouched for by the ICV */
	ESO_RX_ASYNC,		/* decryptions completed asynchronously */
	ESO_RX_ASYNC_THROTTLED,	/* RX paused: too many async decryptions */
	ESO_RX_DROP_TRUNCATED,	/* shorter than ESP header + IV + ICV */
	ESO_RX_DROP_NO_STATE,	/* no SA for this SPI: left to the stack */
	ESO_RX_DROP_SECPATH,	/* secpath allocation or depth */
	ESO_RX_DROP_BACKLOG,	/* home CPU's queue full */
	ESO_RX_STEERED,		/* handed to another CPU to keep order */
	ESO_RX_REHOMED,		/* SA homes moved off their receiving CPU */
	ESO_RX_REHOME_FORCED,	/* ...completed before the old home drained */
	ESO_RX_CPU_OFFLINE,	/* queued on a CPU that went offline */
	ESO_FALLBACK_GSO_BAD,	/* GSO skb we cannot segment as ESP */
	ESO_NR_COUNTERS
};

struct eso_pcpu_stats {
	u64 ctr[ESO_NR_COUNTERS];
};

struct eso_net {
	struct eso_pcpu_stats __percpu *stats;
};

extern unsigned int eso_net_id;

/* Inline: the hot paths count several things per packet. */
static inline void eso_count_add(const struct net *net, enum eso_counter c,
				 u64 n)
{
	struct eso_net *en = net_generic(net, eso_net_id);

	this_cpu_add(en->stats->ctr[c], n);
}

static inline void eso_count(const struct net *net, enum eso_counter c)
{
	eso_count_add(net, c, 1);
}

int eso_stats_init(void);
void eso_stats_exit(void);

/* debugfs.c */
struct dentry;
void eso_debugfs_init(void);
void eso_debugfs_exit(void);
struct dentry *eso_debugfs_dir(void);
void eso_debugfs_bool(const char *name, bool *value);
void eso_debugfs_u32(const char *name, u32 *value);
void eso_debugfs_bool_hook(const char *name, const bool *value,
			   int (*set)(u32 v));
void eso_debugfs_u32_hook(const char *name, const u32 *value,
			  int (*set)(u32 v));

/*
 * The device a packet leaves by. Segmentation outside a device's transmit
 * path (nfnetlink_queue's for a queue without NFQA_CFG_F_GSO, in OUTPUT)
 * sees a locally generated packet before ip_output() set skb->dev.
 */
static inline struct net_device *eso_out_dev(const struct sk_buff *skb)
{
	const struct dst_entry *dst = skb_dst(skb);

	return skb->dev ?: dst ? dst->dev : NULL;
}

/* esp_gso.c */
void eso_encap4(struct xfrm_state *x, struct sk_buff *skb);
void eso_encap6(struct xfrm_state *x, struct sk_buff *skb);
struct sk_buff *eso_gso_segment4(struct sk_buff *skb,
				 netdev_features_t features);
struct sk_buff *eso_gso_segment6(struct sk_buff *skb,
				 netdev_features_t features);

/* esp_gro.c */
struct sk_buff *eso_gro_receive4(struct list_head *head, struct sk_buff *skb);
struct sk_buff *eso_gro_receive6(struct list_head *head, struct sk_buff *skb);
int eso_rx_cb_init(void);
void eso_rx_cb_exit(void);
bool eso_rx_trust_csum(struct xfrm_state *x, struct sk_buff *skb,
		       int nexthdr);

/* rx_decap.c */
void eso_rx_decap_init(void);
bool eso_rx_decap_ok(struct xfrm_state *x);
unsigned int eso_rx_decap_run(struct xfrm_state *x, struct sk_buff_head *run,
			      struct napi_struct *napi);

/* rx_steer.c */
int eso_rx_steer_init(void);
void eso_rx_steer_exit(void);
void eso_rx_steer(struct sk_buff *skb, __be32 spi);
void eso_rx_finished(struct sk_buff *skb);

/* tx_order.c */
enum eso_tx_order {
	ESO_TXO_NONE,	/* outside the section: tx_order off, or another's busy */
	ESO_TXO_DRAW,	/* draw a ticket when numbering, wait for its turn at the end */
	ESO_TXO_TRY,	/* the same, only if no ticket is out: this CPU holds one */
	ESO_TXO_NESTED,	/* this CPU holds the turn already */
	ESO_TXO_TICKET,	/* numbered with a ticket: its turn comes at the end */
};

struct eso_tx_stripe;

/* One packet's way through its SA's TX order section */
struct eso_tx_turn {
	struct eso_tx_stripe *stripe;
	u32 ticket;
	enum eso_tx_order how;
};

int eso_tx_order_init(void);
void eso_tx_order_exit(void);
void eso_tx_order_begin(const struct xfrm_state *x, struct eso_tx_turn *turn);
void eso_tx_order_end(struct eso_tx_turn *turn);
void eso_tx_order_account(unsigned int bytes);
int eso_tx_order_numbers(struct xfrm_state *x, struct xfrm_offload *xo,
			 struct sk_buff *skb, unsigned int reserved,
			 unsigned int n, struct eso_tx_turn *turn);

/* tx_nic.c */
netdev_features_t eso_nic_gso_features(struct xfrm_state *x,
				       struct net_device *dev,
				       netdev_features_t features, bool ipv6);
int eso_nic_xmit(struct xfrm_state *x, struct sk_buff *skb,
		 netdev_features_t features, bool ipv6);

/* tx_pages.c */
struct esp_info;
int eso_tx_pages_init(void);
void eso_tx_pages_exit(void);
bool eso_tx_pages_wanted(const struct xfrm_state *x);
int eso_tx_pages_own(struct xfrm_state *x, struct sk_buff *segs);
int eso_tx_pages_trailer(struct sk_buff *skb, struct esp_info *esp);
int eso_tx_null_trailer(struct sk_buff *skb, const struct esp_info *esp);

/* xfrm_hooks.c */
void eso_hooks_init(void);
bool eso_esp6_get(void);
void eso_esp6_put(void);
struct crypto_aead *eso_batch_aead(struct xfrm_state *x);
int eso_output_head(struct xfrm_state *x, struct sk_buff *skb,
		    struct esp_info *esp, bool ipv6);
int eso_output_tail(struct xfrm_state *x, struct sk_buff *skb,
		    struct esp_info *esp, bool ipv6);
struct sk_buff *eso_encrypt_segments(struct xfrm_state *x,
				     struct crypto_aead *child,
				     struct sk_buff *segs,
				     unsigned int esp_off, bool ipv6);
bool eso_null_nocrypt(const struct xfrm_state *x);
struct sk_buff *eso_null_segments(struct xfrm_state *x, struct sk_buff *segs,
				  unsigned int esp_off, bool ipv6);
void eso_rx_null_done(struct xfrm_state *x, struct sk_buff *skb);
/* Most packets decrypted in one batch on RX (rx_steer.c takes runs). */
#define ESO_RX_RUN 32
struct crypto_aead *eso_rx_batch_aead(struct xfrm_state *x);
void eso_decrypt_run(struct xfrm_state *x, struct crypto_aead *child,
		     struct sk_buff_head *run);
extern const struct xfrm_type_offload eso_type_offload4;
extern const struct xfrm_type_offload eso_type_offload6;

static inline bool eso_state_is_ours(const struct xfrm_state *x)
{
	return x->type_offload == &eso_type_offload4 ||
	       x->type_offload == &eso_type_offload6;
}

#endif /* _ESP_SWOFFLOAD_H */
