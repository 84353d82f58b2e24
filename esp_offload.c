// SPDX-License-Identifier: GPL-2.0
/*
 * esp_swoffload: software GSO/GRO offload for IPsec ESP.
 *
 * Module init/exit. The module takes the same four slots the stock
 * esp4_offload/esp6_offload modules take: the ESP xfrm_type_offload of
 * each address family (new SAs pick it up at creation) and the ESP entry
 * of inet_offloads/inet6_offloads (GRO receive and GSO segment). Each
 * slot holds one owner. The xfrm ones are not claimed atomically (a
 * second registration overwrites the first with a WARN), so we look
 * before we take and refuse to load if anything holds one of them. The
 * other way round, a stock offload module loading while we hold them
 * would overwrite our xfrm slots, fail on the inet ones and be freed,
 * leaving its freed type_offload for every new SA: we refuse its load.
 *
 * IPv6 is optional: with IPv6 off (ipv6.disable=1), where esp6 cannot
 * load, or if esp6 fails to load, we take the two IPv4 slots alone and
 * leave the IPv6 ones (and esp6_offload) be.
 *
 * Unloading: every SA created while we are loaded holds a reference on
 * this module (xfrm_get_type_offload), so rmmod is refused with "in use"
 * until those SAs are deleted; then nothing can reach our callbacks but
 * GRO, which inet_del_offload() waits out.
 */

#include <linux/module.h>
#include <crypto/aead.h>
#include <net/protocol.h>
#include <net/xfrm.h>

#include "esp_swoffload.h"
#include "chacha_simd.h"
#include "gcm_simd.h"

static const struct net_offload eso_offload4 = {
	.callbacks = {
		.gro_receive = eso_gro_receive4,
		.gso_segment = eso_gso_segment4,
	},
};

static const struct net_offload eso_offload6 = {
	.callbacks = {
		.gro_receive = eso_gro_receive6,
		.gso_segment = eso_gso_segment6,
	},
};

/* The IPv6 half (its slots, and esp6 behind it) is in use. */
static bool eso_v6;

static bool eso_type_slot_taken(unsigned short family)
{
	struct xfrm_state_afinfo *afinfo;
	bool taken;

	rcu_read_lock();
	afinfo = xfrm_state_afinfo_get_rcu(family);
	taken = afinfo && afinfo->type_offload_esp;
	rcu_read_unlock();
	return taken;
}

static bool eso_slots_taken(void)
{
	if (eso_type_slot_taken(AF_INET) ||
	    rcu_access_pointer(inet_offloads[IPPROTO_ESP]))
		return true;
	return eso_v6 && (eso_type_slot_taken(AF_INET6) ||
			  rcu_access_pointer(inet6_offloads[IPPROTO_ESP]));
}

/* xfrm has no AF_INET6 afinfo when IPv6 is off (ipv6.disable=1). */
static bool eso_ipv6_up(void)
{
	bool up;

	rcu_read_lock();
	up = !!xfrm_state_afinfo_get_rcu(AF_INET6);
	rcu_read_unlock();
	return up;
}

/*
 * Take the IPv6 half if IPv6 is up and esp6 loads; else offload IPv4 SAs
 * alone, and leave esp6_offload free to take the IPv6 slots.
 */
static void eso_v6_probe(void)
{
	if (!eso_ipv6_up()) {
		pr_info(ESO_NAME ": IPv6 is disabled: offloading IPv4 SAs only\n");
		return;
	}
	eso_v6 = eso_esp6_get();
	if (!eso_v6)
		pr_warn(ESO_NAME ": esp6 did not load: offloading IPv4 SAs only\n");
}

/*
 * esp4_offload/esp6_offload's init takes the xfrm slot with only a WARN if
 * it is held, and does not give it back when it then fails to take the
 * inet one: refuse them before their init runs (prepare_coming_module()).
 */
static int eso_module_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;

	if (action != MODULE_STATE_COMING ||
	    (strcmp(mod->name, "esp4_offload") &&
	     (!eso_v6 || strcmp(mod->name, "esp6_offload"))))
		return NOTIFY_DONE;
	pr_err(ESO_NAME ": refusing to load %s: it would take the ESP offload slots this module holds; 'rmmod esp_swoffload' first\n",
	       mod->name);
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block eso_module_nb = {
	.notifier_call = eso_module_notify,
};

static int eso_register(void)
{
	int err;

	if (inet_add_offload(&eso_offload4, IPPROTO_ESP))
		return -EBUSY;
	err = xfrm_register_type_offload(&eso_type_offload4, AF_INET);
	if (err)
		goto out_del4;
	if (!eso_v6)
		return 0;
	if (inet6_add_offload(&eso_offload6, IPPROTO_ESP)) {
		err = -EBUSY;
		goto out_unreg4;
	}
	err = xfrm_register_type_offload(&eso_type_offload6, AF_INET6);
	if (err)
		goto out_del6;
	return 0;

out_del6:
	inet6_del_offload(&eso_offload6, IPPROTO_ESP);
out_unreg4:
	xfrm_unregister_type_offload(&eso_type_offload4, AF_INET);
out_del4:
	inet_del_offload(&eso_offload4, IPPROTO_ESP);
	return err;
}

static void eso_unregister(void)
{
	if (eso_v6) {
		xfrm_unregister_type_offload(&eso_type_offload6, AF_INET6);
		inet6_del_offload(&eso_offload6, IPPROTO_ESP);
	}
	xfrm_unregister_type_offload(&eso_type_offload4, AF_INET);
	inet_del_offload(&eso_offload4, IPPROTO_ESP);
}

/*
 * Wait until the crypto manager has run its self-test of @driver.
 * Kernels that test asynchronously return from crypto_register_aead()
 * before the test ends; a lookup waits for it. So insmod returns with
 * our AEADs tested (an SA created right after it gets them, not the
 * stock driver) and fails if the kernel's known answers do.
 */
static int eso_aead_tested(const char *driver)
{
	struct crypto_aead *tfm = crypto_alloc_aead(driver, 0, 0);

	if (IS_ERR(tfm)) {
		pr_err(ESO_NAME ": %s failed the crypto self-test (%ld)\n",
		       driver, PTR_ERR(tfm));
		return PTR_ERR(tfm);
	}
	crypto_free_aead(tfm);
	return 0;
}

static int __init eso_init(void)
{
	int err;

	/* first, so that none of them loads between the look and the take */
	err = register_module_notifier(&eso_module_nb);
	if (err)
		return err;
	eso_v6_probe();
	if (eso_slots_taken()) {
		pr_err(ESO_NAME ": the ESP offload slots are taken (esp4_offload or esp6_offload is loaded); run 'rmmod esp4_offload esp6_offload' and load again\n");
		err = -EBUSY;
		goto out_notifier;
	}

	eso_debugfs_init();
	eso_hooks_init();
	eso_rx_decap_init();
	err = eso_stats_init();
	if (err)
		goto out_debugfs;

	err = eso_tx_order_init();
	if (err)
		goto out_stats;

	err = eso_tx_pages_init();
	if (err)
		goto out_order;

	err = eso_rx_steer_init();
	if (err)
		goto out_pages;

	err = eso_rx_cb_init();
	if (err)
		goto out_steer;

	/*
	 * The AEAD comes last but for the slots: once registered, any SA
	 * created from then on may hold it, and a module whose init fails
	 * is freed whatever it holds (crypto_unregister_alg() only warns).
	 * So nothing that can fail for an ordinary reason follows it; the
	 * slots fail only if esp4_offload loads within this very window.
	 */
	err = esp_chacha_init();
	if (err)
		goto out_csum;

	err = eso_aead_tested(ESP_CHACHA_DRIVER);
	if (err)
		goto out_chacha;

	err = esp_gcm_init();
	if (err)
		goto out_chacha;

	err = esp_gcm_registered() ? eso_aead_tested(ESP_GCM_DRIVER) : 0;
	if (err)
		goto out_gcm;

	err = eso_register();
	if (err) {
		pr_err(ESO_NAME ": could not take the ESP offload slots (%d)\n",
		       err);
		goto out_gcm;
	}

	pr_info(ESO_NAME ": ESP GSO/GRO offload active for SAs created from now on\n");
	return 0;

out_gcm:
	esp_gcm_exit();
out_chacha:
	esp_chacha_exit();
out_csum:
	eso_rx_cb_exit();
out_steer:
	eso_rx_steer_exit();
out_pages:
	eso_tx_pages_exit();
out_order:
	eso_tx_order_exit();
out_stats:
	eso_stats_exit();
out_debugfs:
	eso_debugfs_exit();
out_notifier:
	unregister_module_notifier(&eso_module_nb);
	if (eso_v6)
		eso_esp6_put();
	return err;
}

static void __exit eso_exit(void)
{
	eso_debugfs_exit();
	eso_unregister();
	/* only now may the stock modules take the slots */
	unregister_module_notifier(&eso_module_nb);
	esp_gcm_exit();
	esp_chacha_exit();
	eso_rx_cb_exit();
	eso_rx_steer_exit();
	eso_tx_pages_exit();
	eso_tx_order_exit();
	eso_stats_exit();
	if (eso_v6)
		eso_esp6_put();
}

module_init(eso_init);
module_exit(eso_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Software GSO/GRO offload for IPsec ESP");
MODULE_SOFTDEP("pre: esp4 esp6");
MODULE_VERSION("0.1.0");
