# SPDX-License-Identifier: GPL-2.0
# 25-order: two CPUs send on one SA at once, and the receiver's replay window is 32
# (strongSwan's and libreswan's default, shorter than one 45-segment super-packet): a bulk
# TCP stream from CPU 0 and small UDP datagrams from CPU 1, every 0.5 ms. A datagram
# numbered after a super-packet must not reach the wire before it, or the receiver drops
# the super-packet's first segments as outside its window (tx_order.c). So: no
# XfrmInStateSeqError and no replay-window drop on the receiving SA, for ChaCha20-Poly1305
# and AES-GCM (both encrypted at segmentation in one batch); no TCP retransmits beyond veth's
# own drops. tx_renumbered may grow: a gap in the numbers is what a receiver accepts.
# Then ChaCha again behind a qdisc with a backlog (tbf at 100 Mbit/s), where the
# packets that wait were numbered in turn: the order must hold there too.
# Last, ChaCha with tx_order=0 must show the drops, or this test could not fail.
SECS=${ORDER_SECS:-8}

# udp_trickle NS DST_IP SECS: a 100-byte datagram every 0.5 ms, pinned to CPU 1
udp_trickle() {
	nsx "$1" taskset -c 1 python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.monotonic() + float(sys.argv[2])
n = 0
while time.monotonic() < end:
    s.sendto(b"x" * 100, (sys.argv[1], 9))
    n += 1
    time.sleep(0.0005)
print(n)' "$2" "$3"
}

# seq_errors NS: the netns's XfrmInStateSeqError (replay check failures)
seq_errors() {
	awk '$1 == "XfrmInStateSeqError" {print $2}' "/proc/$(ns_pid "$1")/net/xfrm_stat"
}

# sa_replay_drops NS SPI: the SA's replay-window drop count (ip -s xfrm state)
sa_replay_drops() {
	ip -n "$1" -s xfrm state get src "$ADDR_A" dst "$ADDR_B" proto esp spi "$2" 2> /dev/null |
		awk '/replay-window [0-9]+ replay/ {print $2; exit}'
}

if [ "$(nproc)" -lt 2 ]; then
	t_skip "order: needs 2 CPUs"
	return 0
fi
for algo in ${ORDER_ALGOS:-chacha gcm128 chacha-tbf chacha-off}; do
	name="order $algo" off= tbf=
	[ "$algo" = chacha-off ] && name="order chacha, tx_order=0" algo=chacha off=1
	[ "$algo" = chacha-tbf ] && name="order chacha behind tbf" algo=chacha tbf=1
	[ -n "$off" ] && ! have_module && continue
	if ! ns_setup tso-off-both 2> "$T_TMP/err" ||
	   ! XFRM_REPLAY=32 xfrm_setup "$algo" transport 4 2>> "$T_TMP/err"; then
		t_fail "$name: setup" "ns_setup/xfrm_setup failed: $(cat "$T_TMP/err")"
		continue
	fi
	[ -n "$tbf" ] && tc -n a qdisc add dev va root tbf rate 100mbit burst 256kb latency 200ms
	seq0=$(seq_errors b)
	rt0=$(tcp_retrans a) dq0=$(link_stat a va tx dropped)
	rn0=$(counter a tx_renumbered || echo 0) ts0=$(counter a tx_segments || echo 0)
	[ -n "$off" ] && echo 0 > $KNOBS/tx_order
	udp_trickle a "$ADDR_B" "$SECS" > "$T_TMP/udp.n" &
	upid=$!
	if ! iperf_run a b "$ADDR_B" "$SECS" -A 0; then
		wait $upid
		[ -n "$off" ] && echo 1 > $KNOBS/tx_order
		t_fail "$name: iperf3 ran" "$(head -c 600 "$IPERF_JSON" 2>/dev/null)"
		continue
	fi
	wait $upid
	[ -n "$off" ] && echo 1 > $KNOBS/tx_order
	seq1=$(seq_errors b)
	rt1=$(tcp_retrans a) dq1=$(link_stat a va tx dropped)
	rn1=$(counter a tx_renumbered || echo 0)
	drops=$(sa_replay_drops b "$SPI_AB")
	t_diag "$name: $((IPERF_BPS / 1000000)) Mbit/s with $(cat "$T_TMP/udp.n") datagrams beside it," \
		"XfrmInStateSeqError +$((seq1 - seq0)), SA replay-window drops ${drops:-?}," \
		"tx_renumbered +$((rn1 - rn0)), retransmits $IPERF_RETR"
	if [ -n "$off" ] && [ "${T_SLOW_KERNEL:-0}" = 1 ]; then
		# too slow a kernel (make check-debug) may never race the two CPUs
		t_diag "$name: the control, not asserted on a slow kernel: XfrmInStateSeqError +$((seq1 - seq0))"
		continue
	elif [ -n "$off" ]; then
		t_expect "$name: the replay window (32) dropped segments, as it does without the order (XfrmInStateSeqError +$((seq1 - seq0)))" \
			"$((${seq1:-0} - ${seq0:-0}))" -gt 0
		continue
	fi
	t_expect "$name: the replay window (32) dropped nothing (XfrmInStateSeqError +$((seq1 - seq0)))" \
		"$((${seq1:-1} - ${seq0:-0}))" -eq 0
	t_expect "$name: the SA counted no replay-window drop" "${drops:-missing}" -eq 0
	t_expect "$name: no retransmits beyond veth's own drops" \
		"$((${rt1:-999} - ${rt0:-0}))" -le "$((${dq1:-0} - ${dq0:-0}))"
	if [ -n "$tbf" ] && have_module; then
		t_diag "$name: oseq $(($(sa_oseq a "$SPI_AB"))) for $(( $(counter a tx_segments) - ts0 )) packets sent"
	fi
done

# One stream behind tbf: the packets wait in the qdisc, each numbered before the one
# ahead of it left. They must keep their numbers: the SA's oseq stays near the count
# of packets sent (asking only "still the SA's newest?" renumbered nearly all of them).
if have_module; then
	name="order, one stream behind tbf"
	if ns_setup tso-off-both 2> "$T_TMP/err" &&
	   XFRM_REPLAY=32 xfrm_setup chacha transport 4 2>> "$T_TMP/err" &&
	   tc -n a qdisc add dev va root tbf rate 100mbit burst 256kb latency 200ms 2>> "$T_TMP/err"; then
		rn0=$(counter a tx_renumbered) ts0=$(counter a tx_segments)
		if iperf_run a b "$ADDR_B" 4 -A 0; then
			oseq=$(($(sa_oseq a "$SPI_AB"))) sent=$(( $(counter a tx_segments) - ts0 ))
			t_expect "$name: the packets kept their numbers (oseq $oseq for $sent packets sent, tx_renumbered +$(( $(counter a tx_renumbered) - rn0 )))" \
				"$oseq" -le $((sent + sent / 4))
		else
			t_fail "$name: iperf3 ran" "$(head -c 600 "$IPERF_JSON" 2>/dev/null)"
		fi
	else
		t_fail "$name: setup" "$(cat "$T_TMP/err")"
	fi
fi
ns_cleanup
