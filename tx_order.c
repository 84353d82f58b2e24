// SPDX-License-Identifier: GPL-2.0
/*
 * TX order: an SA's packets reach the wire in the order of their sequence
 * numbers, give or take less than the peer's replay window.
 *
 * Why: xfrm numbers a packet in xfrm_output() (xfrm_replay_overflow*(),
 * gso_segs numbers at once for a super-packet), and this module encrypts
 * it later, at the device. Two CPUs sending on one SA race between those
 * points. A super-packet of 45 segments takes a while to encrypt, and a
 * single packet numbered after it (another socket's ACK, say) can reach
 * the wire first. The receiver then moves its replay window past the
 * super-packet's first numbers, and drops every segment numbered more than
 * a window below that packet as too old (XfrmInStateSeqError, the SA's
 * "replay-window" count). strongSwan's and libreswan's default window is
 * 32, the least RFC 4303 allows: shorter than one super-packet.
 *
 * What: a section per SA, entered with a ticket, as at a counter. Under
 * the section's lock a packet draws the next ticket and settles its
 * numbers: it keeps the ones xfrm gave it unless a packet numbered after
 * them drew first (the stripe remembers the last SA through it and its
 * highest number), and takes fresh ones after the SA's newest otherwise,
 * so numbers grow in ticket order; a packet overtaken between
 * xfrm_output() and here costs a gap in the numbers (which a receiver
 * accepts), not a drop. Then the lock is free for the next packet, and
 * the packet is encrypted while the packets with earlier tickets are
 * still being encrypted or sent. Only then does it wait for its turn
 * (the ticket before it done), and it leaves in it. So what one CPU
 * holds up the others for is its packet's hand-over, not its encryption:
 * a CPU holds the lock for one numbering, the turn for one hand-over.
 *
 * The turn has to last until the packet is with the device driver: a
 * 100-byte datagram encrypts faster than a driver takes the first
 * segments of a super-packet. On a veth or loopback device (no qdisc, and
 * a transmit that hands the packet to the peer's receive queue) the whole
 * transmit happens in the caller's context, so the turn lasts until the
 * end of it, at the last NF_INET_LOCAL_OUT hook, which
 * xfrm_output_resume() passes every transformed packet through on its way
 * to dst_output(): the hook takes the packet and calls dst_output()
 * itself, and lets the turn go when that returns. Elsewhere (a device
 * with a qdisc, whose runner may be another CPU) the turn ends when the
 * packet leaves segmentation or eso_xmit(). A single qdisc keeps its
 * packets in order by itself; several transmit queues of one device (mq)
 * are served concurrently, and there the order between the section and
 * the driver is the device's.
 *
 * Why only those two devices: a CPU may wait for its turn while it holds
 * a qdisc's lock (a qdisc that segments at enqueue, under its root lock,
 * as tbf and cake do; a bypassing qdisc under its busylock), so a CPU
 * holding a turn must never wait for a qdisc's lock. A stacked device
 * without a qdisc (vlan, macvlan, bond, a tunnel) transmits through a
 * lower device's qdisc; holding the turn across that would deadlock
 * against such a CPU (selftests/26-stacked.sh). In its turn the module
 * only encrypts what the batch did not, and hands packets to veth or
 * loopback, which queue them for the receiver without a lock of their
 * own, and only where no egress hook (tc, netfilter) could redirect them
 * elsewhere.
 *
 * The outbound SA does not know the peer's window (strongSwan installs it
 * with replay-window 0), hence no shortcut for large windows: every packet
 * of an SA goes through the section. It serialises the hand-over of one
 * SA's packets from several CPUs, as rx_steer.c serialises their
 * decryption, and as a qdisc would. The sections are striped by SA: SAs
 * sharing a stripe share its tickets. A CPU that holds a ticket draws one
 * of another stripe only if nobody holds one there (two CPUs waiting for
 * each other's turns would wait for ever); otherwise it goes on without.
 */

#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>
#include <net/xfrm.h>

#include "compat.h"
#include "esp_swoffload.h"

#define ESO_TX_ORDER_BITS	8

struct eso_tx_stripe {
	spinlock_t lock;	/* held to draw a ticket and settle numbers */
	u32 next;		/* the ticket the next packet draws; lock held */
	u32 serving;		/* the ticket whose turn it is */
	int owner;		/* the CPU in that turn, or -1 */
	/* the SA that last numbered a packet in the section, or NULL... */
	const struct xfrm_state *sent_x;
	u64 sent_last;		/* ...and the highest number it sent */
} ____cacheline_aligned_in_smp;

/* debugfs: N lets packets leave in any order (the drops tests look for) */
static bool tx_order = true;

/*
 * debugfs: log2 of the number of stripes, 0-8. Fewer stripes make SAs
 * share sections: tests use 0 to make them all share one.
 */
static u32 tx_order_bits = ESO_TX_ORDER_BITS;

/*
 * debugfs, fault injection: the next N packets to a device without a
 * qdisc find xfrm_backlog busy. It fills only when an async encryption
 * finds its device's queue stopped, which no test device does on demand.
 */
static u32 tx_backlog_fault;

static struct eso_tx_stripe eso_tx_stripes[1 << ESO_TX_ORDER_BITS];

/*
 * A CPU's place in the sections. The hook's turn: on veth and loopback
 * the turn lasts until the hook's transmit returns (see the top).
 * The rest says what the CPU's outermost ticket cost (debugfs tx_section):
 * the bytes say what that is on any CPU (bytes times the AEAD's cycles
 * per byte), the nanoseconds what it was on this one.
 */
struct eso_tx_cpu {
	unsigned int tickets;		/* drawn and not let go yet */
	struct eso_tx_stripe *hook;	/* the stripe of the hook's packet... */
	u32 hook_ticket;		/* ...and, if hook_turn, the turn... */
	bool hook_turn;			/* ...this CPU holds until the hook ends */
	bool in_turn;			/* the outermost ticket's turn came */
	u64 turn_since;			/* local_clock() then */
	u32 bytes;			/* ESP bytes finished since the draw... */
	u32 turn_bytes;			/* ...and of those, in the turn */
};

static DEFINE_PER_CPU(struct eso_tx_cpu, eso_tx_cpu);

/* What the section costs (debugfs tx_section; writing to it starts over) */
static struct {
	atomic64_t sections;	/* outermost tickets drawn */
	atomic64_t overlapped;	/* of those, drawn behind another ticket */
	atomic64_t contended;	/* waits for the lock or a turn */
	u64 max_wait_ns;
	u64 max_hold_ns;	/* a turn, from its start to its end */
	u64 max_hold_bytes;	/* ESP bytes finished in one turn */
	u64 max_section_bytes;	/* ...and between one draw and its turn's end */
} eso_txs;

static void eso_stat_max(u64 *max, u64 v)
{
	u64 old = READ_ONCE(*max);

	while (v > old) {
		u64 seen = cmpxchg64(max, old, v);

		if (seen == old)
			break;
		old = seen;
	}
}

/* @bytes of ESP packets finished by this CPU, counted if it holds a ticket */
void eso_tx_order_account(unsigned int bytes)
{
	struct eso_tx_cpu *c = this_cpu_ptr(&eso_tx_cpu);

	if (!c->tickets)
		return;
	c->bytes += bytes;
	if (c->in_turn)
		c->turn_bytes += bytes;
}

static int eso_tx_section_show(struct seq_file *m, void *v)
{
	seq_printf(m, "sections %lld\noverlapped %lld\ncontended %lld\n",
		   (s64)atomic64_read(&eso_txs.sections),
		   (s64)atomic64_read(&eso_txs.overlapped),
		   (s64)atomic64_read(&eso_txs.contended));
	seq_printf(m, "max_wait_ns %llu\nmax_hold_ns %llu\n",
		   READ_ONCE(eso_txs.max_wait_ns),
		   READ_ONCE(eso_txs.max_hold_ns));
	seq_printf(m, "max_hold_bytes %llu\nmax_section_bytes %llu\n",
		   READ_ONCE(eso_txs.max_hold_bytes),
		   READ_ONCE(eso_txs.max_section_bytes));
	return 0;
}

static int eso_tx_section_open(struct inode *inode, struct file *file)
{
	return single_open(file, eso_tx_section_show, NULL);
}

static ssize_t eso_tx_section_reset(struct file *file, const char __user *buf,
				    size_t len, loff_t *ppos)
{
	atomic64_set(&eso_txs.sections, 0);
	atomic64_set(&eso_txs.overlapped, 0);
	atomic64_set(&eso_txs.contended, 0);
	WRITE_ONCE(eso_txs.max_wait_ns, 0);
	WRITE_ONCE(eso_txs.max_hold_ns, 0);
	WRITE_ONCE(eso_txs.max_hold_bytes, 0);
	WRITE_ONCE(eso_txs.max_section_bytes, 0);
	return len;
}

static const struct file_operations eso_tx_section_fops = {
	.open		= eso_tx_section_open,
	.read		= seq_read,
	.write		= eso_tx_section_reset,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static struct eso_tx_stripe *eso_tx_stripe(const struct xfrm_state *x)
{
	u32 mask = (1U << READ_ONCE(tx_order_bits)) - 1;

	return &eso_tx_stripes[hash_ptr(x, ESO_TX_ORDER_BITS) & mask];
}

/*
 * Start @x's packet's way through its section: bottom halves are off
 * until eso_tx_order_end(). The ticket is drawn when the packet is
 * numbered (eso_tx_order_numbers()), if this CPU may wait for its turn.
 */
void eso_tx_order_begin(const struct xfrm_state *x, struct eso_tx_turn *turn)
{
	struct eso_tx_stripe *s = eso_tx_stripe(x);

	local_bh_disable();
	turn->stripe = s;
	if (!READ_ONCE(tx_order))
		turn->how = ESO_TXO_NONE;
	else if (READ_ONCE(s->owner) == smp_processor_id())
		turn->how = ESO_TXO_NESTED;
	else if (__this_cpu_read(eso_tx_cpu.tickets))
		turn->how = ESO_TXO_TRY;
	else
		turn->how = ESO_TXO_DRAW;
}

static void eso_tx_lock(spinlock_t *lock)
	__acquires(lock)
{
	u64 t0;

	if (spin_trylock(lock))
		return;
	t0 = local_clock();
	spin_lock(lock);
	atomic64_inc(&eso_txs.contended);
	eso_stat_max(&eso_txs.max_wait_ns, local_clock() - t0);
}

/*
 * @s's lock held: draw @turn's ticket if it may have one, and say whether
 * the packet is numbered in the section. A CPU that holds the turn
 * numbers in it as long as nobody drew a ticket after its own; a CPU that
 * holds another stripe's ticket draws only if nobody holds one here.
 */
static bool eso_tx_draw(struct eso_tx_stripe *s, struct eso_tx_turn *turn)
{
	struct eso_tx_cpu *c = this_cpu_ptr(&eso_tx_cpu);
	u32 serving = READ_ONCE(s->serving);

	if (turn->how == ESO_TXO_NESTED)
		return s->next == serving + 1;
	if (turn->how == ESO_TXO_TRY && s->next != serving) {
		turn->how = ESO_TXO_NONE;
		return false;
	}
	turn->ticket = s->next++;
	turn->how = ESO_TXO_TICKET;
	if (c->tickets++)
		return true;
	atomic64_inc(&eso_txs.sections);
	if (turn->ticket != serving)
		atomic64_inc(&eso_txs.overlapped);
	c->in_turn = false;
	c->bytes = 0;
	c->turn_bytes = 0;
	return true;
}

/* Wait until the ticket before @turn's is done: this CPU's turn */
static void eso_tx_wait_turn(struct eso_tx_turn *turn)
{
	struct eso_tx_cpu *c = this_cpu_ptr(&eso_tx_cpu);
	struct eso_tx_stripe *s = turn->stripe;
	u32 ticket = turn->ticket;

	/* pairs with eso_tx_release(): the last turn's work is seen done */
	if (smp_load_acquire(&s->serving) != ticket) {
		u64 t0 = local_clock();

		atomic64_inc(&eso_txs.contended);
		smp_cond_load_acquire(&s->serving, VAL == ticket);
		eso_stat_max(&eso_txs.max_wait_ns, local_clock() - t0);
	}
	WRITE_ONCE(s->owner, smp_processor_id());
	if (c->tickets == 1) {
		c->in_turn = true;
		c->turn_since = local_clock();
	}
}

/* This CPU's turn at @s ends: the next ticket's begins */
static void eso_tx_release(struct eso_tx_stripe *s, u32 ticket)
{
	struct eso_tx_cpu *c = this_cpu_ptr(&eso_tx_cpu);

	if (--c->tickets == 0 && c->in_turn) {
		eso_stat_max(&eso_txs.max_hold_ns,
			     local_clock() - c->turn_since);
		eso_stat_max(&eso_txs.max_hold_bytes, c->turn_bytes);
		eso_stat_max(&eso_txs.max_section_bytes, c->bytes);
		c->in_turn = false;
	}
	WRITE_ONCE(s->owner, -1);
	/* the next ticket's turn: it sees all this one did (eso_tx_wait_turn()) */
	smp_store_release(&s->serving, ticket + 1);
}

/*
 * The packet is finished: with a ticket, wait for its turn, and end the
 * turn, unless the hook spans this packet's transmit (then the hook ends
 * it). Bottom halves go back on.
 */
void eso_tx_order_end(struct eso_tx_turn *turn)
{
	struct eso_tx_cpu *c = this_cpu_ptr(&eso_tx_cpu);

	if (turn->how == ESO_TXO_TICKET) {
		eso_tx_wait_turn(turn);
		if (c->hook == turn->stripe && !c->hook_turn) {
			c->hook_turn = true;
			c->hook_ticket = turn->ticket;
		} else {
			eso_tx_release(turn->stripe, turn->ticket);
		}
	}
	local_bh_enable();
}

/*
 * The hook spans the transmit of a packet of @x: a turn its packet takes
 * lasts until eso_tx_hook_end(). False if this CPU is in a hook's
 * transmit already (that hook keeps it).
 */
static bool eso_tx_hook_begin(const struct xfrm_state *x)
{
	struct eso_tx_cpu *c = this_cpu_ptr(&eso_tx_cpu);

	if (c->hook)
		return false;
	c->hook = eso_tx_stripe(x);
	c->hook_turn = false;
	return true;
}

static void eso_tx_hook_end(void)
{
	struct eso_tx_cpu *c = this_cpu_ptr(&eso_tx_cpu);

	if (c->hook_turn)
		eso_tx_release(c->hook, c->hook_ticket);
	c->hook = NULL;
	c->hook_turn = false;
}

/*
 * A transmit that ends in the peer's (or our own) receive queue: no qdisc
 * and no lower device behind it, so a CPU in a section never waits for a
 * qdisc's lock there (see the top of this file). An egress hook on it may
 * redirect the packet to another device's qdisc: not a leaf then.
 */
static bool eso_tx_order_leaf(const struct net_device *dev)
{
	const struct rtnl_link_ops *ops = dev->rtnl_link_ops;

	if (eso_dev_has_egress_hooks(dev))
		return false;
	return (dev->flags & IFF_LOOPBACK) ||
	       (ops && !strcmp(ops->kind, "veth"));
}

/*
 * validate_xmit_xfrm() holds an SA's packets back while this CPU's
 * xfrm_backlog is not empty (async-encrypted packets that found their
 * device's queue stopped), by returning them unencrypted with *again set.
 * A qdisc requeues them; __dev_queue_xmit() without one ignores *again and
 * transmits the packet as it is, its payload in clear behind an ESP
 * header (net/core/dev.c, 6.1 and 6.12). Bottom halves are off here, so
 * the backlog cannot fill between this test and that one.
 */
static bool eso_xfrm_backlog_busy(void)
{
	u32 n = READ_ONCE(tx_backlog_fault);

	/* the test's stand-in for a backlog: take one of its n packets */
	while (unlikely(n)) {
		u32 seen = cmpxchg(&tx_backlog_fault, n, n - 1);

		if (seen == n)
			return true;
		n = seen;
	}
	return !skb_queue_empty_lockless(&this_cpu_ptr(&softnet_data)->xfrm_backlog);
}

/*
 * The last NF_INET_LOCAL_OUT hook: a packet of one of our SAs, transformed
 * and on its way to a device without a qdisc, goes to dst_output() (the
 * hook's okfn) with bottom halves off, after the xfrm_backlog test, and on
 * veth or loopback inside its SA's section. dst_output()'s return value
 * ends here, as with any hook that steals a packet: TCP learns of a drop
 * at the device from the missing ACK.
 */
static unsigned int eso_tx_order_hook(void *priv, struct sk_buff *skb,
				      const struct nf_hook_state *state)
{
	struct xfrm_offload *xo = xfrm_offload(skb);
	struct dst_entry *dst = skb_dst(skb);
	struct sec_path *sp;
	struct xfrm_state *x;
	bool hook;

	if (!xo || (xo->flags & XFRM_GRO) || !dst || dst->xfrm || !dst->dev)
		return NF_ACCEPT;
	sp = skb_sec_path(skb);
	x = sp->xvec[sp->len - 1];
	if (!eso_state_is_ours(x) || x->xso.dev)
		return NF_ACCEPT;
	/*
	 * A qdisc keeps the order itself and requeues what xfrm_backlog holds
	 * back: noqueue has no enqueue operation. nf_hook() holds
	 * rcu_read_lock(), bottom halves may be on.
	 */
	if (rcu_dereference(netdev_get_tx_queue(dst->dev, 0)->qdisc)->enqueue)
		return NF_ACCEPT;

	local_bh_disable();
	hook = eso_tx_order_leaf(dst->dev) && eso_tx_hook_begin(x);
	if (unlikely(eso_xfrm_backlog_busy())) {
		eso_count(state->net, ESO_TX_BACKLOG_DROPPED);
		kfree_skb(skb);
	} else {
		state->okfn(state->net, state->sk, skb);
	}
	if (hook)
		eso_tx_hook_end();
	local_bh_enable();
	return NF_STOLEN;
}

static const struct nf_hook_ops eso_tx_order_ops[] = {
	{
		.hook		= eso_tx_order_hook,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP_PRI_LAST,
	},
	{
		.hook		= eso_tx_order_hook,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP6_PRI_LAST,
	},
};

static int __net_init eso_tx_order_net_init(struct net *net)
{
	return nf_register_net_hooks(net, eso_tx_order_ops,
				     ARRAY_SIZE(eso_tx_order_ops));
}

static void __net_exit eso_tx_order_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, eso_tx_order_ops,
				ARRAY_SIZE(eso_tx_order_ops));
}

static struct pernet_operations eso_tx_order_net_ops = {
	.init = eso_tx_order_net_init,
	.exit = eso_tx_order_net_exit,
};

/*
 * A section's begin and end must find the same stripe: the number of
 * stripes changes only while no SA of ours exists (each holds a module
 * reference, xfrm_get_type_offload()), so no packet is in a section.
 */
static int eso_tx_order_bits_set(u32 bits)
{
	if (bits > ESO_TX_ORDER_BITS)
		return -EINVAL;
	if (module_refcount(THIS_MODULE))
		return -EBUSY;
	WRITE_ONCE(tx_order_bits, bits);
	return 0;
}

int eso_tx_order_init(void)
{
	unsigned int i;

	eso_debugfs_bool("tx_order", &tx_order);
	eso_debugfs_u32_hook("tx_order_bits", &tx_order_bits,
			     eso_tx_order_bits_set);
	eso_debugfs_u32("tx_backlog_fault", &tx_backlog_fault);
	debugfs_create_file("tx_section", 0600, eso_debugfs_dir(), NULL,
			    &eso_tx_section_fops);
	for (i = 0; i < ARRAY_SIZE(eso_tx_stripes); i++) {
		spin_lock_init(&eso_tx_stripes[i].lock);
		eso_tx_stripes[i].owner = -1;
	}
	return register_pernet_subsys(&eso_tx_order_net_ops);
}

void eso_tx_order_exit(void)
{
	unregister_pernet_subsys(&eso_tx_order_net_ops);
}

/* The SA's newest output sequence number, all 64 bits for ESN. */
static u64 eso_oseq_newest(const struct xfrm_state *x)
{
	if (x->repl_mode == XFRM_REPLAY_MODE_ESN)
		return (u64)x->replay_esn->oseq_hi << 32 | x->replay_esn->oseq;
	return x->repl_mode == XFRM_REPLAY_MODE_LEGACY ? x->replay.oseq :
							 x->replay_esn->oseq;
}

/*
 * Take @n fresh numbers for @xo, x->lock held, exactly as
 * xfrm_replay_overflow_offload*() (net/xfrm/xfrm_replay.c, the same in
 * 6.1 and 6.12) takes gso_segs of them, including its refusal to wrap.
 */
static int eso_reserve_fresh(struct xfrm_state *x, struct xfrm_offload *xo,
			     unsigned int n)
{
	struct xfrm_replay_state_esn *esn = x->replay_esn;
	bool may_wrap = x->props.extra_flags & XFRM_SA_XFLAG_OSEQ_MAY_WRAP;
	u32 *oseq, first, hi = 0;

	oseq = x->repl_mode == XFRM_REPLAY_MODE_LEGACY ? &x->replay.oseq :
							&esn->oseq;
	first = *oseq + 1;
	if (x->repl_mode == XFRM_REPLAY_MODE_ESN) {
		hi = esn->oseq_hi;
		if (*oseq + n < *oseq) {
			if (esn->oseq_hi + 1 == 0)
				return -EOVERFLOW;
			if (first < *oseq)
				hi = ++esn->oseq_hi;	/* the first one wrapped */
			else
				esn->oseq_hi++;
		}
	} else if (*oseq + n < *oseq && !may_wrap) {
		return -EOVERFLOW;
	}
	*oseq += n;
	xo->seq.low = first;
	xo->seq.hi = hi;
	return 0;
}

/* Is @a after @b? Without ESN the numbers are 32 bits and may wrap. */
static bool eso_seq_after(const struct xfrm_state *x, u64 a, u64 b)
{
	if (x->repl_mode == XFRM_REPLAY_MODE_ESN)
		return a > b;
	return (s32)((u32)a - (u32)b) > 0;
}

/*
 * A packet of @x about to leave outside @s's section (tx_order off, or
 * another section's lock busy): the stripe's record of what @x sent no
 * longer covers all of it. x->lock held, or tx_order off.
 */
static void eso_tx_forget(struct eso_tx_stripe *s, const struct xfrm_state *x)
{
	if (READ_ONCE(s->sent_x) == x)
		cmpxchg(&s->sent_x, x, NULL);
}

/*
 * Does the packet whose numbers start at @first keep them? Yes if nothing
 * of @x numbered after them went out yet: they are still the newest, or
 * the stripe's record (in the section: @s is ours) shows that all @x sent
 * is numbered below. Behind a qdisc with a backlog the packets that wait
 * were numbered in turn, and none are newest when they leave; the record
 * lets them keep their numbers instead of wasting as many again. x->lock
 * held.
 */
static bool eso_tx_keeps(struct xfrm_state *x, struct eso_tx_stripe *s,
			 bool in_section, u64 first, u64 last)
{
	if (last == eso_oseq_newest(x))
		return true;
	return in_section && READ_ONCE(s->sent_x) == x &&
	       eso_seq_after(x, first, s->sent_last);
}

/* Settle the numbers (see eso_tx_order_numbers()); x->lock not held */
static int eso_tx_number(struct xfrm_state *x, struct xfrm_offload *xo,
			 struct sk_buff *skb, struct eso_tx_stripe *s,
			 unsigned int reserved, unsigned int n,
			 bool in_section)
{
	u64 first = (u64)xo->seq.hi << 32 | xo->seq.low;
	u64 last = first + reserved - 1;
	int err = 0;

	if (x->repl_mode != XFRM_REPLAY_MODE_ESN)
		last = (u32)last;

	spin_lock(&x->lock);
	if (n > reserved || !eso_tx_keeps(x, s, in_section, first, last)) {
		err = eso_reserve_fresh(x, xo, n);
		if (err) {
			/* as xfrm_output_one() counts a number it cannot take */
			XFRM_INC_STATS(xs_net(x), LINUX_MIB_XFRMOUTSTATESEQERROR);
			xfrm_audit_state_replay_overflow(x, skb);
		} else {
			eso_count(xs_net(x), ESO_TX_RENUMBERED);
		}
	}
	if (!in_section) {
		eso_tx_forget(s, x);
	} else if (!err) {
		WRITE_ONCE(s->sent_x, x);
		s->sent_last = ((u64)xo->seq.hi << 32 | xo->seq.low) + n - 1;
	}
	spin_unlock(&x->lock);
	return err;
}

/*
 * Between eso_tx_order_begin() and _end() (bottom halves off): draw
 * @turn's ticket and settle the numbers of the @n packets (segments) @skb
 * becomes, under the section's lock, so that numbers grow in ticket
 * order. xfrm reserved @reserved of them from @xo->seq; they stay if they
 * cover @n and nothing numbered after them drew a ticket yet (or tx_order
 * is off), else @n fresh ones replace them. On return @xo->seq holds the
 * first one.
 */
int eso_tx_order_numbers(struct xfrm_state *x, struct xfrm_offload *xo,
			 struct sk_buff *skb, unsigned int reserved,
			 unsigned int n, struct eso_tx_turn *turn)
{
	struct eso_tx_stripe *s = turn->stripe;
	int err;

	if (n <= reserved && !READ_ONCE(tx_order)) {
		/* a switch back to Y may reorder what is in flight then */
		eso_tx_forget(s, x);
		return 0;
	}
	switch (turn->how) {
	case ESO_TXO_TRY:
		if (!spin_trylock(&s->lock))
			break;
		err = eso_tx_number(x, xo, skb, s, reserved, n,
				    eso_tx_draw(s, turn));
		spin_unlock(&s->lock);
		return err;
	case ESO_TXO_DRAW:
	case ESO_TXO_NESTED:
		eso_tx_lock(&s->lock);
		err = eso_tx_number(x, xo, skb, s, reserved, n,
				    eso_tx_draw(s, turn));
		spin_unlock(&s->lock);
		return err;
	default:
		break;
	}
	turn->how = ESO_TXO_NONE;
	return eso_tx_number(x, xo, skb, s, reserved, n, false);
}
