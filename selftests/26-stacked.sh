# SPDX-License-Identifier: GPL-2.0
# 26-stacked: the TX order section next to a qdisc's lock. With every SA in one lock
# stripe (tx_order_bits=0), SA 1 sends from CPU 0 over a vlan (no qdisc of its own) on
# veth va, and SA 2 from CPU 1 over va itself, where a tbf qdisc segments each GSO
# packet at enqueue, under its root lock, so that CPU waits for the section while
# holding that lock. A section held across the vlan's transmit would wait for the same
# lock: both CPUs spin with bottom halves off (a soft lockup; this test sets
# softlockup_panic, so the VM ends). tx_order.c therefore holds the section only across
# a veth's or loopback's own transmit. So: both streams finish with their data on their
# SA, and the kernel log shows no soft lockup.
# Then the same with SA 1 over another veth, vx, whose tc egress filter redirects every
# packet to va (mirred): a veth with egress hooks is no leaf either.
SECS=${STACKED_SECS:-8}
VLAN_A=10.100.0.1 VLAN_B=10.100.0.2 SPI_VAB=0x3000 SPI_VBA=0x4000
RDR_A=10.101.0.1 RDR_B=10.101.0.2

# stacked_streams NAME DST1: a stream to DST1 over SA 1 from CPU 0 and one to b over
# SA 2 (va, tbf) from CPU 1 at once; both must finish, on their SAs, without a lockup
stacked_streams() {
	local name=$1 dst1=$2 lockup_panic bytes1 bytes2 spid vpid rc1 rc2 bps2
	lockup_panic=$(cat /proc/sys/kernel/softlockup_panic)
	echo 1 > /proc/sys/kernel/softlockup_panic
	bytes1=$(sa_bytes a $SPI_VAB) bytes2=$(sa_bytes a "$SPI_AB")
	# the first stream by hand: iperf_run's port and result file are per shell
	nsx b timeout $((SECS + 60)) iperf3 -s -1 -p 5301 > /dev/null 2>&1 &
	spid=$!
	wait_listen b 5301
	nsx a timeout $((SECS + 60)) iperf3 -c "$dst1" -p 5301 -t "$SECS" -A 0 > /dev/null 2>&1 &
	vpid=$!
	iperf_run a b "$IP4_B" "$SECS" -A 1
	rc2=$? bps2=$IPERF_BPS
	wait $vpid
	rc1=$?
	wait $spid
	echo "$lockup_panic" > /proc/sys/kernel/softlockup_panic
	bytes1=$(($(sa_bytes a $SPI_VAB) - bytes1)) bytes2=$(($(sa_bytes a "$SPI_AB") - bytes2))
	t_diag "$name: over SA 1 $bytes1 bytes; over tbf $((${bps2:-0} / 1000000)) Mbit/s," \
		"$bytes2 bytes on SA $SPI_AB; $(tc -n a -s qdisc show dev va | awk '/Sent/ {print "tbf sent", $4, "packets"}')"
	t_expect "$name: the stream over SA 1 finished" "$rc1" -eq 0
	t_expect "$name: the stream over tbf finished" "$rc2" -eq 0
	t_expect "$name: SA 1 carried the first stream (bytes)" "$bytes1" -gt 1000000
	t_expect "$name: SA 2 (tbf) carried the second stream (bytes)" "$bytes2" -gt 1000000
	if dmesg | grep -q "soft lockup"; then
		t_fail "$name: no soft lockup in the kernel log" "$(dmesg | grep -m3 "soft lockup")"
	else
		t_ok "$name: no soft lockup in the kernel log"
	fi
}

# stacked_sas A B: SA 1 between A and B (null, transport, both netns) after
# xfrm_setup's SA 2, and va's tbf
stacked_sas() {
	xfrm_setup null transport 4 2> "$T_TMP/err" &&
	_xfrm_sa a "$1" "$2" $SPI_VAB 3 transport null 1 "" &&
	_xfrm_sa a "$2" "$1" $SPI_VBA 4 transport null 2 "" &&
	_xfrm_sa b "$1" "$2" $SPI_VAB 3 transport null 1 "" &&
	_xfrm_sa b "$2" "$1" $SPI_VBA 4 transport null 2 "" &&
	_xfrm_pol a "$1" "$2" "$1" "$2" transport 3 4 32 &&
	_xfrm_pol b "$2" "$1" "$2" "$1" transport 4 3 32 &&
	tc -n a qdisc add dev va root tbf rate 20gbit burst 16k latency 100ms 2>> "$T_TMP/err"
}

if ! have_module; then
	t_skip "stacked: needs the module"
	return 0
fi
if [ "$(nproc)" -lt 2 ]; then
	t_skip "stacked: needs 2 CPUs"
	return 0
fi
if ! ns_setup tso-off-both 2> "$T_TMP/err" || ! unload_module ||
   ! insmod "$ESP_MODULE" 2>> "$T_TMP/err" ||
   ! echo 0 2>> "$T_TMP/err" > "$KNOBS/tx_order_bits"; then
	t_fail "stacked: setup (netns, insmod tx_order_bits=0)" "$(cat "$T_TMP/err")"
	have_module || insmod "$ESP_MODULE"
	return 0
fi
ok=1
for ns in a b; do
	dev=v$ns me=$VLAN_A peer=$VLAN_B
	[ $ns = b ] && me=$VLAN_B peer=$VLAN_A
	ip -n $ns link add link "$dev" name "$dev.100" type vlan id 100 &&
	ip -n $ns addr add "$me/24" dev "$dev.100" &&
	ip -n $ns link set "$dev.100" up &&
	nsx $ns ethtool -K "$dev.100" tso off > /dev/null || ok=
	# SA 1 over the vlan; xfrm_setup below adds SA 2 (its flush comes first)
done
if [ -z "$ok" ] || ! stacked_sas $VLAN_A $VLAN_B; then
	t_fail "stacked: vlan, SAs and tbf set up" "$(cat "$T_TMP/err")"
	ns_cleanup; unload_module; insmod "$ESP_MODULE"
	return 0
fi
stacked_streams stacked $VLAN_B

# SA 1 over vx, whose packets tc redirects to va; b takes them on vb
if ns_setup tso-off-both 2> "$T_TMP/err" &&
   ip -n a link add vx type veth peer name vy 2>> "$T_TMP/err" &&
   ip -n a -batch - <<-EOB 2>> "$T_TMP/err" &&
	link set vx up
	link set vy up
	addr add $RDR_A/32 dev vx
	route add $RDR_B/32 dev vx src $RDR_A
	neigh replace $RDR_B lladdr $MAC_B dev vx nud permanent
	EOB
   tc -n a qdisc add dev vx clsact 2>> "$T_TMP/err" &&
   tc -n a filter add dev vx egress matchall action mirred egress redirect dev va \
	2>> "$T_TMP/err" &&
   ip -n b -batch - <<-EOB 2>> "$T_TMP/err" &&
	addr add $RDR_B/32 dev vb
	route add $RDR_A/32 dev vb src $RDR_B
	neigh replace $RDR_A lladdr $MAC_A dev vb nud permanent
	EOB
   nsx a ethtool -K vx tso off > /dev/null && stacked_sas $RDR_A $RDR_B; then
	stacked_streams "stacked, redirected veth" $RDR_B
else
	t_fail "stacked, redirected veth: set up" "$(cat "$T_TMP/err")"
fi
ns_cleanup
if ! unload_module || ! insmod "$ESP_MODULE"; then
	t_fail "stacked: module loaded again without tx_order_bits"
fi
