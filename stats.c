// SPDX-License-Identifier: GPL-2.0
/*
 * Per-netns counters, read from /proc/net/esp_swoffload.
 *
 * Counters are per-CPU and only ever added to, so the hot path takes no
 * lock and dirties no shared cache line; a reader sums over all CPUs.
 */

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "esp_swoffload.h"

unsigned int eso_net_id __read_mostly;

static const char *const eso_counter_names[ESO_NR_COUNTERS] = {
	[ESO_TX_GSO_SKBS]	= "tx_gso_skbs",
	[ESO_TX_SEGMENTS]	= "tx_segments",
	[ESO_TX_BATCHED]	= "tx_batched",
	[ESO_TX_NULL]		= "tx_null",
	[ESO_TX_ASYNC]		= "tx_async",
	[ESO_TX_ASYNC_NOQUEUE]	= "tx_async_noqueue",
	[ESO_TX_ERRORS]		= "tx_errors",
	[ESO_TX_RECYCLED]	= "tx_recycled",
	[ESO_TX_LINEAR_COPIES]	= "tx_linear_copies",
	[ESO_TX_RENUMBERED]	= "tx_renumbered",
	[ESO_TX_BACKLOG_DROPPED] = "tx_backlog_dropped",
	[ESO_RX_GRO_PACKETS]	= "rx_gro_packets",
	[ESO_RX_DECRYPTED]	= "rx_decrypted",
	[ESO_RX_BATCHED]	= "rx_batched",
	[ESO_RX_BATCH_ESN_STALE] = "rx_batch_esn_stale",
	[ESO_RX_NULL]		= "rx_null",
	[ESO_RX_NULL_CSUM_KEPT]	= "rx_null_csum_kept",
	[ESO_RX_DECAPPED]	= "rx_decapped",
	[ESO_RX_CSUM_BY_ICV]	= "rx_csum_by_icv",
	[ESO_RX_ASYNC]		= "rx_async",
	[ESO_RX_ASYNC_THROTTLED] = "rx_async_throttled",
	[ESO_RX_DROP_TRUNCATED]	= "rx_drop_truncated",
	[ESO_RX_DROP_NO_STATE]	= "rx_drop_no_state",
	[ESO_RX_DROP_SECPATH]	= "rx_drop_secpath",
	[ESO_RX_DROP_BACKLOG]	= "rx_drop_backlog",
	[ESO_RX_STEERED]	= "rx_steered",
	[ESO_RX_REHOMED]	= "rx_rehomed",
	[ESO_RX_REHOME_FORCED]	= "rx_rehome_forced",
	[ESO_RX_CPU_OFFLINE]	= "rx_cpu_offline",
	[ESO_FALLBACK_GSO_BAD]	= "fallback_gso_bad",
};

static int eso_stats_show(struct seq_file *seq, void *v)
{
	struct eso_net *en = net_generic(seq_file_single_net(seq), eso_net_id);
	int c, cpu;

	for (c = 0; c < ESO_NR_COUNTERS; c++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += READ_ONCE(per_cpu_ptr(en->stats, cpu)->ctr[c]);
		seq_printf(seq, "%s %llu\n", eso_counter_names[c], sum);
	}
	return 0;
}

static int __net_init eso_net_init(struct net *net)
{
	struct eso_net *en = net_generic(net, eso_net_id);

	en->stats = alloc_percpu(struct eso_pcpu_stats);
	if (!en->stats)
		return -ENOMEM;

	if (!proc_create_net_single(ESO_NAME, 0444, net->proc_net,
				    eso_stats_show, NULL)) {
		free_percpu(en->stats);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit eso_net_exit(struct net *net)
{
	struct eso_net *en = net_generic(net, eso_net_id);

	remove_proc_entry(ESO_NAME, net->proc_net);
	free_percpu(en->stats);
}

static struct pernet_operations eso_net_ops = {
	.init = eso_net_init,
	.exit = eso_net_exit,
	.id   = &eso_net_id,
	.size = sizeof(struct eso_net),
};

int eso_stats_init(void)
{
	return register_pernet_subsys(&eso_net_ops);
}

void eso_stats_exit(void)
{
	unregister_pernet_subsys(&eso_net_ops);
}
