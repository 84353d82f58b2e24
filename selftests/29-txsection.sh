# SPDX-License-Identifier: GPL-2.0
# 29-txsection: four senders, one per CPU, into one SA (transport mode): ChaCha20-Poly1305
# on veth as it is (a packet's turn in the TX order section spans its transmit) and
# behind an fq qdisc (the turn spans its hand-over from segmentation); then AES-CBC +
# HMAC-SHA256, which the module does not batch, on veth. A packet draws a ticket when it
# is numbered, is encrypted beside the packets ahead of it, and leaves in its turn
# (tx_order.c). debugfs tx_section shows what the section cost: how many tickets were
# drawn while another was out (their encryption overlapped), how often a CPU waited, the
# longest wait and turn, and the bytes finished in a turn and between a draw and its
# turn's end. Asserted: tickets overlapped; with ChaCha no ESP byte was finished in a
# turn (the batch encrypts before it, so the others never wait for an encryption); with
# CBC, encrypted per segment on the way to veth, at most one GSO packet's bytes; no
# ticket covered more than one GSO packet; no sequence error at the receiver. The
# nanoseconds are emulated time: printed, not asserted.
SECS=${TXSECTION_SECS:-6}
# one GSO packet's segments: 64 KiB of IP packet, and for each of its at most 46
# segments a copy of the headers (IP, TCP with options: 60) and ESP's header, IV,
# padding, trailer and ICV (at most 8 + 16 + 17 + 16)
TXSECTION_MAX_BYTES=$((65536 + 46 * (60 + 57)))

# txsection_read FIELD: one line of debugfs tx_section
txsection_read() {
	awk -v f="$1" '$1 == f {print $2}' "$KNOBS/tx_section"
}

# txsection_senders NAME: four iperf3 clients pinned to CPUs 0-3, one SA
txsection_senders() {
	local name=$1 i pids= fails=0
	for i in 0 1 2 3; do
		nsx b iperf3 -s -1 -p $((5301 + i)) > /dev/null 2>&1 &
	done
	sleep 0.5
	for i in 0 1 2 3; do
		nsx a taskset -c $i iperf3 -c "$ADDR_B" -p $((5301 + i)) -t "$SECS" -J \
			> "$T_TMP/txs.$i.json" 2>&1 &
		pids="$pids $!"
	done
	for i in $pids; do wait "$i" || fails=$((fails + 1)); done
	[ $fails -eq 0 ] || t_diag "$name: $fails of 4 iperf3 clients failed: $(head -c 300 "$T_TMP/txs.0.json")"
	return $fails
}

if ! have_module; then
	t_skip "tx section: needs the module"
	return 0
fi
if [ "$(nproc)" -lt 4 ]; then
	t_skip "tx section: needs 4 CPUs (make check runs it in the 4-CPU VM)"
	return 0
fi
for run in "chacha veth" "chacha fq" "cbc-sha256 veth"; do
	algo=${run% *} qd=${run#* }
	name="tx section, 4 senders, $algo, $qd"
	if ! ns_setup tso-off-both 2> "$T_TMP/err" ||
	   ! XFRM_REPLAY=32 xfrm_setup "$algo" transport 4 2>> "$T_TMP/err"; then
		t_fail "$name: setup" "$(cat "$T_TMP/err")"
		continue
	fi
	[ $qd = fq ] && tc -n a qdisc add dev va root fq
	echo 1 > "$KNOBS/tx_section"
	seq0=$(xfrm_stat b XfrmInStateSeqError)
	if ! txsection_senders "$name"; then
		t_fail "$name: the four streams ran"
		ns_cleanup
		continue
	fi
	sections=$(txsection_read sections) overlapped=$(txsection_read overlapped)
	hold_bytes=$(txsection_read max_hold_bytes)
	section_bytes=$(txsection_read max_section_bytes)
	t_diag "$name: $sections tickets, $overlapped drawn while another was out," \
		"$(txsection_read contended) waits; longest wait" \
		"$(($(txsection_read max_wait_ns) / 1000)) us, longest turn" \
		"$(($(txsection_read max_hold_ns) / 1000)) us (emulated time);" \
		"most bytes in a turn $hold_bytes, under a ticket $section_bytes"
	t_expect "$name: encryption overlapped another's ticket (overlapped)" \
		"$overlapped" -gt 0
	if [ "$algo" = chacha ]; then
		t_expect "$name: no bytes encrypted in a turn (max_hold_bytes)" \
			"$hold_bytes" -eq 0
	else
		# an AEAD not the module's encrypts each segment in validate_xmit_xfrm(),
		# which on veth runs in the turn: one GSO packet's worth at most
		t_expect "$name: no turn encrypted more than one GSO packet (max_hold_bytes)" \
			"$hold_bytes" -le $TXSECTION_MAX_BYTES
	fi
	t_expect "$name: no ticket covered more than one GSO packet (max_section_bytes)" \
		"$section_bytes" -le $TXSECTION_MAX_BYTES
	# four streams share the link, so TCP sizes its GSO packets smaller
	t_expect "$name: a ticket covered a GSO packet (max_section_bytes > 3000)" \
		"$section_bytes" -gt 3000
	t_expect "$name: no sequence error at the receiver" \
		"$(($(xfrm_stat b XfrmInStateSeqError) - seq0))" -eq 0
	ns_cleanup
done
kernel_log_check "tx section: kernel log"
