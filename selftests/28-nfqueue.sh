# SPDX-License-Identifier: GPL-2.0
# 28-nfqueue: an NFQUEUE for ESP in OUTPUT whose listener does not take GSO packets
# (NFQA_CFG_F_GSO unset; selftests/nfqueue.py). nfnetlink_queue then segments the
# transformed super-packet itself, at LOCAL_OUT, before ip_output() has set skb->dev:
# the module's segmentation must take the device from the route. So: 4 MiB intact,
# the listener saw the segments, and the module segmented them (tx_gso_skbs grew), for
# ChaCha20-Poly1305 and AES-GCM (encrypted in one batch at segmentation) and
# AES-CBC/HMAC-SHA256 (encrypted later, per segment, at the device), IPv4 and IPv6.
if ! command -v nft > /dev/null; then
	t_skip "nfqueue: nft missing (scripts/install-deps.sh installs nftables)"
	return 0
fi
modprobe -q nfnetlink_queue; modprobe -q nft_queue
for algo in chacha gcm128 cbc-sha256; do
	for fam in 4 6; do
		name="nfqueue $algo v$fam"
		if ! ns_setup tso-off 2> "$T_TMP/err" ||
		   ! xfrm_setup $algo transport $fam 2>> "$T_TMP/err"; then
			t_fail "$name: setup" "$(cat "$T_TMP/err")"
			continue
		fi
		table="table inet t { chain out { type filter hook output priority 0; meta l4proto esp queue num 0; }; }"
		if ! nsx a nft "$table" 2>> "$T_TMP/err"; then
			t_fail "$name: nft queue rule" "$(cat "$T_TMP/err")"
			continue
		fi
		rm -f "$T_TMP/nfq.stop"
		nsx a python3 "$(dirname "${BASH_SOURCE[0]:-$0}")/nfqueue.py" 0 120 "$T_TMP/nfq.stop" \
			> "$T_TMP/nfq.out" 2>&1 &
		qpid=$!
		i=0
		while ! grep -qs bound "$T_TMP/nfq.out" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		g0=$(counter a tx_gso_skbs)
		if xfer a b "$ADDR_B" 4; then
			t_ok "$name: 4 MiB intact through the queue"
		else
			t_fail "$name: 4 MiB intact through the queue" "$XFER_WHY" "$(cat "$T_TMP/nfq.out")"
		fi
		g1=$(counter a tx_gso_skbs)
		touch "$T_TMP/nfq.stop"; wait $qpid
		seen=$(tail -1 "$T_TMP/nfq.out")
		t_diag "$name: the listener saw $seen packets; tx_gso_skbs +$((g1 - g0))"
		t_expect "$name: the listener saw the packets" "${seen:-0}" -gt 1000
		t_expect "$name: the module segmented them (tx_gso_skbs)" "$((g1 - g0))" -gt 0
	done
done
ns_cleanup
