# SPDX-License-Identifier: GPL-2.0
# Soak (`make soak`, SOAK_MIN minutes; skipped unless SOAK_MIN is set). Rounds of one
# iperf3 stream of SOAK_STEP seconds, cycling over algorithm x mode x family, each round
# with one disturbance in turn:
#   none   - the stream alone
#   flood  - SOAK_FLOOD forged ESP packets injected into the receiver during the stream
#            (algorithms with an ICV): every one dropped and counted, nothing else lost
#   async  - the SA's AEAD wrapped in pcrypt (gcm128, chacha): async TX and RX under
#            the module's in-flight bound (rx_async_max), at the default backlog
# and every fourth round the module is unloaded and loaded again between rounds (which
# also proves that no packet kept a reference to a deleted SA). Per round it checks:
# the stream ran, at most 3 retransmits other than tail-loss probes, the fast path
# carried it, and xfrm's error counters moved by exactly the forged packets. run.sh
# checks the kernel log afterwards.

SOAK_STEP=${SOAK_STEP:-20}
SOAK_FLOOD=${SOAK_FLOOD:-2000}
INJ="python3 $(dirname "${BASH_SOURCE[0]:-$0}")/espinject.py"

soak_round() {
	local r=$1 algo=$2 mode=$3 fam=$4 what=$5 name dst cap= inst= fpid= drv_name
	local rt0 rt1 xe0 xe1 tr0 tr1 tx0 tx1 rx0 rx1 want=0
	name="round $r $algo $mode v$fam $what"
	ns_setup tso-off || { t_fail "$name: setup"; return; }
	# async needs a queue on the egress devices (docs/design.md, "Async crypto on TX")
	tc -n a qdisc replace dev va root pfifo
	tc -n b qdisc replace dev vb root pfifo
	xfrm_setup "$algo" "$mode" "$fam" || { t_fail "$name: xfrm setup"; return; }
	if [ "$what" = async ]; then
		# the first SAs made seqiv(...) exist; SAs made after pcrypt get pcrypt
		case $algo in chacha) drv_name='rfc7539esp(chacha20,poly1305)' ;;
		*) drv_name='rfc4106(gcm(aes))' ;; esac
		xfrm_flush
		inst="pcrypt($(seqiv_driver "$drv_name"))"
		$CU add "$inst" || { t_fail "$name: pcrypt instance $inst"; return; }
		xfrm_setup "$algo" "$mode" "$fam" || { t_fail "$name: xfrm setup"; return; }
	fi
	dst=$ADDR_B
	if [ "$what" = flood ]; then
		cap=$T_TMP/soak.cap
		nsx a $INJ capture va "$cap" 1 bash -c \
			"for i in 1 2 3; do echo x > /dev/udp/$dst/9; sleep 0.2; done" > /dev/null ||
			{ t_fail "$name: capture one ESP frame"; return; }
		want=$SOAK_FLOOD
	fi
	rt0=$(tcp_retrans a) xe0=$(xfrm_errors_total b) tr0=$(counter b rx_drop_truncated)
	tx0=$(( $(counter a tx_segments) + $(counter a tx_async) )) rx0=$(counter b rx_gro_packets)
	if [ -n "$cap" ]; then
		# fresh sequence numbers far ahead of the stream's: they pass the replay
		# check and must fail the ICV (or be too short for ESP)
		( sleep 2; nsx a $INJ flood va "$cap" 0 "$SOAK_FLOOD" $((1 << 30)) ) &
		fpid=$!
	fi
	iperf_run a b "$dst" "$SOAK_STEP"
	[ -n "$fpid" ] && wait "$fpid"
	sleep 0.5
	rt1=$(tcp_retrans a) xe1=$(xfrm_errors_total b) tr1=$(counter b rx_drop_truncated)
	tx1=$(( $(counter a tx_segments) + $(counter a tx_async) )) rx1=$(counter b rx_gro_packets)
	t_expect "$name: stream ran ($((${IPERF_BPS:-0} / 1000000)) Mbit/s)" "${IPERF_BPS:-0}" -gt 1000000
	t_expect "$name: at most 3 retransmits other than tail-loss probes (+$((rt1 - rt0)))" \
		$((rt1 - rt0)) -le 3
	[ $((rt1 - rt0)) -le 3 ] || t_diag "$(retrans_why a b | sed "s/^/$name: /")"
	t_expect "$name: fast path (tx_segments + tx_async +$((tx1 - tx0)), rx_gro_packets +$((rx1 - rx0)))" \
		$(( (tx1 > tx0) + (rx1 > rx0) )) -eq 2
	t_expect "$name: xfrm errors + truncated = forged packets (+$((xe1 - xe0)) +$((tr1 - tr0)), want $want)" \
		$(( xe1 - xe0 + tr1 - tr0 )) -eq "$want"
	if [ "$what" = async ]; then
		t_diag "$name: b: $(counters b | awk '/async/ && $2 != 0' | tr '\n' ' ')"
		t_expect "$name: decryptions completed asynchronously" "$(counter b rx_async)" -gt 0
	fi
	xfrm_flush
	ns_cleanup
	[ -n "$inst" ] && { pcrypt_del "$inst" 20 || t_fail "$name: pcrypt instance removed"; }
}

if [ -z "${SOAK_MIN:-}" ]; then
	t_skip "soak" "SOAK_MIN not set (make soak)"
elif ! have_module; then
	t_skip "soak" "module not loaded"
else
	modprobe -q crypto_user; modprobe -q pcrypt
	end=$(( $(date +%s) + SOAK_MIN * 60 ))
	r=0
	while [ "$(date +%s)" -lt "$end" ]; do
		algos=(gcm128 chacha null cbc-sha256 gcm256)
		algo=${algos[$((r % 5))]}
		mode=transport; [ $(( (r / 5) % 2 )) = 1 ] && mode=tunnel
		fam=4; [ $(( (r / 10) % 2 )) = 1 ] && fam=6
		case $((r % 3)) in
		0) what=none ;;
		1) what=flood; [ "$algo" = null ] && what=none ;;
		2) what=async; case $algo in gcm128 | chacha) ;; *) what=none ;; esac ;;
		esac
		soak_round "$r" "$algo" "$mode" "$fam" "$what"
		r=$((r + 1))
		if [ $((r % 4)) = 0 ]; then
			if unload_module 80 && insmod "$ESP_MODULE"; then
				t_ok "after round $((r - 1)): module unloaded and loaded again"
			else
				t_fail "after round $((r - 1)): module unloaded and loaded again" \
					"$(lsmod | grep esp_swoffload)"
				break
			fi
		fi
	done
	t_diag "soak: $r rounds in $SOAK_MIN min"
	t_expect "soak: at least one round per minute" "$r" -ge "$SOAK_MIN"
fi
