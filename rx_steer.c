// SPDX-License-Identifier: GPL-2.0
/*
 * In-order RX: every ESP packet of one SA is handed to xfrm on one CPU.
 *
 * Why: after decapsulation xfrm queues the inner packet on the gro_cells
 * of the CPU it runs on (xfrm_input(), XFRM_GRO), and those cells are
 * per-CPU. When the NAPI that receives a flow moves between CPUs (veth
 * schedules its NAPI on whichever CPU transmits, so TCP's process-context
 * sends and its ACK-clocked softirq sends land on different CPUs), two
 * batches of one flow sit in two CPUs' cells and can reach TCP in the
 * wrong order. TCP then sees reordering, sends SACKs, and the sender
 * retransmits segments that were never lost: this is where the
 * retransmits of the stock esp4_offload on veth come from
 * (TcpExtTCPSACKReorder, TcpExtTCPDSACKRecv, no drop counter moves).
 *
 * What: the GRO callback validates the packet and appends it to a FIFO on
 * the SA's home CPU (chosen by hashing the SPI over the online housekeeping
 * CPUs, as RSS would choose a queue); a NAPI instance per CPU drains that FIFO into
 * xfrm_input(). One FIFO and one CPU per SA keep the order from the wire
 * to TCP, and the decryption moves off the CPU that received the packet,
 * which on veth is also the one that sent it.
 *
 * The FIFO is bounded (ESO_RXQ_MAX packets); beyond that packets are
 * dropped and counted (rx_drop_backlog), as netdev_max_backlog does.
 *
 * Asynchronous AEADs (pcrypt, cryptd, hardware) add one more bound. They
 * hand decrypted packets back in bursts (pcrypt's serial worker returns
 * every finished request in one go, with bottom halves off), and xfrm
 * queues each on the gro_cells of the completing CPU, which drop beyond
 * netdev_max_backlog (net/core/gro_cells.c, counted as the device's
 * rx_dropped). With enough packets in flight a burst overflows them and
 * TCP has to retransmit. So the NAPI stops handing packets to xfrm while
 * eso_rx_async_cap() of them are in asynchronous decryption, and resumes
 * when completions have brought that under half; meanwhile they wait in
 * the FIFO, in order.
 */

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/sched/isolation.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/xfrm.h>

#include "compat.h"
#include "esp_swoffload.h"

#define ESO_RXQ_MAX 8192

struct eso_rxq {
	struct sk_buff_head q;
	struct napi_struct napi;
	call_single_data_t csd;
	unsigned long kick_pending;
	unsigned long throttled;	/* bit 0: waits for async completions */
	unsigned long enqueued;		/* packets ever queued, under q.lock */
	unsigned long dequeued;		/* ...ever taken out, by the home CPU */
	unsigned long done;		/* dequeued, when a poll last completed */
	struct work_struct leave;	/* the CPU went offline: eso_rxq_leave() */
	struct work_struct settle;	/* eso_rx_settle() on this CPU */
	unsigned int cpu;
	unsigned int offlined;		/* times the CPU went offline */
	unsigned int left;		/* ...of which eso_rxq_leave() has seen */
};

static DEFINE_PER_CPU_ALIGNED(struct eso_rxq, eso_rxqs);
static bool eso_rx_blocked(struct sk_buff *skb);
static void eso_home_via_xfrm(__be32 spi);
static void eso_rxq_wake(struct eso_rxq *rq, unsigned int cpu);
static struct net_device *eso_napi_dev;
static enum cpuhp_state eso_cpuhp_state;

/*
 * Module exit has begun: no queue throttles any more, so none arms the
 * watchdog (eso_rx_steer_exit()).
 */
static bool eso_rx_stopping;

/* debugfs: N hands each packet to xfrm on the CPU that took it at GRO */
static bool rx_steer = true;

/*
 * debugfs: most RX packets in asynchronous decryption at once, at most
 * half of netdev_max_backlog; 0: no limit.
 */
static u32 rx_async_max = 256;

/*
 * Packets handed to xfrm_input() whose decryption has not finished yet.
 * How one is told apart: xfrm_input() ends every packet of a valid SA
 * that it finishes, good or dropped, with xfrm_rcv_cb(), which reaches
 * eso_rx_finished() (through the handlers for ESP, AH and IPComp, the
 * last transform's protocol; esp_gro.c). Before handing a packet over,
 * eso_rx_deliver() notes it in eso_rx_cur; if xfrm finishes it on the
 * spot, eso_rx_finished() sees the noted packet and clears the note. A
 * note that outlives xfrm_input() is a packet in flight; when it finishes
 * later, eso_rx_finished() sees a packet with our offload entry that is
 * not the noted one. Both ends may run on different CPUs in either
 * order, hence a signed shared count.
 *
 * A few packets in flight end where they cannot be recognised: xfrm drops
 * one whose SA died during its decryption before it knows the family
 * (so xfrm_rcv_cb() reaches no handler), and one whose nested transform
 * was not found only after its sec_path is gone. They would stay counted
 * for good: enough of them would throttle every queue with nothing left
 * to wake it, and any would keep every home from moving. So a watchdog
 * resets the count when queues have been throttled, or a home wanted to
 * move, for ESO_RX_STALE without any completion.
 */
static atomic_t eso_rx_inflight = ATOMIC_INIT(0);
static atomic_t eso_rx_nthrottled = ATOMIC_INIT(0);
static DEFINE_PER_CPU(struct sk_buff *, eso_rx_cur);

#define ESO_RX_STALE	HZ
static struct timer_list eso_rx_watchdog;
static unsigned long eso_rx_last_done;	/* jiffies: last async completion */

/*
 * Set in our offload entry once eso_rx_finished() has counted the packet:
 * xfrm_rcv_cb() runs twice for a packet a later handler refuses (its
 * error sends xfrm_input() to drop). xfrm's own flags end at 256
 * (include/net/xfrm.h); the entry is the one the GRO callback made.
 */
#define ESO_XO_FINISHED	BIT(31)

static int eso_rx_async_cap(void)
{
	unsigned int cap = READ_ONCE(rx_async_max);

	if (!cap)
		return INT_MAX;
	/* leave the other half of the backlog to everything else */
	return clamp_t(int, cap, 1, max(eso_max_backlog() / 2, 1));
}

/* The SA the GRO callback attached to @skb. */
static struct xfrm_state *eso_rx_skb_state(struct sk_buff *skb)
{
	struct sec_path *sp = skb_sec_path(skb);

	return sp->xvec[sp->len - 1];
}

/* Hand one queued packet to xfrm; drops the device ref taken at enqueue. */
static void eso_rx_deliver(struct sk_buff *skb)
{
	struct xfrm_state *x = eso_rx_skb_state(skb);
	struct net_device *dev = skb->dev;
	struct sk_buff *prev = this_cpu_read(eso_rx_cur);
	bool track;
	__be32 spi;

	/*
	 * xfrm_input() drops a packet of an SA that is no longer valid
	 * before it knows its family, without xfrm_rcv_cb(): nothing to
	 * track, and an SA never becomes valid again.
	 */
	track = READ_ONCE(x->km.state) == XFRM_STATE_VALID;
	if (track)
		this_cpu_write(eso_rx_cur, skb);
	/*
	 * x outlives the skb's reference: xfrm frees states a grace period
	 * after the last put (xfrm_state_gc_task()).
	 */
	rcu_read_lock();
	/* skb->data is the ESP header, as the GRO callback left it */
	spi = ((struct ip_esp_hdr *)skb->data)->spi;
	eso_home_via_xfrm(spi);
	xfrm_input(skb, IPPROTO_ESP, spi, 0);
	if (track) {
		/*
		 * Not finished: in flight, unless the SA died meanwhile. Then
		 * xfrm dropped it unseen, as above, or will when its
		 * decryption completes (xfrm_input() checks the state again
		 * on resuming); counted, it would stay in flight for good.
		 */
		if (this_cpu_read(eso_rx_cur) == skb &&
		    READ_ONCE(x->km.state) == XFRM_STATE_VALID)
			atomic_inc(&eso_rx_inflight);
		this_cpu_write(eso_rx_cur, prev);
	}
	rcu_read_unlock();
	dev_put(dev);
}

/*
 * Too many packets in asynchronous decryption: mark @rq throttled, to be
 * woken by the completion that brings the count to half the cap. Checks
 * again after marking, so that a completion which looked at the mark too
 * early cannot leave the queue asleep (both sides order with full
 * barriers: the mark before this read, the count before that one).
 */
static bool eso_rxq_throttle(struct eso_rxq *rq)
{
	int cap = eso_rx_async_cap();

	if (likely(atomic_read(&eso_rx_inflight) < cap) ||
	    unlikely(READ_ONCE(eso_rx_stopping)))
		return false;

	if (!test_and_set_bit(0, &rq->throttled))
		atomic_inc(&eso_rx_nthrottled);
	if (!timer_pending(&eso_rx_watchdog))
		mod_timer(&eso_rx_watchdog, jiffies + ESO_RX_STALE);
	/* mark before re-reading; pairs with atomic_dec_return() in eso_rx_finished() */
	smp_mb__after_atomic();
	if (atomic_read(&eso_rx_inflight) < cap &&
	    test_and_clear_bit(0, &rq->throttled)) {
		atomic_dec(&eso_rx_nthrottled);
		return false;	/* completions came meanwhile: go on */
	}
	return true;
}

/*
 * Move from @batch to @run the packets to hand over next: the first one
 * and, if its SA's AEAD decrypts in batches or the module finishes its
 * packets itself (rx_decap.c), up to @max - 1 more of the same SA right
 * behind it, which are then decrypted, and finished, together. Returns
 * the number rx_decap.c took (given to GRO on @napi); the rest of @run is
 * for xfrm_input().
 */
static unsigned int eso_rx_take(struct sk_buff_head *batch,
				struct sk_buff_head *run, int max,
				struct napi_struct *napi)
{
	struct sk_buff *skb = __skb_dequeue(batch);
	struct xfrm_state *x = eso_rx_skb_state(skb);
	struct crypto_aead *child = eso_rx_batch_aead(x);
	bool decap = eso_rx_decap_ok(x);

	__skb_queue_tail(run, skb);
	if (!child && !decap)
		return 0;
	max = min(max, ESO_RX_RUN);
	while (skb_queue_len(run) < max && (skb = skb_peek(batch)) &&
	       eso_rx_skb_state(skb) == x) {
		__skb_unlink(skb, batch);
		__skb_queue_tail(run, skb);
	}
	if (child)
		eso_decrypt_run(x, child, run);
	return decap ? eso_rx_decap_run(x, run, napi) : 0;
}

static int eso_rxq_poll(struct napi_struct *napi, int budget)
{
	struct eso_rxq *rq = container_of(napi, struct eso_rxq, napi);
	struct sk_buff_head batch, run;
	bool throttled = false, blocked = false;
	int work = 0;

	/*
	 * Polled off its CPU: the net core moved the NAPI here when that CPU
	 * went offline (dev_cpu_dead()). Deliver nothing: the inner packets
	 * would go up through this CPU's gro_cells, and the heir's later ones
	 * through the heir's, and those can overtake these. The packets wait
	 * for eso_rxq_leave() to hand them over, or for the NAPI to poll on
	 * its CPU once that is back.
	 *
	 * A wake meant for that CPU (an IPI: eso_rxq_leave()'s, a move's end,
	 * an enqueue) that comes while the NAPI is still scheduled here only
	 * sets NAPIF_STATE_MISSED. napi_complete_done() then schedules it
	 * again, but on this CPU (__napi_schedule(), net/core/dev.c, 6.1 and
	 * 6.12 alike), where it only comes back here; the wake is lost, and
	 * with packets queued no enqueue wakes the queue again (eso_rx_steer()
	 * wakes an empty one only). So once the NAPI completes for good, wake
	 * it on its CPU if that is online and packets wait. MISSED is set only
	 * by a wake, so the polls here end. Offline, eso_rxq_leave() runs after
	 * this CPU is gone and wakes the queue it hands them to.
	 */
	if (unlikely(rq->cpu != smp_processor_id())) {
		if (napi_complete(napi) && cpu_online(rq->cpu) &&
		    !skb_queue_empty_lockless(&rq->q))
			eso_rxq_wake(rq, rq->cpu);
		return 0;
	}

	__skb_queue_head_init(&batch);
	__skb_queue_head_init(&run);
	/*
	 * One short of the budget: the poll always completes, and so flushes
	 * what rx_decap.c gave to this NAPI's GRO before it returns (a GRO
	 * list that outlived the poll would hold packets of devices whose
	 * references are dropped), and schedules itself again if more wait.
	 */
	while (work < budget - 1) {
		struct sk_buff *skb;
		unsigned int n;

		if (skb_queue_empty(&batch)) {
			spin_lock(&rq->q.lock);
			skb_queue_splice_init(&rq->q, &batch);
			spin_unlock(&rq->q.lock);
			if (skb_queue_empty(&batch))
				break;
		}
		skb = skb_peek(&batch);
		if (eso_rx_blocked(skb)) {
			blocked = true;	/* eso_rehome_finish() wakes us */
			break;
		}
		if (eso_rxq_throttle(rq)) {
			eso_count(dev_net(skb->dev), ESO_RX_ASYNC_THROTTLED);
			throttled = true;
			break;
		}
		n = eso_rx_take(&batch, &run, budget - 1 - work, napi);
		rq->dequeued += n;
		work += n;
		while ((skb = __skb_dequeue(&run))) {
			eso_rx_deliver(skb);
			rq->dequeued++;
			work++;
		}
	}

	if (!skb_queue_empty(&batch)) {
		/* what we took and did not deliver goes back in front, in order */
		spin_lock(&rq->q.lock);
		skb_queue_splice(&batch, &rq->q);
		spin_unlock(&rq->q.lock);
	}
	/* a wake meanwhile (NAPIF_STATE_MISSED) has it polled again anyway */
	if (napi_complete_done(napi, work)) {
		/*
		 * GRO flushed: what rx_decap.c gave this NAPI has gone up the
		 * stack (or to RPS's backlog, in order). A move waits for it.
		 */
		WRITE_ONCE(rq->done, rq->dequeued);
		if (!throttled && !blocked && !skb_queue_empty_lockless(&rq->q))
			napi_schedule(napi);	/* budget spent: poll again */
	}
	return work;
}

/* Runs on the home CPU, in hard interrupt context. */
static void eso_rxq_kick(void *data)
{
	struct eso_rxq *rq = data;

	clear_bit(0, &rq->kick_pending);
	napi_schedule(&rq->napi);
}

/*
 * Get @rq's NAPI polling on its own CPU @cpu. A CPU going offline refuses
 * the IPI; eso_rxq_leave() then hands its queue over.
 */
static void eso_rxq_wake(struct eso_rxq *rq, unsigned int cpu)
{
	if (cpu == smp_processor_id())
		napi_schedule(&rq->napi);
	else if (!test_and_set_bit(0, &rq->kick_pending) &&
		 smp_call_function_single_async(cpu, &rq->csd))
		clear_bit(0, &rq->kick_pending);
}

/* In flight fell to half the cap: wake every throttled queue. */
static void eso_rx_unthrottle(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, cpu);

		if (test_bit(0, &rq->throttled) &&
		    test_and_clear_bit(0, &rq->throttled)) {
			atomic_dec(&eso_rx_nthrottled);
			eso_rxq_wake(rq, cpu);
		}
	}
}

/*
 * The offload entry the GRO callback made for @skb, or NULL. Not
 * xfrm_offload(): a nested transform after ours adds to sp->len only.
 */
static struct xfrm_offload *eso_rx_xo(struct sk_buff *skb)
{
	struct sec_path *sp = skb_sec_path(skb);
	struct xfrm_offload *xo;

	if (!sp || !sp->olen)
		return NULL;
	xo = &sp->ovec[sp->olen - 1];
	return xo->flags & XFRM_GRO ? xo : NULL;
}

/*
 * xfrm has finished @skb (see eso_rx_inflight). Called for every packet
 * xfrm_input() finishes whose last transform is ESP, AH or IPComp, from
 * xfrm_rcv_cb(); only packets this module handed over count.
 */
void eso_rx_finished(struct sk_buff *skb)
{
	struct xfrm_offload *xo = eso_rx_xo(skb);

	if (this_cpu_read(eso_rx_cur) == skb) {
		this_cpu_write(eso_rx_cur, NULL);	/* finished on the spot */
		if (xo)
			xo->flags |= ESO_XO_FINISHED;
		return;
	}
	if (!xo || (xo->flags & ESO_XO_FINISHED))
		return;
	xo->flags |= ESO_XO_FINISHED;
	eso_count(dev_net(skb->dev), ESO_RX_ASYNC);
	WRITE_ONCE(eso_rx_last_done, jiffies);
	if (atomic_dec_return(&eso_rx_inflight) <= eso_rx_async_cap() / 2 &&
	    atomic_read(&eso_rx_nthrottled))
		eso_rx_unthrottle();
}

/*
 * Queues throttled, or a home kept from moving, and no completion for
 * ESO_RX_STALE: see eso_rx_inflight.
 */
static void eso_rx_watchdog_fn(struct timer_list *t)
{
	unsigned long due = READ_ONCE(eso_rx_last_done) + ESO_RX_STALE;
	int lost;

	if (!atomic_read(&eso_rx_nthrottled) &&
	    atomic_read(&eso_rx_inflight) <= 0)
		return;
	if (time_before(jiffies, due)) {
		mod_timer(&eso_rx_watchdog, due);
		return;
	}
	lost = atomic_xchg(&eso_rx_inflight, 0);
	pr_warn_ratelimited(ESO_NAME ": RX: %d packets counted in asynchronous decryption, none finished for %u ms: count reset\n",
			    lost, jiffies_to_msecs(ESO_RX_STALE));
	eso_rx_unthrottle();
}

/*
 * Homes. SPIs hash to ESO_HOME_SLOTS slots, each with its home CPU; the SAs
 * of one slot share it, and so their order. The homes start spread evenly
 * over the home CPUs (eso_homes_place()), as RSS spreads queues, are
 * spread again after CPU hotplug (eso_rebalance_fn()), and move when the
 * GRO callback keeps taking the slot's packets on the home CPU itself:
 * then decryption competes with whatever brings the packets in (on veth:
 * the sender, since veth's NAPI runs where it transmits) while the aim was
 * to take it off that CPU.
 *
 * A move must not reorder. The inner packets xfrm decapsulated on the old
 * home sit in that CPU's gro_cells, the new home's in its own, and either
 * may reach TCP first. So the switch (under the old home's queue lock, so
 * that every packet queued before it is counted in `target`) marks the
 * slot blocked, and the new home queues the slot's packets but hands none
 * to xfrm until the old home has drained: it has taken every packet queued
 * before the switch out of its queue, none is in asynchronous decryption,
 * and what it decrypted has gone up to TCP. Where rx_decap.c finished
 * every packet of the slot on the old home's NAPI, that is when the poll
 * that took the last of them completes (its GRO is flushed then): the
 * wait lasts as long as the slot's packets do, however busy the CPU.
 * Where a packet of the slot went through xfrm_input() since its last
 * move, its inner packet went to xfrm's gro_cells, which this module
 * cannot see: the old home must then run no NAPI at all, so that its
 * gro_cells have gone up to TCP. Both can only be seen from an interrupt
 * on the old home (an hrtimer, pinned there), never from its own
 * softirq. One move at a time; a slot stays put for ESO_REHOME_HOLD after
 * moving. Should the old home of a slot that went through xfrm stay busy
 * for ESO_REHOME_MAX, the check stops waiting for bottom halves to be on
 * (eso_rehome_drained()), and after twice that it asks only for the
 * first condition; both count rx_rehome_forced: the new home cannot hold
 * every other slot's packets behind this one for long. The first is never
 * waived, however long the old home is kept from its softirqs (a real-time
 * task, a vCPU the host deschedules): a packet the new home hands to xfrm
 * before an older one queued on the old home moves the SA's replay window
 * past it, and xfrm drops it (XfrmInStateSeqError). What the others let
 * through when waived is an inner packet reaching TCP ahead of one still
 * in the old home's gro_cells, which TCP puts back in order, or one whose
 * asynchronous decryption outlasted the wait.
 */
#define ESO_HOME_SLOTS		256
#define ESO_REHOME_WINDOW	1024		/* packets per decision */
#define ESO_REHOME_HOLD		HZ
#define ESO_REHOME_MAX		(HZ / 10)
#define ESO_REHOME_POLL_NS	(50 * NSEC_PER_USEC)

struct eso_home {
	unsigned int cpu;	/* moves under the old home's q.lock */
	bool blocked;		/* moved; the old home has not drained yet */
	bool via_xfrm;		/* a packet went to xfrm_input() since the last move */
	unsigned int seen;	/* packets taken at GRO in this window */
	unsigned int local;	/* ...of which on the home CPU itself */
	unsigned long moved;	/* jiffies */
};

static struct eso_home eso_homes[ESO_HOME_SLOTS];

static struct {
	spinlock_t lock;		/* serialises starting a move */
	struct eso_home *home;		/* the slot moving; NULL: none */
	unsigned int from, to;
	unsigned long target;		/* from's queue: packets to dequeue */
	unsigned int offlined;		/* from's, when the move started */
	unsigned long deadline;		/* jiffies */
	struct net *net;		/* where to count it; NULL: nowhere */
	bool stop;			/* module exit: end it now */
	struct hrtimer timer;		/* pinned on from */
	call_single_data_t csd;		/* starts the timer on from */
} eso_move = {
	.lock = __SPIN_LOCK_UNLOCKED(eso_move.lock),
};

static bool rx_rehome = true;

/*
 * The CPUs a home may be on: the online ones the kernel keeps for
 * housekeeping, neither isolated from the scheduler (isolcpus=, the
 * default "domain" flag) nor tickless (nohz_full=). A home takes
 * decryption and IPIs, which is the work those CPUs were set apart from.
 * The housekeeping masks are fixed at boot: eso_hk_cpus is their
 * intersection, taken at init. Should every housekeeping CPU be offline,
 * any online CPU will do.
 */
static cpumask_var_t eso_hk_cpus;

static bool eso_home_cpu_ok(unsigned int cpu)
{
	if (!cpu_online(cpu))
		return false;
	return cpumask_test_cpu(cpu, eso_hk_cpus) ||
	       !cpumask_intersects(eso_hk_cpus, cpu_online_mask);
}

/*
 * The home CPU after @cpu, wrapping around; @cpu itself if it is the only
 * one. Called with CPU hotplug held off, or from eso_home_note(), which
 * tolerates an answer gone stale (eso_rehome_start() checks again).
 */
static unsigned int eso_home_next(unsigned int cpu)
{
	unsigned int next;

	next = cpumask_next_and(cpu, eso_hk_cpus, cpu_online_mask);
	if (next >= nr_cpu_ids)
		next = cpumask_first_and(eso_hk_cpus, cpu_online_mask);
	if (next >= nr_cpu_ids)
		next = cpumask_next_wrap(cpu, cpu_online_mask, cpu, false);
	return next;
}

/*
 * Every home in its even place: slot i on the i-th home CPU, modulo their
 * number. Not over the possible CPUs: those that are not online (the
 * hot-add slots many VMs have, maxcpus=, nosmt) would all hand their
 * share to the next online CPU. Called with CPU hotplug held off
 * (cpus_read_lock()) and eso_move.lock held, no move under way.
 */
static void eso_homes_place(void)
{
	unsigned int i, cpu = nr_cpu_ids - 1;

	for (i = 0; i < ESO_HOME_SLOTS; i++) {
		struct eso_home *h = &eso_homes[i];

		cpu = eso_home_next(cpu);
		WRITE_ONCE(h->cpu, cpu);
		h->seen = 0;
		h->local = 0;
		h->moved = jiffies - ESO_REHOME_HOLD - 1;	/* free to move */
	}
}

/* rx_homes: the home CPUs, then each CPU that is one or holds slots */
static int eso_homes_show(struct seq_file *m, void *v)
{
	unsigned int *count, i, cpu;

	count = kcalloc(nr_cpu_ids, sizeof(*count), GFP_KERNEL);
	if (!count)
		return -ENOMEM;
	cpus_read_lock();
	for (i = 0; i < ESO_HOME_SLOTS; i++)
		count[READ_ONCE(eso_homes[i].cpu)]++;
	seq_puts(m, "home_cpus");
	for_each_online_cpu(cpu)
		if (eso_home_cpu_ok(cpu))
			seq_printf(m, " %u", cpu);
	seq_puts(m, "\n");
	for_each_possible_cpu(cpu)
		if (count[cpu] || eso_home_cpu_ok(cpu))
			seq_printf(m, "%u %u\n", cpu, count[cpu]);
	cpus_read_unlock();
	kfree(count);
	return 0;
}

static int eso_homes_open(struct inode *inode, struct file *file)
{
	return single_open(file, eso_homes_show, NULL);
}

/*
 * No .owner, as debugfs.c's files: an open file must not pin the module;
 * debugfs_remove_recursive() waits for reads under way, and what runs at
 * close is seq_file's own.
 */
static const struct file_operations eso_homes_fops = {
	.open		= eso_homes_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static void eso_homes_reset(void)
{
	/*
	 * Not while a move is under way: a home put back on the old CPU
	 * while its slot is still blocked would block that CPU's queue for
	 * good (its poll stops at the slot's packet, and the end of the
	 * move wakes only the new home). Under the lock no move starts
	 * (eso_rehome_start() only tries it); one under way ends soon
	 * after its old home has dequeued what it held (eso_homes), or
	 * has been seen to leave: the wait holds no hotplug lock, which
	 * eso_rxq_leave() may need first.
	 */
	for (;;) {
		cpus_read_lock();
		spin_lock_bh(&eso_move.lock);
		if (!READ_ONCE(eso_move.home))
			break;
		spin_unlock_bh(&eso_move.lock);
		cpus_read_unlock();
		msleep(20);
	}
	eso_homes_place();
	spin_unlock_bh(&eso_move.lock);
	cpus_read_unlock();
}

/*
 * debugfs rx_rehome: move an SA's RX home off the CPU that keeps
 * receiving its packets. N also puts every home back where the hash put
 * it, so that N means the same whatever ran before (an A/B in one boot).
 * Without the lock or a drain: packets of a flow in progress at that
 * moment may reorder once; it is a test's switch, not a data path.
 */
static int eso_rehome_set(u32 on)
{
	WRITE_ONCE(rx_rehome, on);
	if (!on)
		eso_homes_reset();
	return 0;
}

/*
 * debugfs, for tests: move every slot's RX home after this many packets,
 * wherever they arrive (0: off).
 */
static u32 rx_rehome_every;

static struct eso_home *eso_home_slot(__be32 spi)
{
	return &eso_homes[jhash_1word((__force u32)spi, 0) % ESO_HOME_SLOTS];
}

/* On the home CPU, before xfrm_input() takes a packet of @spi's slot. */
static void eso_home_via_xfrm(__be32 spi)
{
	struct eso_home *h = eso_home_slot(spi);

	if (!READ_ONCE(h->via_xfrm))
		WRITE_ONCE(h->via_xfrm, true);
}

/*
 * Runs on the old home, in hard interrupt context: has it drained? See
 * eso_homes. softirq_count() covers a NAPI that is being polled (its
 * softirq was interrupted) and busy polling (bottom halves off); the poll
 * list holds every NAPI scheduled here, gro_cells' among them.
 */
static bool eso_rehome_drained(bool late)
{
	struct eso_rxq *rq = this_cpu_ptr(&eso_rxqs);

	/*
	 * None of the slot's packets went through xfrm_input(), so none is
	 * in asynchronous decryption or in xfrm's gro_cells. Same CPU as
	 * the poll that sets both counts: no barrier needed.
	 */
	if (!READ_ONCE(eso_move.home->via_xfrm))
		return (long)(READ_ONCE(rq->done) - eso_move.target) >= 0;
	if (atomic_read(&eso_rx_inflight) > 0)
		return false;
	/*
	 * Late, only a softirq being served counts: a sender spends long
	 * stretches with bottom halves off (encrypting in dev_queue_xmit()),
	 * and only busy polling, off by default, polls a NAPI there.
	 */
	if (late ? in_serving_softirq() : softirq_count())
		return false;
	return list_empty(&this_cpu_ptr(&softnet_data)->poll_list);
}

static void eso_rehome_finish(bool forced)
{
	struct eso_home *h = eso_move.home;
	struct net *net = eso_move.net;
	unsigned int to = eso_move.to;

	if (forced && net)
		eso_count(net, ESO_RX_REHOME_FORCED);
	/* only the new home hands the slot's packets over from now on */
	WRITE_ONCE(h->via_xfrm, false);
	WRITE_ONCE(h->blocked, false);
	/* the move's fields are read; the next move may now overwrite them */
	smp_store_release(&eso_move.home, NULL);
	eso_rxq_wake(per_cpu_ptr(&eso_rxqs, to), to);
	if (net)
		put_net(net);
}

/* Has the old home taken out every packet queued before the switch? */
static bool eso_rehome_dequeued(void)
{
	struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, eso_move.from);

	return (long)(READ_ONCE(rq->dequeued) - eso_move.target) >= 0;
}

/*
 * The old home went offline during the move: has the net core moved its
 * NAPIs (its gro_cells) elsewhere, and a softirq run them? eso_rxq_leave()
 * has, since it went offline. The timer moves off an outgoing CPU before
 * eso_rx_cpu_dead() counts it offline, hence the first test.
 */
static bool eso_rehome_from_left(void)
{
	struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, eso_move.from);
	unsigned int offlined = READ_ONCE(rq->offlined);

	return offlined != eso_move.offlined &&
	       READ_ONCE(rq->left) == offlined;
}

/*
 * Hard interrupt context, on the old home unless it went offline: then
 * the timer, moved to another CPU with the rest of the old home's, ends
 * the move (counted as forced) once the old home's queue and gro_cells
 * have been delivered elsewhere. After ESO_REHOME_MAX the drain check
 * relaxes for a slot that went through xfrm_input(), after twice that
 * only the dequeue counts (both count as forced): see eso_homes.
 */
static bool eso_rehome_try_finish(void)
{
	bool late = time_after(jiffies, eso_move.deadline);

	if (unlikely(READ_ONCE(eso_move.stop))) {
		/* eso_rx_steer_exit() has delivered the old home's packets */
		eso_rehome_finish(true);
		return true;
	}
	if (!eso_rehome_dequeued())
		return false;
	if (smp_processor_id() != eso_move.from) {
		if (!eso_rehome_from_left())
			return false;
		eso_rehome_finish(true);
		return true;
	}
	if (eso_rehome_drained(late)) {
		/* late, only a slot that went through xfrm was let off */
		eso_rehome_finish(late && READ_ONCE(eso_move.home->via_xfrm));
		return true;
	}
	if (!time_after(jiffies, eso_move.deadline + ESO_REHOME_MAX))
		return false;
	/*
	 * A slot that did not go through xfrm_input() waits only for the
	 * poll that took its last packet, which is running: it completes
	 * soon, whatever time went by with this CPU descheduled.
	 */
	if (!READ_ONCE(eso_move.home->via_xfrm) && in_serving_softirq())
		return false;
	eso_rehome_finish(true);
	return true;
}

static enum hrtimer_restart eso_rehome_timer_fn(struct hrtimer *t)
{
	if (eso_rehome_try_finish())
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(ESO_REHOME_POLL_NS));
	return HRTIMER_RESTART;
}

/* Runs on from: finish now if drained, else poll from its hrtimer. */
static void eso_rehome_arm(void *unused)
{
	if (!eso_rehome_try_finish())
		hrtimer_start(&eso_move.timer, ns_to_ktime(ESO_REHOME_POLL_NS),
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * Move @h's home from @from to @to (see eso_homes), counted in @net unless
 * NULL. Softirq context, from the GRO callback, or bottom halves off, from
 * eso_rebalance_fn(); gives up quietly (false) if another move is under
 * way.
 */
static bool eso_rehome_start(struct eso_home *h, unsigned int from,
			     unsigned int to, struct net *net)
{
	struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, from);
	bool started = false;

	if (to >= nr_cpu_ids || to == from)
		return false;
	if (!spin_trylock(&eso_move.lock))
		return false;
	/* the timer's last run may still be returning, on the last from */
	if (eso_move.home || hrtimer_active(&eso_move.timer))
		goto unlock;
	/*
	 * Under the lock: eso_rxq_leave() takes it once its CPU is off
	 * cpu_online_mask, and must find no move to that CPU starting after.
	 */
	if (!cpu_online(from) || !cpu_online(to))
		goto unlock;
	if (net) {
		net = maybe_get_net(net);
		if (!net)
			goto unlock;
	}

	spin_lock(&rq->q.lock);
	if (READ_ONCE(h->cpu) != from) {
		spin_unlock(&rq->q.lock);
		if (net)
			put_net(net);
		goto unlock;
	}
	h->moved = jiffies;
	eso_move.from = from;
	eso_move.to = to;
	eso_move.deadline = jiffies + ESO_REHOME_MAX;
	eso_move.net = net;
	eso_move.target = rq->enqueued;
	eso_move.offlined = READ_ONCE(rq->offlined);
	/* read locklessly by eso_rx_blocked(), fields first */
	smp_store_release(&eso_move.home, h);
	WRITE_ONCE(h->blocked, true);
	/*
	 * The move and the block are seen before the new home, so a packet
	 * queued on @to finds itself blocked (eso_rx_blocked()). Pairs with
	 * the acquire in eso_rx_steer(); @to's poll takes the packet under
	 * the queue lock the enqueuer released.
	 */
	smp_store_release(&h->cpu, to);
	spin_unlock(&rq->q.lock);
	if (net)
		eso_count(net, ESO_RX_REHOMED);
	started = true;

	if (from == smp_processor_id()) {
		eso_rehome_arm(NULL);
	} else if (smp_call_function_single_async(from, &eso_move.csd)) {
		/* from is going offline: wait from here; or the IPI is busy */
		if (cpu_online(from))
			eso_rehome_finish(true);
		else
			eso_rehome_arm(NULL);
	}
unlock:
	spin_unlock(&eso_move.lock);
	return started;
}

/*
 * Called for each packet the GRO callback queues on @h's home @home:
 * move the home off this CPU when ESO_REHOME_WINDOW packets in a row were
 * mostly (3 in 4) taken here. The counts are racy on purpose; a lost
 * increment only shifts a window.
 */
static void eso_home_note(struct eso_home *h, unsigned int home,
			  struct net *net)
{
	unsigned int every = READ_ONCE(rx_rehome_every);
	unsigned int seen, local;

	if (!READ_ONCE(rx_rehome) && !every)
		return;
	if (home == smp_processor_id())
		h->local++;
	seen = ++h->seen;
	if (seen < (every ?: ESO_REHOME_WINDOW))
		return;
	local = h->local;
	h->seen = 0;
	h->local = 0;
	if (!every && (local * 4 < seen * 3 ||
		       time_before(jiffies, h->moved + ESO_REHOME_HOLD)))
		return;
	/*
	 * An asynchronous AEAD already takes decryption off this CPU, and its
	 * completions would keep the old home from draining. A count that
	 * never falls (packets in flight ended unseen) would keep every home
	 * where it is for good: the watchdog resets it if no completion
	 * comes for ESO_RX_STALE from now.
	 */
	if (atomic_read(&eso_rx_inflight) > 0) {
		if (!timer_pending(&eso_rx_watchdog)) {
			WRITE_ONCE(eso_rx_last_done, jiffies);
			mod_timer(&eso_rx_watchdog, jiffies + ESO_RX_STALE);
		}
		return;
	}
	eso_rehome_start(h, home, eso_home_next(home), net);
}

/* The home's queue must not hand @skb to xfrm yet: see eso_homes. */
static bool eso_rx_blocked(struct sk_buff *skb)
{
	/* the move's fields come with it: eso_rehome_start() */
	struct eso_home *moving = smp_load_acquire(&eso_move.home);

	if (likely(!moving))
		return false;
	/*
	 * Only the new home waits. The old one must drain, and may look
	 * while the move is published but its home not yet switched.
	 */
	return smp_processor_id() == READ_ONCE(eso_move.to) &&
	       eso_home_slot(((struct ip_esp_hdr *)skb->data)->spi) == moving &&
	       READ_ONCE(moving->blocked);
}

/*
 * Hand @skb (ESP header at skb->data, SA attached, XFRM_GRO set) to xfrm,
 * on its SA's home CPU. Called from the GRO callback, softirq context.
 */
void eso_rx_steer(struct sk_buff *skb, __be32 spi)
{
	struct eso_home *h = eso_home_slot(spi);
	struct net *net = dev_net(skb->dev);
	struct eso_rxq *rq;
	unsigned int home;
	bool was_empty;

	dev_hold(skb->dev);
	if (!rx_steer) {
		eso_rx_deliver(skb);
		return;
	}

again:
	/*
	 * A new home is published after its slot is marked blocked. The home
	 * is online, or offline with eso_rxq_leave() still to hand its queue
	 * and its slots over.
	 */
	home = smp_load_acquire(&h->cpu);
	rq = per_cpu_ptr(&eso_rxqs, home);

	spin_lock(&rq->q.lock);
	if (unlikely(READ_ONCE(h->cpu) != home)) {
		/* moved meanwhile: queue behind the switch, on the new home */
		spin_unlock(&rq->q.lock);
		goto again;
	}
	if (unlikely(skb_queue_len(&rq->q) >= ESO_RXQ_MAX)) {
		spin_unlock(&rq->q.lock);
		eso_count(net, ESO_RX_DROP_BACKLOG);
		dev_put(skb->dev);
		kfree_skb(skb);
		return;
	}
	was_empty = skb_queue_empty(&rq->q);
	__skb_queue_tail(&rq->q, skb);
	rq->enqueued++;
	spin_unlock(&rq->q.lock);

	if (home != smp_processor_id())
		eso_count(net, ESO_RX_STEERED);
	eso_home_note(h, home, net);
	if (!was_empty)
		return;	/* the NAPI is scheduled (or throttled) and will get to it */
	eso_rxq_wake(rq, home);
}

/*
 * Process context: run this CPU's pending softirqs until no NAPI is left
 * scheduled here (the gro_cells among them have handed their packets to
 * TCP), or for at most ESO_REHOME_MAX if something keeps scheduling one
 * (a sender on this CPU, under load).
 */
static void eso_rx_settle(void)
{
	unsigned long end = jiffies + ESO_REHOME_MAX;
	bool idle;

	for (;;) {
		local_bh_disable();
		local_bh_enable();	/* runs what is pending */
		local_irq_disable();
		idle = list_empty(&this_cpu_ptr(&softnet_data)->poll_list);
		local_irq_enable();
		if (idle || time_after(jiffies, end))
			return;
		cond_resched();
	}
}

static void eso_rx_settle_fn(struct work_struct *work)
{
	eso_rx_settle();
}

/*
 * Settle every online CPU, at once, and wait. The caller holds the CPU
 * hotplug lock, so the set does not change under it; that is also why
 * this is not schedule_on_each_cpu(), which takes the lock itself.
 */
static void eso_rx_settle_all(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		queue_work_on(cpu, system_highpri_wq,
			      &per_cpu_ptr(&eso_rxqs, cpu)->settle);
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(&eso_rxqs, cpu)->settle);
}

/* Deliver what a queue holds, from whatever CPU calls this. */
static void eso_rxq_drain(struct eso_rxq *rq)
{
	struct sk_buff *skb;

	local_bh_disable();
	while ((skb = skb_dequeue(&rq->q))) {
		eso_rx_deliver(skb);
		rq->dequeued++;
	}
	/* none went to the NAPI's GRO: a move off @rq need not wait for it */
	WRITE_ONCE(rq->done, rq->dequeued);
	local_bh_enable();
}

/* Wait for a move to @cpu to end: it holds packets back for the old home. */
static void eso_rehome_wait_to(unsigned int cpu)
{
	for (;;) {
		bool moving;

		spin_lock_bh(&eso_move.lock);
		moving = READ_ONCE(eso_move.home) && eso_move.to == cpu;
		spin_unlock_bh(&eso_move.lock);
		if (!moving)
			return;
		usleep_range(1000, 2000);
	}
}

/*
 * Under @cpu's queue lock: give its slots to @to. Only eso_rehome_start()
 * moves slots otherwise, and never to or from an offline CPU;
 * eso_homes_reset() runs with hotplug held off.
 */
static void eso_homes_leave(unsigned int cpu, unsigned int to)
{
	unsigned int i;

	for (i = 0; i < ESO_HOME_SLOTS; i++) {
		struct eso_home *h = &eso_homes[i];

		if (READ_ONCE(h->cpu) == cpu)	/* steered here: see eso_rx_steer() */
			smp_store_release(&h->cpu, to);
	}
}

/*
 * Where @cpu's slots and queue go: the new home of a move off @cpu under
 * way, so that its packets from @cpu's queue land in front of the ones it
 * holds back; else the next home CPU. eso_rebalance_fn() spreads them
 * out afterwards.
 */
static unsigned int eso_rxq_heir(unsigned int cpu)
{
	unsigned int to;

	spin_lock_bh(&eso_move.lock);
	if (READ_ONCE(eso_move.home) && eso_move.from == cpu)
		to = eso_move.to;
	else
		to = eso_home_next(cpu);
	spin_unlock_bh(&eso_move.lock);
	return to;
}

/*
 * Both queues locked, both NAPIs off: put what @rq holds in front of what
 * @heir holds (packets of other slots, or those a move off @rq's CPU holds
 * back, which must come after), counted as taken out of @rq and put in
 * @heir, also by a move off @heir that has not seen them dequeued.
 */
static void eso_rxq_hand_over(struct eso_rxq *rq, struct eso_rxq *heir)
{
	unsigned int n = skb_queue_len(&rq->q);
	struct sk_buff *skb;

	skb_queue_walk(&rq->q, skb)
		eso_count(dev_net(skb->dev), ESO_RX_CPU_OFFLINE);
	skb_queue_splice_init(&rq->q, &heir->q);
	rq->dequeued += n;
	WRITE_ONCE(rq->done, rq->dequeued);
	heir->enqueued += n;
	if (READ_ONCE(eso_move.home) && eso_move.from == heir->cpu &&
	    (long)(heir->dequeued - eso_move.target) < 0)
		eso_move.target += n;
}

/*
 * Spread the homes evenly again once a CPU came or went: one that went
 * gave every slot it had to one heir (eso_rxq_leave()), and one that came
 * has none. One slot at a time, by the same move as eso_home_note()'s
 * (eso_homes, so without reordering), from the home CPU with the most
 * slots (or any other online CPU that holds some) to the one with the
 * fewest, until their counts differ by at most one. Slots that moved
 * within ESO_REHOME_HOLD are passed over where another will do: traffic
 * moved them there. At most ESO_REBALANCE_TRIES moves tried per hotplug
 * event, so that eso_home_note() moving slots back cannot keep this going.
 */
#define ESO_REBALANCE_TRIES	(2 * ESO_HOME_SLOTS)
static void eso_rebalance_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(eso_rebalance, eso_rebalance_fn);
static unsigned int *eso_home_count;	/* per CPU, for eso_rebalance_fn() */
static unsigned int eso_rebalance_left;

static void eso_rebalance_kick(void)
{
	WRITE_ONCE(eso_rebalance_left, ESO_REBALANCE_TRIES);
	mod_delayed_work(system_wq, &eso_rebalance, 0);
}

/* The slot to move off @cpu: the last one there, one not moved lately if any. */
static struct eso_home *eso_rebalance_pick(unsigned int cpu)
{
	struct eso_home *h, *any = NULL;
	unsigned int i;

	for (i = ESO_HOME_SLOTS; i-- > 0;) {
		h = &eso_homes[i];
		if (READ_ONCE(h->cpu) != cpu)
			continue;
		if (time_after(jiffies, READ_ONCE(h->moved) + ESO_REHOME_HOLD))
			return h;
		any = any ?: h;
	}
	return any;
}

static void eso_rebalance_fn(struct work_struct *work)
{
	unsigned int *count = eso_home_count;
	unsigned int i, cpu, hi = nr_cpu_ids, lo = nr_cpu_ids;
	unsigned int stray = nr_cpu_ids;
	struct eso_home *h;

	cpus_read_lock();
	if (READ_ONCE(eso_move.home))
		goto again;	/* one at a time */
	memset(count, 0, nr_cpu_ids * sizeof(*count));
	for (i = 0; i < ESO_HOME_SLOTS; i++)
		count[READ_ONCE(eso_homes[i].cpu)]++;
	for_each_online_cpu(cpu) {
		if (!eso_home_cpu_ok(cpu)) {
			if (count[cpu] && stray >= nr_cpu_ids)
				stray = cpu;
			continue;
		}
		if (lo >= nr_cpu_ids || count[cpu] < count[lo])
			lo = cpu;
		if (hi >= nr_cpu_ids || count[cpu] > count[hi])
			hi = cpu;
	}
	if (stray < nr_cpu_ids)
		hi = stray;
	else if (lo >= nr_cpu_ids || count[hi] <= count[lo] + 1)
		goto out;	/* balanced; slots of offline CPUs: a leave is to come */
	if (!READ_ONCE(eso_rebalance_left))
		goto out;
	WRITE_ONCE(eso_rebalance_left, READ_ONCE(eso_rebalance_left) - 1);
	h = eso_rebalance_pick(hi);
	local_bh_disable();
	if (h)
		eso_rehome_start(h, hi, lo, NULL);
	local_bh_enable();
again:
	/* the move ends within ESO_REHOME_MAX * 2 */
	queue_delayed_work(system_wq, &eso_rebalance, 1);
out:
	cpus_read_unlock();
}

/*
 * A CPU went offline: its queue, and the SAs homed on it, go to the
 * online CPUs, without letting a packet overtake an older one of its SA.
 *
 * Not from the hotplug callback itself. That runs before the net core's
 * (dev_cpu_dead(), CPUHP_NET_DEV_DEAD, a lower state, so later on the way
 * down) has moved the dead CPU's NAPIs elsewhere, among them the gro_cells
 * holding the inner packets xfrm decapsulated there last: delivering the
 * queue from the callback would let newer inner packets overtake those.
 * The work waits for the whole offline operation to end
 * (cpus_read_lock()), and by then a softirq has run them. Until it
 * runs, the slots keep the CPU as their home and their packets wait in its
 * queue (its NAPI, moved with the others, delivers nothing elsewhere; see
 * eso_rxq_poll()): sending them to another CPU as soon as this one left
 * cpu_online_mask would have them overtake the ones queued here, and xfrm
 * drop those behind the replay window (XfrmInStateSeqError).
 */
static void eso_rxq_leave(struct work_struct *work)
{
	struct eso_rxq *rq = container_of(work, struct eso_rxq, leave);
	unsigned int cpu = rq->cpu, to;
	struct eso_rxq *heir;
	unsigned int offlined;

	cpus_read_lock();
	/* every offline of @cpu so far has ended: see eso_rehome_from_left() */
	offlined = READ_ONCE(rq->offlined);
	/*
	 * The net core moved @cpu's NAPIs, its gro_cells among them, to the
	 * CPU that took it down: before any packet of @cpu's queue goes up
	 * elsewhere, let those go. On every CPU: that is usually the one
	 * schedule_work() queued us on, but the task taking @cpu down may
	 * have moved between the two callbacks.
	 */
	eso_rx_settle_all();
	if (cpu_online(cpu)) {
		/* back already: the slots never left; wake what waited */
		heir = rq;
		to = cpu;
		goto wake;
	}
	if (test_and_clear_bit(0, &rq->throttled))
		atomic_dec(&eso_rx_nthrottled);
	eso_rehome_wait_to(cpu);
	to = eso_rxq_heir(cpu);
	heir = per_cpu_ptr(&eso_rxqs, to);
	/* no poll may hold packets of either queue while they are joined */
	napi_disable(&rq->napi);
	napi_disable(&heir->napi);
	/* no move starts meanwhile, so eso_rxq_hand_over() sees the one there is */
	spin_lock_bh(&eso_move.lock);
	spin_lock(&rq->q.lock);
	spin_lock_nested(&heir->q.lock, SINGLE_DEPTH_NESTING);
	eso_rxq_hand_over(rq, heir);
	eso_homes_leave(cpu, to);
	spin_unlock(&heir->q.lock);
	spin_unlock(&rq->q.lock);
	spin_unlock_bh(&eso_move.lock);
	napi_enable(&heir->napi);
	napi_enable(&rq->napi);
wake:
	/* wakes while the NAPI was off, or the CPU away, were lost */
	local_bh_disable();
	if (!skb_queue_empty_lockless(&heir->q))
		eso_rxq_wake(heir, to);
	local_bh_enable();
	WRITE_ONCE(rq->left, offlined);
	if (heir != rq)
		eso_rebalance_kick();
	cpus_read_unlock();
}

static int eso_rx_cpu_dead(unsigned int cpu)
{
	struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, cpu);

	WRITE_ONCE(rq->offlined, rq->offlined + 1);
	schedule_work(&rq->leave);
	return 0;
}

/*
 * Before @cpu is online; the work waits for the whole operation to end
 * (cpus_read_lock()).
 */
static int eso_rx_cpu_up(unsigned int cpu)
{
	eso_rebalance_kick();
	return 0;
}

int eso_rx_steer_init(void)
{
	unsigned int cpu;
	int err;

	eso_home_count = kcalloc(nr_cpu_ids, sizeof(*eso_home_count),
				 GFP_KERNEL);
	if (!eso_home_count)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&eso_hk_cpus, GFP_KERNEL)) {
		kfree(eso_home_count);
		return -ENOMEM;
	}
	cpumask_and(eso_hk_cpus, housekeeping_cpumask(HK_TYPE_DOMAIN),
		    housekeeping_cpumask(HK_TYPE_TICK));

	hrtimer_init(&eso_move.timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	eso_move.timer.function = eso_rehome_timer_fn;
	INIT_CSD(&eso_move.csd, eso_rehome_arm, NULL);

	timer_setup(&eso_rx_watchdog, eso_rx_watchdog_fn, 0);
	eso_rx_last_done = jiffies;	/* "no completion yet" is not stale */
	eso_napi_dev = eso_alloc_napi_dev();
	if (!eso_napi_dev) {
		free_cpumask_var(eso_hk_cpus);
		kfree(eso_home_count);
		return -ENOMEM;
	}

	for_each_possible_cpu(cpu) {
		struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, cpu);

		skb_queue_head_init(&rq->q);
		INIT_CSD(&rq->csd, eso_rxq_kick, rq);
		INIT_WORK(&rq->leave, eso_rxq_leave);
		INIT_WORK(&rq->settle, eso_rx_settle_fn);
		rq->cpu = cpu;
		netif_napi_add(eso_napi_dev, &rq->napi, eso_rxq_poll);
		napi_enable(&rq->napi);
	}

	/* no CPU may leave between placing the homes and watching for it */
	cpus_read_lock();
	spin_lock_bh(&eso_move.lock);
	eso_homes_place();
	spin_unlock_bh(&eso_move.lock);
	err = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_BP_PREPARE_DYN,
						   ESO_NAME ":rxq",
						   eso_rx_cpu_up,
						   eso_rx_cpu_dead);
	cpus_read_unlock();
	if (err < 0) {
		eso_rx_steer_exit();
		return err;
	}
	eso_cpuhp_state = err;

	eso_debugfs_bool("rx_steer", &rx_steer);
	eso_debugfs_u32("rx_async_max", &rx_async_max);
	eso_debugfs_bool_hook("rx_rehome", &rx_rehome, eso_rehome_set);
	eso_debugfs_u32("rx_rehome_every", &rx_rehome_every);
	debugfs_create_file("rx_homes", 0400, eso_debugfs_dir(), NULL,
			    &eso_homes_fops);
	return 0;
}

/*
 * Called once nothing can enqueue any more (GRO callback unregistered)
 * and no completion reaches eso_rx_finished() (eso_rx_cb_exit()). Ends
 * in bounded time whatever CPUs come and go meanwhile.
 */
void eso_rx_steer_exit(void)
{
	unsigned int cpu;

	if (eso_cpuhp_state > 0)
		cpuhp_remove_state_nocalls(eso_cpuhp_state);
	eso_cpuhp_state = 0;
	/*
	 * No leave work, nor rebalance, from here on: the queues they would
	 * hand over are delivered below, and a move waiting for one
	 * (eso_rehome_from_left()) is ended below. A settle work is queued
	 * only by eso_rxq_leave(), which flushes it.
	 */
	for_each_possible_cpu(cpu)
		cancel_work_sync(&per_cpu_ptr(&eso_rxqs, cpu)->leave);
	cancel_delayed_work_sync(&eso_rebalance);

	/*
	 * Before waiting for the IPIs: the watchdog sends some (through
	 * eso_rx_unthrottle()), and one sent after the wait below would run
	 * eso_rxq_kick() once the module is gone. No queue throttles from
	 * here on, so none arms it again: the polls that may not have seen
	 * eso_rx_stopping are softirqs, which synchronize_rcu() waits for,
	 * and eso_home_note(), the other caller of mod_timer(), runs from the
	 * GRO callback only. Then the marks go: nothing is left to clear them.
	 */
	WRITE_ONCE(eso_rx_stopping, true);
	synchronize_rcu();
	del_timer_sync(&eso_rx_watchdog);
	for_each_possible_cpu(cpu)
		clear_bit(0, &per_cpu_ptr(&eso_rxqs, cpu)->throttled);
	atomic_set(&eso_rx_nthrottled, 0);

	/*
	 * No poll anywhere from here on (a disabled NAPI takes no wake), so
	 * the queues can be delivered from here. A move under way may wait
	 * for what nothing will now do: its old home's queue to be delivered
	 * (by a NAPI, or eso_rxq_leave() if that CPU went offline), and a
	 * leave work that was cancelled (eso_rehome_from_left()). So deliver
	 * that queue first, which keeps the order of the slot's packets, and
	 * stop the move: its timer, or the IPI that starts it, ends it at the
	 * next look (eso_rehome_try_finish()), ESO_REHOME_POLL_NS at most.
	 */
	for_each_possible_cpu(cpu)
		napi_disable(&per_cpu_ptr(&eso_rxqs, cpu)->napi);
	/* the move's fields come with it: eso_rehome_start() */
	if (smp_load_acquire(&eso_move.home)) {
		eso_rxq_drain(per_cpu_ptr(&eso_rxqs, eso_move.from));
		WRITE_ONCE(eso_move.stop, true);
		while (smp_load_acquire(&eso_move.home))	/* eso_rehome_finish() */
			usleep_range(100, 200);
	}
	/* the timer's last run may still be returning */
	hrtimer_cancel(&eso_move.timer);

	for_each_possible_cpu(cpu) {
		struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, cpu);

		/*
		 * An IPI in flight (a move's end, or a poll off its CPU
		 * before napi_disable()) would run our code: wait for it.
		 * It clears the bit before napi_schedule(), and runs with
		 * interrupts off: netif_napi_del()'s synchronize_net() waits
		 * for the rest of it.
		 */
		while (test_bit(0, &rq->kick_pending))
			cpu_relax();
		eso_rxq_drain(rq);
		netif_napi_del(&rq->napi);
	}
	eso_free_napi_dev(eso_napi_dev);
	free_cpumask_var(eso_hk_cpus);
	kfree(eso_home_count);
}
