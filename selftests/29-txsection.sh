# SPDX-License-Identifier: GPL-2.0
# 29-txsection: four senders, one per CPU, into one SA (ChaCha20-Poly1305, transport
# mode), on veth as it is (the TX order section spans each packet's whole transmit)
# and behind an fq qdisc (the section spans the numbering and encryption of one GSO
# packet at segmentation). debugfs tx_section shows what the section cost: how often
# a CPU found it taken, the longest wait, and the most a CPU did while holding it.
# A CPU holds a section for one packet: at most one GSO packet's bytes (64 KiB and
# its ESP overhead), whatever the number of senders, so the time the others wait
# for it is bounded by that much encryption (times the AEAD's cycles per byte on a
# real CPU) per CPU ahead of them. Asserted: the senders met at the section, no
# CPU held it for more than one GSO packet, and no replay or sequence error at the
# receiver. The nanoseconds are emulated time: printed, not asserted.
SECS=${TXSECTION_SECS:-6}
# one GSO packet: 64 KiB of IP packet, plus ESP's header, IV, trailer and ICV
TXSECTION_MAX_BYTES=$((65536 + 64))

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
for qd in veth fq; do
	name="tx section, 4 senders, $qd"
	if ! ns_setup tso-off-both 2> "$T_TMP/err" ||
	   ! XFRM_REPLAY=32 xfrm_setup chacha transport 4 2>> "$T_TMP/err"; then
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
	sections=$(txsection_read sections) contended=$(txsection_read contended)
	hold_bytes=$(txsection_read max_hold_bytes)
	t_diag "$name: $sections sections, $contended found taken;" \
		"longest wait $(($(txsection_read max_wait_ns) / 1000)) us," \
		"longest hold $(($(txsection_read max_hold_ns) / 1000)) us and $hold_bytes bytes (emulated time)"
	t_expect "$name: the senders met at the section (contended)" "$contended" -gt 0
	t_expect "$name: no CPU held it for more than one GSO packet (max_hold_bytes)" \
		"$hold_bytes" -le $TXSECTION_MAX_BYTES
	# four streams share the link, so TCP sizes its GSO packets smaller
	t_expect "$name: a CPU held it for a GSO packet (max_hold_bytes > 3000)" \
		"$hold_bytes" -gt 3000
	t_expect "$name: no sequence error at the receiver" \
		"$(($(xfrm_stat b XfrmInStateSeqError) - seq0))" -eq 0
	ns_cleanup
done
kernel_log_check "tx section: kernel log"
