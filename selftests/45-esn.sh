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
}

esn_wrap_case gcm128 4 transport
esn_wrap_case gcm128 6 tunnel
esn_wrap_case cbc-sha256 4 transport
# ChaCha20-Poly1305 is encrypted in batches per GSO packet (tx_batched), with the
# associated data (SPI, high half, low half) built by the module itself
esn_wrap_case chacha 4 transport
xfrm_flush
