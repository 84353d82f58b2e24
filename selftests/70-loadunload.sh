# SPDX-License-Identifier: GPL-2.0
# Loading and unloading: refusal while esp4_offload/esp6_offload hold the
# slots and of them while the module does, rmmod under traffic (refused while SAs use the module, traffic
# unharmed), insmod under traffic (SAs created earlier keep the stock path,
# nothing breaks), and a clean unload once the SAs are gone.

if ! have_module; then
	t_skip "load/unload" "module not loaded"
	return 0 2>/dev/null || exit 0
fi

# 1. rmmod while an iperf3 runs over SAs of the module
ns_setup tso-off
xfrm_setup gcm128 transport 4
( sleep 3; rmmod esp_swoffload > "$T_TMP/rmmod.out" 2>&1; echo $? >> "$T_TMP/rmmod.out" ) &
rmpid=$!
rt0=$(tcp_retrans a) ds0=$(tcp_dsacked a) o0=$(tcp_ofo b)
iperf_run a b "$ADDR_B" 6
wait $rmpid
rt1=$(tcp_retrans a) ds1=$(tcp_dsacked a) o1=$(tcp_ofo b)
bps=${IPERF_BPS:-0} retr=${IPERF_RETR:-x}
out=$(head -n -1 "$T_TMP/rmmod.out"); rc=$(tail -n 1 "$T_TMP/rmmod.out")
t_expect "rmmod under traffic is refused while SAs use the module" $rc -ne 0
t_diag "rmmod said: $out"
t_check "module still loaded after the refused rmmod" test -r /proc/net/esp_swoffload
t_expect "iperf3 across the refused rmmod: data flowed ($((${bps:-0} / 1000000)) Mbit/s)" "${bps:-0}" -gt 1000000
# a refused rmmod runs no code of the module (delete_module() stops at the
# reference count), so any loss here would be the module's. Under emulation a
# late ACK can still fire a tail-loss probe or a spurious RTO that the peer
# DSACKs; those are timers, not losses, and are not counted (as in 60-async).
t_expect "iperf3 across the refused rmmod: zero retransmits but probes and DSACK-proven spurious ones ($retr in all, $((ds1 - ds0)) DSACKed)" \
	"$((${rt1:-999} - ${rt0:-0} - (${ds1:-0} - ${ds0:-0})))" -le 0
t_expect "iperf3 across the refused rmmod: no segment arrived out of order (TCPOFOQueue +$((o1 - o0)))" \
	$((o1 - o0)) -eq 0
[ "$retr" = 0 ] || retrans_why a b | while read -r l; do t_diag "refused rmmod: $l"; done

# 2. once the SAs are gone, rmmod works
xfrm_flush
if unload_module; then t_ok "rmmod after the SAs are deleted"
else t_fail "rmmod after the SAs are deleted" "$(lsmod | grep esp_swoffload)"; fi

# 3. refused while esp4_offload/esp6_offload hold the slots, with a clear reason
if modprobe esp4_offload && modprobe esp6_offload; then
	dmesg_clear
	if insmod "$ESP_MODULE" 2>/dev/null; then
		t_fail "insmod refused while esp4_offload is loaded"
		rmmod esp_swoffload
	else
		t_ok "insmod refused while esp4_offload is loaded"
	fi
	t_check "dmesg names the modules to unload" \
		bash -c 'dmesg | grep -q "rmmod esp4_offload esp6_offload"'
	t_check "nothing of ours registered (esp4_offload still works)" \
		bash -c '! test -e /proc/net/esp_swoffload'
	rmmod esp6_offload esp4_offload
else
	t_skip "conflict with esp4_offload" "esp4_offload not available"
fi

# 3b. the other way round: while the module holds the slots the stock modules are
# refused before their init runs. That init would overwrite the xfrm slot with a
# WARN, fail on the inet one and be freed, leaving its freed type_offload to every
# new SA.
if ! modinfo esp4_offload > /dev/null 2>&1; then
	t_skip "stock offload modules refused while loaded" "esp4_offload not available"
elif insmod "$ESP_MODULE"; then
	dmesg_clear
	for m in esp4_offload esp6_offload; do
		if modprobe $m 2>/dev/null; then
			t_fail "$m refused while the module is loaded"
			rmmod $m
		else
			t_ok "$m refused while the module is loaded"
		fi
		t_check "dmesg says why $m was refused" \
			bash -c "dmesg | grep -q 'refusing to load $m'"
	done
	t_check "no WARN about the slots" bash -c '! dmesg | grep -q WARNING'
	ns_setup tso-off
	for fam in 4 6; do
		xfrm_setup gcm128 transport $fam
		s0=$(counter a tx_segments)
		if xfer a b "$ADDR_B" 1; then t_ok "v$fam after the refusals: data intact"
		else t_fail "v$fam after the refusals: data intact" "$XFER_WHY"; fi
		t_expect "v$fam after the refusals: new SAs use the module (tx_segments +$(( $(counter a tx_segments) - s0 )))" \
			"$(counter a tx_segments)" -gt "$s0"
	done
	xfrm_flush
	unload_module || t_fail "rmmod after the refusals" "$(lsmod | grep esp_swoffload)"
	if modprobe esp4_offload; then
		t_ok "esp4_offload loads once the module is gone"
		rmmod esp4_offload
	else
		t_fail "esp4_offload loads once the module is gone"
	fi
else
	t_fail "insmod for the refusal case"
fi

# 4. esp-null SAs made before the insmod: their packets are still taken at GRO,
# but not as the module's esp-null, which ends in the module's input_tail (such
# SAs have none): xfrm decrypts them as usual.
ns_setup tso-off
xfrm_setup null transport 4
if insmod "$ESP_MODULE"; then
	if xfer a b "$ADDR_B" 2; then t_ok "esp-null SAs from before the insmod: data intact"
	else t_fail "esp-null SAs from before the insmod: data intact" "$XFER_WHY"; fi
	t_expect "esp-null SAs from before the insmod: RX taken at GRO (rx_gro_packets)" \
		"$(counter b rx_gro_packets)" -gt 0
	t_expect "esp-null SAs from before the insmod: not as the module's own (rx_null)" \
		"$(counter b rx_null)" -eq 0
	xfrm_flush
	unload_module || t_fail "rmmod after the esp-null case" "$(lsmod | grep esp_swoffload)"
else
	t_fail "insmod for the esp-null case"
fi

# 5. insmod under traffic: SAs made before keep the stock path
ns_setup tso-off
xfrm_setup gcm128 transport 4
( sleep 2; insmod "$ESP_MODULE" ) &
inspid=$!
if xfer a b "$ADDR_B" 6; then t_ok "insmod during a transfer over older SAs: data intact"
else t_fail "insmod during a transfer over older SAs: data intact" "$XFER_WHY"; fi
wait $inspid
t_check "module loaded again" test -r /proc/net/esp_swoffload
t_expect "older SAs stay on the stock path (tx_segments)" "$(counter a tx_segments)" -eq 0

# 6. new SAs pick the module up
xfrm_setup gcm128 transport 4
if xfer a b "$ADDR_B" 2; then t_ok "new SAs after reload: data intact"
else
	t_fail "new SAs after reload: data intact" "$XFER_WHY"
	t_diag "$(counters a; xfrm_errors a; xfrm_errors b; ip -n a -s link; ip -n a xfrm state)"
fi
t_expect "new SAs use the module (tx_segments)" "$(counter a tx_segments)" -gt 100
xfrm_flush
ns_cleanup

# 7. rmmod and insmod again and again while packets of SAs made before the insmod flow:
# those SAs do not hold the module, and GRO still takes their packets (case 4), so each
# rmmod runs its exit with queues, moves and timers busy. Their AEAD is pcrypt
# (asynchronous) and at most one packet may be in asynchronous decryption
# (rx_async_max=1), so the queues throttle all the time and the watchdog, 1 s after a
# completion it missed, wakes them with IPIs; the homes move every 64 packets; CPU 1
# goes offline and online every 0.3 s, so a move's old home may leave with its leave
# work still to run. Every rmmod must end within 20 s (exit used to wait for a move
# that only a cancelled leave work could end) and the kernel log stay clean (an IPI
# the watchdog sent after exit waited for them ran in freed code).
#
# pcrypt itself is kept on CPU 0 (pcrypt_fence): on 6.12 pcrypt oopses when a CPU in
# its masks comes or goes under traffic, module or not (docs/design.md, "pcrypt and CPU
# hotplug"; seen in a CI run of this test), and padata rebuilds only for CPUs in its
# masks, so CPU 1 can come and go while pcrypt stays asynchronous.
pcrypt_fence() {
	local f
	for f in /sys/kernel/pcrypt/p{en,de}crypt/{parallel,serial}_cpumask; do
		[ -w "$f" ] || return 1
		if [ "$1" = on ]; then
			cat "$f" > "$T_TMP/${f//\//_}"
			echo 1 > "$f" || return 1
		else
			cat "$T_TMP/${f//\//_}" > "$f" || return 1
		fi
	done
}

reload_rounds() {
	local i rc plug tp inst drv ok=0 thr=0 mv=0
	ns_setup tso-off
	tc -n a qdisc replace dev va root pfifo
	tc -n b qdisc replace dev vb root pfifo
	# an SA instantiates seqiv over the best rfc4106 driver: pcrypt goes over that
	xfrm_setup gcm128 transport 4
	xfrm_flush
	drv=$(seqiv_driver 'rfc4106(gcm(aes))')
	inst="pcrypt($drv)"
	if ! $CU add "$inst"; then
		t_fail "reloads under async traffic: instantiate $inst"
		return
	fi
	xfrm_setup gcm128 transport 4
	nsx b timeout 120 iperf3 -s -1 -p 5299 > /dev/null 2>&1 &
	wait_listen b 5299
	nsx a timeout 100 iperf3 -c "$ADDR_B" -p 5299 -t 60 > /dev/null 2>&1 &
	tp=$!
	( while :; do
		echo 0 > /sys/devices/system/cpu/cpu1/online; sleep 0.3
		echo 1 > /sys/devices/system/cpu/cpu1/online; sleep 0.3
	  done ) &
	plug=$!
	for i in $(seq 1 "${RELOAD_ROUNDS:-5}"); do
		if ! insmod "$ESP_MODULE"; then
			t_fail "reloads under async traffic: insmod $i"
			break
		fi
		echo 1 > "$KNOBS/rx_async_max"
		echo 64 > "$KNOBS/rx_rehome_every"
		sleep "0.$((RANDOM % 9 + 1))"
		thr=$((thr + $(counter b rx_async_throttled))) mv=$((mv + $(counter b rx_rehomed)))
		rm -f "$T_TMP/rmmod.rc"
		( rmmod esp_swoffload; echo $? > "$T_TMP/rmmod.rc" ) &
		for rc in $(seq 1 80); do
			[ -s "$T_TMP/rmmod.rc" ] && break
			sleep 0.25
		done
		if [ ! -s "$T_TMP/rmmod.rc" ]; then
			t_fail "reloads under async traffic: rmmod $i ended within 20 s" \
				"$(grep -i esp_swoffload /proc/modules)"
			break
		fi
		[ "$(cat "$T_TMP/rmmod.rc")" = 0 ] || unload_module
		ok=$i
	done
	kill $plug; wait $plug 2>/dev/null
	echo 1 > /sys/devices/system/cpu/cpu1/online
	kill $tp 2>/dev/null; wait $tp 2>/dev/null
	t_expect "reloads under async traffic, CPU 1 coming and going: every rmmod ended ($ok of ${RELOAD_ROUNDS:-5})" \
		"$ok" -eq "${RELOAD_ROUNDS:-5}"
	# or the rounds proved nothing
	t_expect "reloads under async traffic: queues throttled before the rmmods (rx_async_throttled $thr)" "$thr" -gt 0
	t_expect "reloads under async traffic: homes moved before the rmmods (rx_rehomed $mv)" "$mv" -gt 0
	xfrm_flush
	ns_cleanup
	# the SAs go after the xfrm GC and skbs parked on the CPUs' defer lists
	for rc in $(seq 1 40); do
		pcrypt_del "$inst" 1 && break
		flush_defer_lists
		sleep 0.25
	done
	# left behind, it would be the AEAD of every later test's SAs
	t_check "reloads under async traffic: $inst deleted" \
		bash -c "! grep -q '^driver.*: $inst\$' /proc/crypto"
}
if [ "$(nproc)" -lt 2 ] || [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
	t_skip "reloads under async traffic" "needs a hotpluggable CPU 1"
elif ! modprobe -q crypto_user || ! modprobe -q pcrypt; then
	t_skip "reloads under async traffic" "no crypto_user or pcrypt"
elif ! pcrypt_fence on; then
	t_fail "reloads under async traffic: pcrypt kept on CPU 0" \
		"$(grep . /sys/kernel/pcrypt/p*/*_cpumask 2>&1)"
else
	lsmod | grep -q '^esp_swoffload ' && unload_module
	reload_rounds
	t_check "reloads under async traffic: pcrypt back on its CPUs" pcrypt_fence off
	kernel_log_check "reloads under async traffic: kernel log clean"
fi
lsmod | grep -q '^esp_swoffload ' || insmod "$ESP_MODULE"
