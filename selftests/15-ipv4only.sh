# SPDX-License-Identifier: GPL-2.0
# 15-ipv4only: the module without esp6. It looks esp6 up at load instead of linking
# against it, so that it loads where esp6 cannot: on a host booted with
# ipv6.disable=1 (esp6's xfrm_register_type() finds no AF_INET6 afinfo), or where
# esp6 is kept out. Then it must say that it offloads IPv4 SAs only, carry IPv4 SAs
# on its fast path, still refuse esp4_offload, and (where IPv6 is up) unload and load
# again cleanly.
# scripts/check.sh boots a VM with ipv6.disable=1 for 10-traffic (whose matrix is
# IPv4-only there) and this file; in the ordinary boot, esp6 is kept out with an
# "install esp6 /bin/false" line in modprobe.d instead.
if ! have_module; then
	t_skip "without esp6" "module not loaded"
	return 0 2>/dev/null || exit 0
fi

# v4_fast_path LABEL: 2 MiB over an IPv4 SA of each AEAD, through the module
v4_fast_path() {
	local algo name g0 g1 r0 r1
	if ! ns_setup tso-off 2> "$T_TMP/err"; then
		t_fail "$1: netns setup" "$(cat "$T_TMP/err")"
		return
	fi
	for algo in gcm128 chacha; do
		name="$1 $algo"
		if ! xfrm_setup $algo transport 4 2> "$T_TMP/err"; then
			t_fail "$name: setup" "$(cat "$T_TMP/err")"
			continue
		fi
		g0=$(counter a tx_gso_skbs) r0=$(counter b rx_decrypted)
		if xfer a b "$ADDR_B" 2; then t_ok "$name: 2 MiB intact"
		else t_fail "$name: 2 MiB intact" "$XFER_WHY"; fi
		g1=$(counter a tx_gso_skbs) r1=$(counter b rx_decrypted)
		t_expect "$name: segmented by the module (tx_gso_skbs +$((g1 - g0)))" $((g1 - g0)) -gt 0
		t_expect "$name: decrypted at GRO (rx_decrypted +$((r1 - r0)))" $((r1 - r0)) -gt 1000
	done
	# Let the transfers' connections finish closing while the SAs still carry them:
	# a FIN sent after the flush is lost, and its socket keeps retransmitting it for
	# minutes, holding a route through the SA and so the module (slow kernels).
	local i=0
	while [ $i -lt 50 ] && nsx a ss -Htan | grep -v -e LISTEN -e TIME-WAIT | grep -q .; do
		sleep 0.2; i=$((i + 1))
	done
	xfrm_flush	# at once: a netns' SAs go (and unpin the module) later
	ns_cleanup
}

# load LABEL MESSAGE: insmod the module, expect MESSAGE in dmesg
load() {
	local out
	dmesg_clear
	if out=$(insmod "$ESP_MODULE" 2>&1) && have_module; then
		t_ok "$1: insmod"
	else
		t_fail "$1: insmod" "$out" "$(dmesg | tail -5)"
		return 1
	fi
	t_check "$1: dmesg says '$2'" bash -c "dmesg | grep -qF '$2'"
}

# unload LABEL (the SAs just flushed unpin the module only after xfrm's state GC, the
# netns teardown and the CPUs' deferred skb frees ran: see flush_defer_lists)
unload() {
	unload_module 120 && return 0
	t_fail "$1: rmmod" "$(lsmod | grep esp_)"
	return 1
}

if ipv6_up; then
	name="esp6 kept out"
	msg="esp_swoffload: esp6 did not load: offloading IPv4 SAs only"
	conf=/etc/modprobe.d/zz-selftest-no-esp6.conf
	xfrm_flush; ns_cleanup
	if unload "$name" && rmmod esp6; then
		echo "install esp6 /bin/false" > "$conf"
		if load "$name" "$msg"; then
			t_check "$name: esp6 is not loaded" bash -c "! grep -q '^esp6 ' /proc/modules"
			v4_fast_path "$name"
			unload "$name"
		fi
		rm -f "$conf"
		modprobe esp6
		load "$name, esp6 back" "esp_swoffload: ESP GSO/GRO offload active" &&
			t_check "$name, esp6 back: no 'IPv4 SAs only' now" \
				bash -c "! dmesg | grep -q 'IPv4 SAs only'"
	else
		t_fail "$name: rmmod esp_swoffload esp6" "$(lsmod | grep esp)"
	fi
	have_module || insmod "$ESP_MODULE"
	return 0 2>/dev/null || exit 0
fi

name="ipv4-only"
msg="esp_swoffload: IPv6 is disabled: offloading IPv4 SAs only"
t_check "$name: dmesg says '$msg'" bash -c "dmesg | grep -qF '$msg'"
t_check "$name: esp6 is not loaded" bash -c "! grep -q '^esp6 ' /proc/modules"
v4_fast_path "$name"
dmesg_clear
if modprobe esp4_offload 2> /dev/null; then
	t_fail "$name: esp4_offload refused while the module is loaded" "it loaded"
	rmmod esp4_offload
else
	t_check "$name: esp4_offload refused while the module is loaded" \
		bash -c "dmesg | grep -q 'refusing to load esp4_offload'"
fi
