# SPDX-License-Identifier: GPL-2.0
# 80-strongswan: the fast path under a real IKE daemon. Two strongSwan charon instances
# (Debian's strongswan-charon + strongswan-swanctl), one per netns, each with its own
# strongswan.conf, a private /run and its vici socket under /var/tmp/<ns>/, negotiate
# IKEv2 with a pre-shared key. a (10.0.0.1, fd00::1) initiates, b responds.
#   - child SAs: IPv4 and IPv6, transport and tunnel mode, aes128gcm16; a subset with
#     chacha20poly1305. Each: xfer of SW_MB MiB (sha256 checked), tx_segments(a) and
#     rx_gro_packets(b) grew, `ip -s xfrm state` byte counters of both SAs non-zero.
#   - rekey: `swanctl --rekey --child` twice in the middle of a SW_REKEY_MB MiB transfer
#     (sha256 equal, new SPIs, new SAs on the fast path), then once during an iperf3.
# The helpers and the swanctl.conf (the one shown in docs/deploy.md) are in swan.sh.
SW_MB=${SW_MB:-4}
SW_REKEY_MB=${SW_REKEY_MB:-96}
XFER_TIMEOUT=${XFER_TIMEOUT:-60}
CHARON=${CHARON:-/usr/lib/ipsec/charon}
. "$(dirname "${BASH_SOURCE[0]:-$0}")/swan.sh"

if [ ! -x "$CHARON" ] || ! command -v swanctl > /dev/null; then
	t_skip "strongswan" "strongswan-charon/strongswan-swanctl not installed"
	return 0 2>/dev/null || exit 0
fi

# sw_case IKE CHILD MODE FAMILY ALGNAME : bring the child up, move data, check, tear down
sw_case() {
	local ike=$1 child=$2 mode=$3 fam=$4 alg=$5 name spi_ab spi_ba why tx0 rx0 tx1 rx1 b_ab b_ba st
	name="strongswan $alg $mode ipv$fam"
	xfrm_addrs "$mode" "$fam"
	if ! swc a --initiate --ike "$ike" --child "$child" --timeout 40 > "$T_TMP/init.out"; then
		t_fail "$name: child SA up" "$(tail -5 "$T_TMP/init.out"; cat "$T_TMP/swc.err"; tail -15 "$(sw_dir a)/charon.log")"
		return 1
	fi
	spi_ab=$(out_spis a "$OUT_A" "$OUT_B") spi_ba=$(out_spis b "$OUT_B" "$OUT_A")
	st=$(ip -n a xfrm state list src "$OUT_A" dst "$OUT_B")
	why=
	[ "$(echo $spi_ab | wc -w)" = 1 ] && [ "$(echo $spi_ba | wc -w)" = 1 ] || why="expected one SA per direction: a->b '$spi_ab', b->a '$spi_ba'"
	echo "$st" | grep -q "mode $mode" || why="${why:+$why; }SA not in $mode mode"
	case $alg in
	gcm) echo "$st" | grep -q 'rfc4106(gcm(aes))' || why="${why:+$why; }SA not rfc4106(gcm(aes))" ;;
	chacha) echo "$st" | grep -q 'rfc7539esp(chacha20,poly1305)' || why="${why:+$why; }SA not rfc7539esp(chacha20,poly1305)" ;;
	esac
	spi_ab=${spi_ab% } spi_ba=${spi_ba% }
	if [ -z "$why" ]; then t_ok "$name: child SA up ($spi_ab / $spi_ba)"
	else t_fail "$name: child SA up" "$why" "$st"; fi
	tx0=$(counter a tx_segments) rx0=$(counter b rx_gro_packets)
	why=
	xfer a b "$ADDR_B" "$SW_MB" || why=$XFER_WHY
	if [ -z "$why" ]; then t_ok "$name: $SW_MB MiB, sha256 equal"
	else
		t_fail "$name: $SW_MB MiB, sha256 equal" "$why"
		t_diag "xfrm_stat a: $(xfrm_errors a | tr '\n' ' ')" "xfrm_stat b: $(xfrm_errors b | tr '\n' ' ')" \
			"counters a: $(counters a | awk '$2 != 0' | tr '\n' ' ')" \
			"counters b: $(counters b | awk '$2 != 0' | tr '\n' ' ')" \
			"$(ip -n b -s xfrm state)" "$(ip -n b xfrm policy)" "$(nsx b nstat -az 2>/dev/null | grep -iE 'Ip6In|Ip6Out|TcpExt.*Drop|Ip6.*Discard|Ip6.*Errors' | awk '$2 != 0')"
	fi
	b_ab=$(sa_bytes b "$spi_ab") b_ba=$(sa_bytes a "$spi_ba")
	t_diag "$name: ip -s xfrm state bytes: a->b (in b) $b_ab, b->a (in a) $b_ba"
	if [ "${b_ab:-0}" -ge $((SW_MB * 1048576)) ] && [ "${b_ba:-0}" -gt 0 ]; then
		t_ok "$name: xfrm state byte counters"
	else
		t_fail "$name: xfrm state byte counters" "a->b $b_ab (want >= $((SW_MB * 1048576))), b->a $b_ba (want > 0)"
	fi
	if [ -n "$ESP_MODULE" ] || have_module; then
		tx1=$(counter a tx_segments) rx1=$(counter b rx_gro_packets)
		t_diag "$name: tx_segments(a) ${tx0:-?} -> ${tx1:-?}, rx_gro_packets(b) ${rx0:-?} -> ${rx1:-?}"
		# SW_MB MiB need at least SW_MB * 1048576 / 1500 ESP packets; ask for ~86% of that
		if [ -n "$tx1" ] && [ -n "$rx1" ] && [ $((tx1 - ${tx0:-0})) -ge $((SW_MB * 600)) ] &&
		   [ $((rx1 - ${rx0:-0})) -ge $((SW_MB * 600)) ]; then
			t_ok "$name: fast path"
		else
			t_fail "$name: fast path" "want +$((SW_MB * 600)) or more: tx_segments ${tx0:-missing} -> ${tx1:-missing}, rx_gro_packets ${rx0:-missing} -> ${rx1:-missing}" "$(counters a)"
		fi
	else
		t_skip "$name: fast path" "no module loaded"
	fi
	SW_SPI_AB=$spi_ab
}
sw_down() { swc a --terminate --child "$1" --timeout 20 > /dev/null; }

# ---------------------------------------------------------------- setup
if ! ns_setup tso-off; then
	t_fail "strongswan: netns setup" "ns_setup failed"
	return 0 2>/dev/null || exit 0
fi
sw_stop
if sw_start a > "$T_TMP/sw.err" 2>&1 && sw_start b >> "$T_TMP/sw.err" 2>&1; then
	t_ok "strongswan: two charons started, configs loaded"
else
	t_fail "strongswan: two charons started, configs loaded" "$(cat "$T_TMP/sw.err")"
	sw_stop; ns_cleanup
	return 0 2>/dev/null || exit 0
fi
t_diag "charon: $($CHARON --version 2>/dev/null | head -1)"

# ---------------------------------------------------------------- the matrix
for c in "v4 v4-tr-gcm transport 4 gcm" "v4 v4-tu-gcm tunnel 4 gcm" \
	 "v6 v6-tr-gcm transport 6 gcm" "v6 v6-tu-gcm tunnel 6 gcm" \
	 ${SW_CHACHA:-"v4 v4-tu-chacha tunnel 4 chacha" "v6 v6-tr-chacha transport 6 chacha"}; do
	set -- $c
	sw_case "$@"
	sw_down "$2"
done

# ---------------------------------------------------------------- rekey mid-stream
name="strongswan rekey"
if sw_case v4 v4-tr-gcm transport 4 gcm; then
	xfer_data "$SW_REKEY_MB" > /dev/null
	tx0=$(counter a tx_segments) rx0=$(counter b rx_gro_packets)
	spi0=$SW_SPI_AB
	( xfer a b "$ADDR_B" "$SW_REKEY_MB"; echo "$?:$XFER_WHY" > "$T_TMP/rekey.xfer" ) &
	xpid=$!
	# let the stream ramp up, then rekey twice (the second one from b, the responder)
	sleep 1.5
	rk1=ok rk2=ok
	swc a --rekey --child v4-tr-gcm > /dev/null || rk1="swanctl --rekey failed: $(cat "$T_TMP/swc.err")"
	spi1=$(wait_spi_change a "$IP4_A" "$IP4_B" "$spi0") || rk1="${rk1#ok}; SPI did not change from $spi0 (now $spi1)"
	swc b --rekey --child v4-tr > /dev/null || rk2="swanctl --rekey failed: $(cat "$T_TMP/swc.err")"
	spi2=$(wait_spi_change a "$IP4_A" "$IP4_B" "${spi1% }") || rk2="${rk2#ok}; SPI did not change from $spi1 (now $spi2)"
	running=no; kill -0 $xpid 2>/dev/null && running=yes
	wait $xpid
	res=$(cat "$T_TMP/rekey.xfer" 2>/dev/null)
	# what the transfer sent over the second rekey's SA: it ran across both
	# rekeys if that is not zero (sampling "still running" after the SPI
	# poll saw it finish just after the second rekey once)
	over2=$(sa_bytes b "${spi2% }")
	t_diag "$name: SPI a->b $spi0 -> $spi1-> $spi2; transfer still running after both rekeys: $running; its bytes over ${spi2% }: $over2"
	t_expect "$name: rekey initiated by a ($rk1)" "$rk1" = ok
	t_expect "$name: rekey initiated by b ($rk2)" "$rk2" = ok
	t_expect "$name: both rekeys happened while the transfer was running ($over2 bytes of it over ${spi2% })" "${over2:-0}" -gt 0
	if [ "${res%%:*}" = 0 ]; then t_ok "$name: $SW_REKEY_MB MiB across two rekeys, sha256 equal"
	else t_fail "$name: $SW_REKEY_MB MiB across two rekeys, sha256 equal" "${res#*:}"; fi
	# the rekeyed SAs are new states: they must be on the fast path too
	spi2=${spi2% }
	tx1=$(counter a tx_segments) rx1=$(counter b rx_gro_packets)
	if xfer a b "$IP4_B" 2 && [ "$(sa_bytes b "$spi2")" -ge 2097152 ]; then
		t_ok "$name: data over the rekeyed SA $spi2"
	else
		t_fail "$name: data over the rekeyed SA $spi2" "${XFER_WHY:-SA $spi2 counted $(sa_bytes b "$spi2") bytes}"
	fi
	if [ -n "$ESP_MODULE" ] || have_module; then
		tx2=$(counter a tx_segments) rx2=$(counter b rx_gro_packets)
		t_diag "$name: tx_segments(a) $tx0 -> $tx1 -> $tx2, rx_gro_packets(b) $rx0 -> $rx1 -> $rx2"
		if [ "${tx2:-0}" -gt "${tx1:-0}" ] && [ "${rx2:-0}" -gt "${rx1:-0}" ]; then
			t_ok "$name: rekeyed SAs on the fast path"
		else
			t_fail "$name: rekeyed SAs on the fast path" "$(counters a)"
		fi
	fi
	sw_down v4-tr-gcm

	# rekey during an iperf3 (IPv6 tunnel): the stream keeps going
	if sw_case v6 v6-tu-gcm tunnel 6 gcm; then
		( sleep 2; swc a --rekey --child v6-tu-gcm > /dev/null ) &
		rpid=$!
		if iperf_run a b "$IN6_B" 5; then
			wait $rpid
			t_diag "$name: iperf3 across a rekey: $((IPERF_BPS / 1000000)) Mbit/s (guest clock), $IPERF_RETR retransmits"
			t_expect "$name: iperf3 across a rekey carried data" "$IPERF_BPS" -gt 1000000
		else
			wait $rpid
			t_fail "$name: iperf3 across a rekey carried data" "$(head -c 600 "$IPERF_JSON" 2>/dev/null)"
		fi
		s=$(out_spis a "$IP6_A" "$IP6_B")
		t_diag "$name: IPv6 SA a->b after the rekey: $s (was $SW_SPI_AB)"
		t_expect "$name: IPv6 tunnel SA was rekeyed" "$( [ -n "$s" ] && [ "$s" != "$SW_SPI_AB " ] && echo 1 || echo 0)" -eq 1
		sw_down v6-tu-gcm
	fi
	xs=$(xfrm_errors a; xfrm_errors b)
	t_diag "xfrm_stat after the rekeys: ${xs:-all zero}"
fi
r=$(kernel_reports)
if [ -z "$r" ]; then t_ok "strongswan: kernel log clean"
else t_fail "strongswan: kernel log clean" "$(head -30 <<< "$r")"; fi
for ns in a b; do
	t_diag "charon $ns log: $(grep -cE '\[(IKE|CHD|KNL)\]' "$(sw_dir $ns)/charon.log" 2>/dev/null) lines, errors: $(grep -iE 'error|failed' "$(sw_dir $ns)/charon.log" 2>/dev/null | head -3 | tr '\n' ' ')"
done
sw_stop
ns_cleanup
