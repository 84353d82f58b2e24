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
# The swanctl.conf written here is the one shown in docs/deploy.md.
SW_MB=${SW_MB:-4}
SW_REKEY_MB=${SW_REKEY_MB:-48}
XFER_TIMEOUT=${XFER_TIMEOUT:-60}
CHARON=${CHARON:-/usr/lib/ipsec/charon}
SW_PSK='esp-swoffload-selftest-psk-0123456789'

if [ ! -x "$CHARON" ] || ! command -v swanctl > /dev/null; then
	t_skip "strongswan" "strongswan-charon/strongswan-swanctl not installed"
	return 0 2>/dev/null || exit 0
fi

sw_dir() { echo "/var/tmp/$1"; }
# swc NS SWANCTL-ARGS... : swanctl talking to the charon of NS
swc() {
	local ns=$1; shift
	STRONGSWAN_CONF=$(sw_dir "$ns")/strongswan.conf timeout 60 swanctl "$@" \
		--uri "unix://$(sw_dir "$ns")/charon.vici" 2> "$T_TMP/swc.err"
}

# sw_conf NS : strongswan.conf for the charon in NS
sw_conf() {
	local d; d=$(sw_dir "$1")
	mkdir -p "$d"
	cat > "$d/strongswan.conf" <<-EOF
	# Debian's defaults first (plugin list, logging), then the overrides.
	charon {
		load_modular = yes
		plugins {
			include /etc/strongswan.d/charon/*.conf
		}
	}
	include /etc/strongswan.d/*.conf
	charon {
		# the netns already route the inner addresses
		install_routes = no
		retransmit_tries = 3
		plugins {
			# bypass-lan would exempt the connected /24 from IPsec: off
			bypass-lan { load = no }
			stroke { load = no }
			vici { socket = unix://$d/charon.vici }
		}
		filelog {
			main {
				path = $d/charon.log
				default = 1
				knl = 2
				time_format = %T
			}
		}
	}
	EOF
}

# sw_swanctl NS ID PEER_ID : swanctl.conf of NS (a: initiator children; b: responder)
sw_swanctl() {
	local ns=$1 d me peer fam v4l v4r v6l v6r in4l in4r in6l in6r
	d=$(sw_dir "$ns")
	if [ "$ns" = a ]; then
		me=a.esp.test peer=b.esp.test
		v4l=$IP4_A v4r=$IP4_B v6l=$IP6_A v6r=$IP6_B
		in4l=$IN4_A in4r=$IN4_B in6l=$IN6_A in6r=$IN6_B
	else
		me=b.esp.test peer=a.esp.test
		v4l=$IP4_B v4r=$IP4_A v6l=$IP6_B v6r=$IP6_A
		in4l=$IN4_B in4r=$IN4_A in6l=$IN6_B in6r=$IN6_A
	fi
	{
		echo "connections {"
		for fam in 4 6; do
			local l r il ir pl
			if [ $fam = 4 ]; then l=$v4l r=$v4r il=$in4l ir=$in4r pl=32
			else l=$v6l r=$v6r il=$in6l ir=$in6r pl=128; fi
			cat <<-EOF
				v$fam {
					version = 2
					local_addrs = $l
					remote_addrs = $r
					proposals = aes128-sha256-x25519
					local {
						auth = psk
						id = $me
					}
					remote {
						auth = psk
						id = $peer
					}
					children {
			EOF
			if [ "$ns" = a ]; then
				# one child config per mode x algorithm; the test brings up one at a time
				local alg prop
				for alg in gcm chacha; do
					if [ $alg = gcm ]; then prop=aes128gcm16; else prop=chacha20poly1305; fi
					cat <<-EOF
						v$fam-tr-$alg {
							mode = transport
							esp_proposals = $prop
						}
						v$fam-tu-$alg {
							mode = tunnel
							local_ts = $il/$pl
							remote_ts = $ir/$pl
							esp_proposals = $prop
						}
					EOF
				done
			else
				cat <<-EOF
						v$fam-tr {
							mode = transport
							esp_proposals = aes128gcm16, chacha20poly1305
						}
						v$fam-tu {
							mode = tunnel
							local_ts = $il/$pl
							remote_ts = $ir/$pl
							esp_proposals = aes128gcm16, chacha20poly1305
						}
				EOF
			fi
			echo "		}"
			echo "	}"
		done
		echo "}"
		cat <<-EOF
		secrets {
			ike-ab {
				id-a = a.esp.test
				id-b = b.esp.test
				secret = "$SW_PSK"
			}
		}
		EOF
	} > "$d/swanctl.conf"
}

SW_PIDS=
# sw_start NS : start charon in NS, load its swanctl.conf
sw_start() {
	local ns=$1 d i
	d=$(sw_dir "$ns")
	rm -f "$d/charon.vici" "$d/charon.log"
	sw_conf "$ns"; sw_swanctl "$ns"
	# private /run (charon.pid) per instance: ip netns exec runs in its own mount ns
	ip netns exec "$ns" sh -c 'mount -t tmpfs none /run && STRONGSWAN_CONF=$1/strongswan.conf exec "$2"' \
		_ "$d" "$CHARON" > "$d/charon.out" 2>&1 < /dev/null &
	SW_PIDS="$SW_PIDS $!"
	for i in $(seq 1 150); do
		[ -S "$d/charon.vici" ] && swc "$ns" --stats > /dev/null && break
		sleep 0.2
	done
	swc "$ns" --load-all --noprompt --file "$d/swanctl.conf" > "$d/load.out" ||
		{ cat "$d/load.out" "$T_TMP/swc.err" "$d/charon.out"; tail -20 "$d/charon.log"; return 1; }
}
sw_stop() {
	local p
	for p in $SW_PIDS; do kill "$p" 2>/dev/null; done
	for p in $SW_PIDS; do wait "$p" 2>/dev/null; done
	SW_PIDS=
}

# out_spis NS SRC DST : SPIs of the ESP states SRC->DST in NS
out_spis() {
	ip -n "$1" xfrm state list src "$2" dst "$3" proto esp 2>/dev/null |
		awk '/proto esp spi/ {print $4}' | tr '\n' ' '
}
# wait_spi_change NS SRC DST OLD : wait (10 s) until the only SA SRC->DST is not OLD
wait_spi_change() {
	local i s
	for i in $(seq 1 50); do
		s=$(out_spis "$1" "$2" "$3")
		[ -n "$s" ] && [ "$s" != "$4 " ] && [ "$(echo $s | wc -w)" = 1 ] && { echo "$s"; return 0; }
		sleep 0.2
	done
	echo "$s"; return 1
}
kernel_clean() { ! dmesg | grep -qE 'BUG:|WARNING:|Oops|general protection|KASAN|refcount_t'; }

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
	t_diag "$name: SPI a->b $spi0 -> $spi1-> $spi2; transfer still running after both rekeys: $running"
	t_expect "$name: rekey initiated by a ($rk1)" "$rk1" = ok
	t_expect "$name: rekey initiated by b ($rk2)" "$rk2" = ok
	t_expect "$name: both rekeys happened while the transfer was running" "$running" = yes
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
if kernel_clean; then t_ok "strongswan: kernel log clean"
else t_fail "strongswan: kernel log clean" "$(dmesg | grep -E -A8 'BUG:|WARNING:|Oops|general protection|KASAN|refcount_t' | head -30)"; fi
for ns in a b; do
	t_diag "charon $ns log: $(grep -cE '\[(IKE|CHD|KNL)\]' "$(sw_dir $ns)/charon.log" 2>/dev/null) lines, errors: $(grep -iE 'error|failed' "$(sw_dir $ns)/charon.log" 2>/dev/null | head -3 | tr '\n' ' ')"
done
sw_stop
ns_cleanup
