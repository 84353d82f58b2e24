# SPDX-License-Identifier: GPL-2.0
# Extended sequence numbers across the 2^32 wrap. The sending SA starts a
# few hundred packets below the wrap, so the low 32 bits roll over inside
# GSO batches: every segment after the wrap must carry the incremented high
# half in its ICV (esp_output_tail reads it per segment), or the receiver,
# which tracks the high half from its replay window, rejects it.

esn_wrap_case() {
	local algo=$1 fam=$2 mode=$3 ns oseq_lo oseq_hi d
	ns_setup tso-off || { t_fail "esn $algo v$fam: setup"; return; }
	xfrm_setup "$algo" "$mode" "$fam" esn || { t_fail "esn $algo v$fam: xfrm"; return; }
	# re-create the a->b SA in both namespaces close to the wrap
	_alg "$algo" 1
	for ns in a b; do
		ip -n $ns xfrm state del src "$OUT_A" dst "$OUT_B" proto esp spi $SPI_AB
		ip -n $ns xfrm state add src "$OUT_A" dst "$OUT_B" proto esp spi $SPI_AB reqid 1 \
			mode "$mode" replay-window 128 flag esn \
			replay-seq 0xfffffe00 replay-oseq 0xfffffe00 "${ALG[@]}" ||
			{ t_fail "esn $algo v$fam: SA near the wrap"; return; }
	done
	if xfer a b "$ADDR_B" 4; then t_ok "esn $algo v$fam $mode: 4 MiB intact across the 2^32 wrap"
	else t_fail "esn $algo v$fam $mode: 4 MiB intact across the 2^32 wrap" "$XFER_WHY"; fi
	# "seq-hi 0x0, seq 0x0, oseq-hi 0x1, oseq 0x..." -> 0x1
	d=$(ip -n a xfrm state list spi $SPI_AB | awk '/oseq-hi/ {for (i = 1; i <= NF; i++)
		if ($i == "oseq-hi") {v = $(i + 1); sub(/,$/, "", v); print v}}')
	t_expect "esn $algo v$fam $mode: sender's high half advanced (oseq-hi ${d:-?})" "$((${d:-0}))" -ge 1
	t_expect "esn $algo v$fam $mode: no xfrm errors at the receiver" "$(xfrm_errors_total b)" -eq 0
	have_module &&
		t_expect "esn $algo v$fam $mode: carried by the module" "$(counter a tx_gso_skbs)" -gt 0
	# the module's own AEADs: encrypted per GSO packet and decrypted per RX run by the
	# module, which builds the associated data (SPI, high half, low half) itself
	if have_module && [ "$algo" != cbc-sha256 ]; then
		t_expect "esn $algo v$fam $mode: encrypted in batches (tx_batched $(counter a tx_batched))" \
			"$(counter a tx_batched)" -gt 0
		t_expect "esn $algo v$fam $mode: decrypted in batches (rx_batched $(counter b rx_batched))" \
			"$(counter b rx_batched)" -gt 0
	fi
}

# oseq_exhausted_case: an SA without ESN whose numbers run out. The module takes
# numbers itself for a VM's TSO packets forwarded into the SA (SKB_GSO_DODGY,
# gso_segs 0: xfrm reserved none, see 10-traffic): 5 packets of 7 segments, 20
# numbers left. The first two get numbers; the other three must be dropped and
# counted as xfrm counts a packet it cannot number (XfrmOutStateSeqError), and no
# number may wrap to 0.
oseq_exhausted_case() {
	local name="numbers run out (forwarded guest TSO, no ESN)" t0 s0 p0 d0 f0 oseq
	if ! { modprobe -q tun && ns_setup tso-off && xfrm_setup gcm128 tunnel 4; }; then
		t_fail "$name: setup"; return
	fi
	_alg gcm128 1
	ip -n a xfrm state del src "$OUT_A" dst "$OUT_B" proto esp spi $SPI_AB
	ip -n a xfrm state add src "$OUT_A" dst "$OUT_B" proto esp spi $SPI_AB reqid 1 \
		mode tunnel replay-window 32 replay-oseq 0xffffffeb "${ALG[@]}" ||
		{ t_fail "$name: SA 20 numbers before the end"; return; }
	ip -n a xfrm policy add src 10.5.0.0/24 dst "$IN4_B/32" dir out \
		tmpl src "$OUT_A" dst "$OUT_B" proto esp reqid 1 mode tunnel
	nsx a sysctl -qw net.ipv4.ip_forward=1
	t0=$(counter a tx_segments) f0=$(counter a fallback_gso_bad) d0=$(counter b rx_decrypted)
	s0=$(xfrm_stat a XfrmOutStateSeqError) p0=$(xfrm_stat a XfrmOutStateProtoError)
	nsx a $TAPGSO tap0 10.5.0.1/24 10.5.0.2 "$IN4_B" 5
	sleep 0.5
	nsx a sysctl -qw net.ipv4.ip_forward=0
	oseq=$(sa_oseq a $SPI_AB)
	t_expect "$name: 2 packets sent (tx_segments +$(( $(counter a tx_segments) - t0 )))" \
		$(( $(counter a tx_segments) - t0 )) -eq 14
	t_expect "$name: the SA's last number is 0xfffffff9 (oseq ${oseq:-?})" \
		"$((${oseq:-0}))" -eq $((0xfffffff9))
	t_expect "$name: 3 counted as XfrmOutStateSeqError (+$(( $(xfrm_stat a XfrmOutStateSeqError) - s0 )))" \
		$(( $(xfrm_stat a XfrmOutStateSeqError) - s0 )) -eq 3
	t_expect "$name: not as XfrmOutStateProtoError (+$(( $(xfrm_stat a XfrmOutStateProtoError) - p0 )))" \
		"$(xfrm_stat a XfrmOutStateProtoError)" -eq "$p0"
	t_expect "$name: not as a GSO packet refused (fallback_gso_bad +$(( $(counter a fallback_gso_bad) - f0 )))" \
		"$(counter a fallback_gso_bad)" -eq "$f0"
	t_expect "$name: all 14 decrypted (rx_decrypted +$(( $(counter b rx_decrypted) - d0 )))" \
		$(( $(counter b rx_decrypted) - d0 )) -eq 14
	# a number wrapped to 0 would be a replay to the receiver
	t_expect "$name: none replayed at the receiver (XfrmInStateSeqError $(xfrm_stat b XfrmInStateSeqError))" \
		"$(xfrm_stat b XfrmInStateSeqError)" -eq 0
	t_diag "$name: the receiver's xfrm_stat: $(xfrm_errors b | tr '\n' ' ')"
}

esn_wrap_case gcm128 4 transport
esn_wrap_case gcm128 6 tunnel
esn_wrap_case cbc-sha256 4 transport
esn_wrap_case gcm256 4 transport
esn_wrap_case chacha 4 transport
have_module && oseq_exhausted_case
xfrm_flush
