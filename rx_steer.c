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
 * the SA's home CPU (chosen by hashing the SPI over the possible CPUs, as
 * RSS would choose a queue); a NAPI instance per CPU drains that FIFO into
 * xfrm_input(). One FIFO and one CPU per SA keep the order from the wire
 * to TCP, and the decryption moves off the CPU that received the packet,
 * which on veth is also the one that sent it.
 *
 * The FIFO is bounded (ESO_RXQ_MAX packets); beyond that packets are
 * dropped and counted (rx_drop_backlog), as netdev_max_backlog does.
 */

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/xfrm.h>

#include "compat.h"
#include "esp_swoffload.h"

#define ESO_RXQ_MAX 8192

struct eso_rxq {
	struct sk_buff_head q;
	struct napi_struct napi;
	call_single_data_t csd;
	unsigned long kick_pending;
};

static DEFINE_PER_CPU_ALIGNED(struct eso_rxq, eso_rxqs);
static struct net_device *eso_napi_dev;
static unsigned int *eso_home_cpus;
static unsigned int eso_nr_home_cpus;
static enum cpuhp_state eso_cpuhp_state;

static bool rx_steer = true;
module_param(rx_steer, bool, 0644);
MODULE_PARM_DESC(rx_steer,
		 "Hand each SA's packets to xfrm on one CPU, in order (default: Y)");

/* Hand one queued packet to xfrm; drops the device ref taken at enqueue. */
static void eso_rx_deliver(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	/* skb->data is the ESP header, as the GRO callback left it */
	xfrm_input(skb, IPPROTO_ESP, ((struct ip_esp_hdr *)skb->data)->spi, 0);
	dev_put(dev);
}

static int eso_rxq_poll(struct napi_struct *napi, int budget)
{
	struct eso_rxq *rq = container_of(napi, struct eso_rxq, napi);
	struct sk_buff_head batch;
	int work = 0;

	__skb_queue_head_init(&batch);
	while (work < budget) {
		struct sk_buff *skb;

		if (skb_queue_empty(&batch)) {
			spin_lock(&rq->q.lock);
			skb_queue_splice_init(&rq->q, &batch);
			spin_unlock(&rq->q.lock);
			if (skb_queue_empty(&batch))
				break;
		}
		skb = __skb_dequeue(&batch);
		eso_rx_deliver(skb);
		work++;
	}

	if (!skb_queue_empty(&batch)) {
		/* budget spent: what we took goes back in front, in order */
		spin_lock(&rq->q.lock);
		skb_queue_splice(&batch, &rq->q);
		spin_unlock(&rq->q.lock);
	} else if (work < budget) {
		napi_complete_done(napi, work);
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

static unsigned int eso_rx_home(__be32 spi)
{
	unsigned int cpu;

	cpu = eso_home_cpus[reciprocal_scale(jhash_1word((__force u32)spi, 0),
					     eso_nr_home_cpus)];
	return cpu_online(cpu) ? cpu : smp_processor_id();
}

/*
 * Hand @skb (ESP header at skb->data, SA attached, XFRM_GRO set) to xfrm,
 * on its SA's home CPU. Called from the GRO callback, softirq context.
 */
void eso_rx_steer(struct sk_buff *skb, __be32 spi)
{
	struct net *net = dev_net(skb->dev);
	unsigned int cpu;
	struct eso_rxq *rq;
	bool was_empty;

	dev_hold(skb->dev);
	if (!rx_steer) {
		eso_rx_deliver(skb);
		return;
	}

	cpu = eso_rx_home(spi);
	rq = per_cpu_ptr(&eso_rxqs, cpu);

	spin_lock(&rq->q.lock);
	if (unlikely(skb_queue_len(&rq->q) >= ESO_RXQ_MAX)) {
		spin_unlock(&rq->q.lock);
		eso_count(net, ESO_RX_DROP_BACKLOG);
		dev_put(skb->dev);
		kfree_skb(skb);
		return;
	}
	was_empty = skb_queue_empty(&rq->q);
	__skb_queue_tail(&rq->q, skb);
	spin_unlock(&rq->q.lock);

	if (cpu != smp_processor_id())
		eso_count(net, ESO_RX_STEERED);
	if (!was_empty)
		return;	/* the NAPI is scheduled and will get to it */
	if (cpu == smp_processor_id())
		napi_schedule(&rq->napi);
	else if (!test_and_set_bit(0, &rq->kick_pending))
		smp_call_function_single_async(cpu, &rq->csd);
}

/* Deliver what a queue holds, from whatever CPU calls this. */
static void eso_rxq_drain(struct eso_rxq *rq)
{
	struct sk_buff *skb;

	local_bh_disable();
	while ((skb = skb_dequeue(&rq->q)))
		eso_rx_deliver(skb);
	local_bh_enable();
}

/* A CPU went away: deliver what was queued for it (SAs re-home to others). */
static int eso_rx_cpu_dead(unsigned int cpu)
{
	eso_rxq_drain(per_cpu_ptr(&eso_rxqs, cpu));
	return 0;
}

int eso_rx_steer_init(void)
{
	unsigned int cpu, n = 0;
	int err;

	eso_home_cpus = kcalloc(num_possible_cpus(), sizeof(*eso_home_cpus),
				GFP_KERNEL);
	if (!eso_home_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		eso_home_cpus[n++] = cpu;
	eso_nr_home_cpus = n;

	eso_napi_dev = eso_alloc_napi_dev();
	if (!eso_napi_dev) {
		kfree(eso_home_cpus);
		return -ENOMEM;
	}

	for_each_possible_cpu(cpu) {
		struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, cpu);

		skb_queue_head_init(&rq->q);
		INIT_CSD(&rq->csd, eso_rxq_kick, rq);
		netif_napi_add(eso_napi_dev, &rq->napi, eso_rxq_poll);
		napi_enable(&rq->napi);
	}

	err = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, ESO_NAME ":rxq",
					NULL, eso_rx_cpu_dead);
	if (err < 0) {
		eso_rx_steer_exit();
		return err;
	}
	eso_cpuhp_state = err;
	return 0;
}

/* Called once nothing can enqueue any more (GRO callback unregistered). */
void eso_rx_steer_exit(void)
{
	unsigned int cpu;

	if (eso_cpuhp_state > 0)
		cpuhp_remove_state_nocalls(eso_cpuhp_state);
	eso_cpuhp_state = 0;

	for_each_possible_cpu(cpu) {
		struct eso_rxq *rq = per_cpu_ptr(&eso_rxqs, cpu);

		napi_disable(&rq->napi);
		/* an IPI in flight would schedule a NAPI we are deleting */
		while (test_bit(0, &rq->kick_pending))
			cpu_relax();
		eso_rxq_drain(rq);
		netif_napi_del(&rq->napi);
	}
	eso_free_napi_dev(eso_napi_dev);
	kfree(eso_home_cpus);
}
