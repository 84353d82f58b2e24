# SPDX-License-Identifier: GPL-2.0
# 10-traffic: for every algorithm x mode x family, move 4 MiB a -> b over TCP through ESP
# and compare sha256 end to end; check that the SAs carried it (xfrm byte counters) and,
# with the module, that its fast path did: tx_segments grew in a, rx_gro_packets and
# rx_decrypted in b; and that b trusted the inner checksums on the strength of the ICV
# (rx_csum_by_icv) exactly when the SA has one (not for esp-null without auth) and the
# ICV covers the packet's whole way (transport mode; tunnel mode only below); and that
# ChaCha20-Poly1305 and AES-GCM (the module's own AEADs) were encrypted in batches
# (tx_batched) and decrypted in batches (rx_batched), and no other AEAD was; and that esp-null went
# without the crypto API (tx_null, rx_null for every packet taken at GRO), and nothing else;
# and that esp-null's checksums, computed by a, were not verified again by b
# (rx_null_csum_kept), unless null_csum_once=0; that null_nocrypt=0 sends esp-null
# through the crypto API again; and that packets taken at GRO on another CPU than their
# SA's home are handed over there (rx_steered), and none with rx_steer=0; that the
# segments of every SA but esp-null had their payload copied into recycled pages
# (tx_recycled), but with tx_recycle=0 or segments too large for a page (MTU 9000);
# that the module finished the packets of the SAs whose crypto it does (rx_decapped)
# and left every other to xfrm_input().
MB=${TRAFFIC_MB:-4}
if ! ns_setup tso-off-both; then
	t_fail "traffic: netns setup" "ns_setup failed"
	return 0
fi
for algo in ${TRAFFIC_ALGOS:-$ALGOS}; do
for mode in $MODES; do
for fam in $FAMILIES; do
	name="traffic $algo $mode ipv$fam"
	if ! xfrm_setup "$algo" "$mode" "$fam" 2> "$T_TMP/err"; then
		t_fail "$name: data" "xfrm_setup failed: $(cat "$T_TMP/err")"
		have_module && t_fail "$name: fast path" "no SA"
		continue
	fi
	tx0=$(counter a tx_segments) rx0=$(counter b rx_gro_packets)
	dc0=$(counter b rx_decrypted) cs0=$(counter b rx_csum_by_icv) bt0=$(counter a tx_batched)
	rb0=$(counter b rx_batched) tn0=$(counter a tx_null) rn0=$(counter b rx_null)
	ck0=$(counter b rx_null_csum_kept) rc0=$(counter a tx_recycled) lc0=$(counter a tx_linear_copies)
	dp0=$(counter b rx_decapped)
	xe0=$(xfrm_errors_total b) rt0=$(tcp_retrans a)
	sa0=0	# xfrm_setup installed fresh SAs
	why=
	t0=$(date +%s%N)
	xfer a b "$ADDR_B" "$MB" || why=$XFER_WHY
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	sa1=$(sa_bytes b $SPI_AB)
	t_diag "$name: $MB MiB in $ms ms (guest clock), SA a->b bytes in b +$((sa1 - sa0))"
	[ -z "$why" ] && [ $((sa1 - sa0)) -lt $((MB * 1048576)) ] &&
		why="SA $SPI_AB in b counted only $((sa1 - sa0)) bytes (< $MB MiB): traffic not through ESP"
	if [ -z "$why" ]; then t_ok "$name: data"; else t_fail "$name: data" "$why"; fi
	if [ -n "$ESP_MODULE" ] || have_module; then
		tx1=$(counter a tx_segments) rx1=$(counter b rx_gro_packets)
		dc1=$(counter b rx_decrypted) cs1=$(counter b rx_csum_by_icv) bt1=$(counter a tx_batched)
		rb1=$(counter b rx_batched) tn1=$(counter a tx_null) rn1=$(counter b rx_null)
		ck1=$(counter b rx_null_csum_kept) rc1=$(counter a tx_recycled) lc1=$(counter a tx_linear_copies)
		dp1=$(counter b rx_decapped)
		t_diag "$name: tx_segments(a) ${tx0:-?} -> ${tx1:-?}, rx_gro_packets(b) ${rx0:-?} -> ${rx1:-?}"
		t_diag "$name: rx_decrypted(b) ${dc0:-?} -> ${dc1:-?}, rx_csum_by_icv(b) ${cs0:-?} -> ${cs1:-?}"
		why=
		[ -n "$tx1" ] && [ -n "$tx0" ] && [ "$tx1" -gt "$tx0" ] || why="tx_segments in a did not grow (${tx0:-missing} -> ${tx1:-missing})"
		[ -n "$rx1" ] && [ -n "$rx0" ] && [ "$rx1" -gt "$rx0" ] || why="${why:+$why; }rx_gro_packets in b did not grow (${rx0:-missing} -> ${rx1:-missing})"
		[ -n "$dc1" ] && [ -n "$dc0" ] && [ "$dc1" -gt "$dc0" ] || why="${why:+$why; }rx_decrypted in b did not grow (${dc0:-missing} -> ${dc1:-missing})"
		if [ -z "$why" ]; then t_ok "$name: fast path"; else t_fail "$name: fast path" "$why"; fi
		# A lossless veth: an xfrm error means a packet went bad on the way; so do
		# retransmits beyond the odd spurious timeout under emulation (a segment
		# corrupted by the module costs hundreds in 4 MiB).
		t_expect "$name: no xfrm errors at the receiver" "$(xfrm_errors_total b)" -eq "$xe0"
		rt1=$(tcp_retrans a)
		t_expect "$name: at most 3 TCP retransmits other than tail-loss probes (+$((${rt1:-0} - ${rt0:-0})))" \
			"$((${rt1:-999} - ${rt0:-0}))" -le 3
		# the module's own AEADs encrypt a GSO packet at a time
		if [ "$algo" = chacha ] || [ "$algo" = gcm128 ] || [ "$algo" = gcm256 ]; then
			t_expect "$name: segments encrypted in batches (tx_batched +$((${bt1:-0} - ${bt0:-0})))" "$bt1" -gt "${bt0:-missing}"
			# every packet the module took at GRO went through the RX batch
			t_expect "$name: packets decrypted in batches (rx_batched +$((${rb1:-0} - ${rb0:-0})) of rx_gro_packets +$((${rx1:-0} - ${rx0:-0})))" \
				"$((${rb1:-0} - ${rb0:-0}))" -eq "$((${rx1:-0} - ${rx0:-0}))"
		else
			t_expect "$name: no batch for this AEAD (tx_batched +$((${bt1:-0} - ${bt0:-0})))" "$bt1" -eq "${bt0:-missing}"
			t_expect "$name: no RX batch for this AEAD (rx_batched +$((${rb1:-0} - ${rb0:-0})))" "$rb1" -eq "${rb0:-missing}"
		fi
		# the SAs whose crypto the module does, it also finishes itself (rx_decap.c)
		case $algo in
		chacha|gcm128|gcm256|null)
			t_expect "$name: finished without xfrm_input() (rx_decapped +$((${dp1:-0} - ${dp0:-0})) of rx_gro_packets +$((${rx1:-0} - ${rx0:-0})))" \
				"$((${dp1:-0} - ${dp0:-0}))" -eq "$((${rx1:-0} - ${rx0:-0}))" ;;
		*)
			t_expect "$name: left to xfrm_input() (rx_decapped +$((${dp1:-0} - ${dp0:-0})))" "$dp1" -eq "${dp0:-missing}" ;;
		esac
		# segments (not single packets) to encrypt get their payload copied into recycled pages
		if [ "$algo" = null ]; then
			t_expect "$name: esp-null keeps TCP's pages (tx_recycled +$((${rc1:-0} - ${rc0:-0})))" "$rc1" -eq "${rc0:-missing}"
		else
			t_expect "$name: payloads copied into recycled pages (tx_recycled +$((${rc1:-0} - ${rc0:-0})) of tx_segments +$((${tx1:-0} - ${tx0:-0})))" \
				"$(( ${rc1:-0} > ${rc0:-0} && ${rc1:-0} - ${rc0:-0} <= ${tx1:-0} - ${tx0:-0} ))" -eq 1
			t_expect "$name: none copied linear (tx_linear_copies +$((${lc1:-0} - ${lc0:-0})))" "$lc1" -eq "${lc0:-missing}"
		fi
		if [ "$algo" = null ]; then
			t_expect "$name: no ICV, rx_csum_by_icv stays" "$cs1" -eq "${cs0:-missing}"
			t_expect "$name: segments sent without a crypto call (tx_null +$((${tn1:-0} - ${tn0:-0})))" "$tn1" -gt "${tn0:-missing}"
			t_expect "$name: packets received without a crypto call (rx_null +$((${rn1:-0} - ${rn0:-0})) of rx_gro_packets +$((${rx1:-0} - ${rx0:-0})))" \
				"$((${rn1:-0} - ${rn0:-0}))" -eq "$((${rx1:-0} - ${rx0:-0}))"
			# a's segments arrive with the checksum a computed marked verified
			t_expect "$name: checksums verified once (rx_null_csum_kept +$((${ck1:-0} - ${ck0:-0})) of rx_null +$((${rn1:-0} - ${rn0:-0})))" \
				"$(( ${ck1:-0} > ${ck0:-0} && ${ck1:-0} - ${ck0:-0} <= ${rn1:-0} - ${rn0:-0} ))" -eq 1
		else
			t_expect "$name: crypto for every packet (tx_null +$((${tn1:-0} - ${tn0:-0})), rx_null +$((${rn1:-0} - ${rn0:-0})))" \
				"$(( ${tn1:-1} - ${tn0:-0} + ${rn1:-1} - ${rn0:-0} + ${ck1:-1} - ${ck0:-0} ))" -eq 0
			# in tunnel mode a's inner address is, to b, a host behind the peer
			if [ "$mode" = transport ]; then
				t_expect "$name: rx_csum_by_icv grows" "$cs1" -gt "${cs0:-missing}"
			else
				t_expect "$name: inner source not the peer, rx_csum_by_icv stays" "$cs1" -eq "${cs0:-missing}"
			fi
		fi
	else
		t_skip "$name: fast path" "no module loaded"
	fi
done
done
done

# param_off_xfer PARAM MB: MB MiB a -> b over IPv4 with the module's boolean PARAM
# off, then on again; reports "PARAM=0 ...: data"
param_off_xfer() {
	local p=$KNOBS/$1 name="$1=0${3:+ $3}" why=
	echo 0 > "$p"
	xfer a b "$IP4_B" "$2" || why=$XFER_WHY
	echo 1 > "$p"
	if [ -z "$why" ]; then t_ok "$name: data"; else t_fail "$name: data" "$why"; fi
}

# null_csum_once=0: a's esp-null segments leave unmarked, so b verifies every
# checksum (rx_null_csum_kept stays) and the data still arrives intact
if have_module && xfrm_setup null transport 4 2> /dev/null; then
	rn0=$(counter b rx_null) ck0=$(counter b rx_null_csum_kept)
	param_off_xfer null_csum_once 1
	rn1=$(counter b rx_null) ck1=$(counter b rx_null_csum_kept)
	t_expect "null_csum_once=0: rx_null grows (+$((${rn1:-0} - ${rn0:-0})))" "${rn1:-0}" -gt "${rn0:-0}"
	t_expect "null_csum_once=0: rx_null_csum_kept stays" "${ck1:-missing}" -eq "${ck0:-missing}"
fi

# rx_decap=0: xfrm_input() finishes every packet again (rx_decapped stays), intact
for algo in chacha gcm128 null; do
	have_module && xfrm_setup $algo transport 4 2> /dev/null || continue
	dp0=$(counter b rx_decapped) dc0=$(counter b rx_decrypted) xe0=$(xfrm_errors_total b)
	param_off_xfer rx_decap 2 "$algo"
	dp1=$(counter b rx_decapped) dc1=$(counter b rx_decrypted)
	t_expect "rx_decap=0 $algo: rx_decapped stays" "${dp1:-missing}" -eq "${dp0:-missing}"
	t_expect "rx_decap=0 $algo: rx_decrypted grows (+$((${dc1:-0} - ${dc0:-0})))" "${dc1:-0}" -gt "${dc0:-0}"
	t_expect "rx_decap=0 $algo: no xfrm errors at the receiver" "$(xfrm_errors_total b)" -eq "$xe0"
done

# tx_recycle=0: the segmentation copies into a linear skb again (tx_recycled stays)
recycle_off_case() {
	local algo=$1 rc0 rc1 tx0 tx1 xe0
	xfrm_setup "$algo" transport 4 2> /dev/null || { t_fail "tx_recycle=0 $algo: setup" "xfrm_setup failed"; return; }
	rc0=$(counter a tx_recycled) tx0=$(counter a tx_segments) xe0=$(xfrm_errors_total b)
	param_off_xfer tx_recycle 2 "$algo"
	rc1=$(counter a tx_recycled) tx1=$(counter a tx_segments)
	t_expect "tx_recycle=0 $algo: fast path (tx_segments +$((${tx1:-0} - ${tx0:-0})))" "${tx1:-0}" -gt "${tx0:-0}"
	t_expect "tx_recycle=0 $algo: tx_recycled stays (+$((${rc1:-0} - ${rc0:-0})))" "${rc1:-missing}" -eq "${rc0:-missing}"
	t_expect "tx_recycle=0 $algo: no xfrm errors at the receiver" "$(xfrm_errors_total b)" -eq "$xe0"
}
if have_module; then
	for algo in gcm128 chacha; do recycle_off_case $algo; done
fi

# sendfile(): TCP sends the page cache's own pages (SKBFL_SHARED_FRAG). Each segment is
# encrypted in a copy in a recycled page (tx_recycled, one per batched segment), never
# in those pages: the file the sender sent from still holds what it held, and the
# receiver got it
if have_module && xfrm_setup gcm128 transport 4 2> /dev/null; then
	rc0=$(counter a tx_recycled) bt0=$(counter a tx_batched) xe0=$(xfrm_errors_total b)
	why=
	XFER_SENDFILE=1 xfer a b "$IP4_B" 4 || why=$XFER_WHY
	if [ -z "$why" ]; then t_ok "sendfile gcm128: data"; else t_fail "sendfile gcm128: data" "$why"; fi
	rc1=$(counter a tx_recycled) bt1=$(counter a tx_batched)
	sf=$(xfer_data 4)
	sum=$(sha256sum < "$sf")
	t_expect "sendfile gcm128: the sender's file unchanged (sha256 ${sum%% *})" "${sum%% *}" = "$(< "$sf.sha256")"
	t_expect "sendfile gcm128: segments encrypted in batches (tx_batched +$((${bt1:-0} - ${bt0:-0})))" "${bt1:-0}" -gt "${bt0:-0}"
	t_expect "sendfile gcm128: payloads copied into recycled pages (tx_recycled +$((${rc1:-0} - ${rc0:-0})) of tx_batched +$((${bt1:-0} - ${bt0:-0})))" \
		"$((${rc1:-0} - ${rc0:-0}))" -eq "$((${bt1:--1} - ${bt0:-0}))"
	t_expect "sendfile gcm128: no xfrm errors at the receiver" "$(xfrm_errors_total b)" -eq "$xe0"
	xfrm_flush
fi

# null_nocrypt=0: esp-null walks the crypto API again, as on the stock path
# (authenc(digest_null,ecb(cipher_null))): still the fast path, no tx_null/rx_null
if have_module && xfrm_setup null transport 4 2> /dev/null; then
	tn0=$(counter a tx_null) rn0=$(counter b rx_null)
	tx0=$(counter a tx_segments) dc0=$(counter b rx_decrypted)
	param_off_xfer null_nocrypt 1
	tn1=$(counter a tx_null) rn1=$(counter b rx_null)
	tx1=$(counter a tx_segments) dc1=$(counter b rx_decrypted)
	t_expect "null_nocrypt=0: tx_segments grows (+$((${tx1:-0} - ${tx0:-0})))" "${tx1:-0}" -gt "${tx0:-0}"
	t_expect "null_nocrypt=0: rx_decrypted grows (+$((${dc1:-0} - ${dc0:-0})))" "${dc1:-0}" -gt "${dc0:-0}"
	t_expect "null_nocrypt=0: tx_null and rx_null stay (+$((${tn1:-0} - ${tn0:-0})), +$((${rn1:-0} - ${rn0:-0})))" \
		"$(( ${tn1:-1} - ${tn0:-0} + ${rn1:-1} - ${rn0:-0} ))" -eq 0
fi

# rx_steer: veth takes a packet at GRO on the sending CPU. With a's sender pinned to
# each CPU in turn, one of the two is not the home of b's SA: packets taken there are
# handed over (rx_steered grows, never beyond rx_gro_packets). With rx_steer=0 none are.
# steer_xfer CPU: 2 MiB a -> b with the sending shell pinned to CPU; prints why it failed
steer_xfer() {
	taskset -pc "$1" $BASHPID > /dev/null || { echo "taskset -pc $1 failed"; return; }
	xfer a b "$IP4_B" 2 || echo "$XFER_WHY"
}
if have_module && [ "$(nproc)" -ge 2 ] && xfrm_setup gcm128 transport 4 2> /dev/null; then
	P=$KNOBS/rx_steer
	st0=$(counter b rx_steered) g0=$(counter b rx_gro_packets)
	why="$(steer_xfer 0)$(steer_xfer 1)"
	st1=$(counter b rx_steered) g1=$(counter b rx_gro_packets)
	if [ -z "$why" ]; then t_ok "rx_steer: data, sender on CPU 0 then 1"; else t_fail "rx_steer: data, sender on CPU 0 then 1" "$why"; fi
	t_expect "rx_steer: packets handed to their SA's home CPU (rx_steered +$((${st1:-0} - ${st0:-0})) of rx_gro_packets +$((${g1:-0} - ${g0:-0})))" \
		"$(( ${st1:-0} > ${st0:-0} && ${st1:-0} - ${st0:-0} <= ${g1:-0} - ${g0:-0} ))" -eq 1
	echo 0 > $P
	st0=$(counter b rx_steered) g0=$(counter b rx_gro_packets)
	why="$(steer_xfer 0)$(steer_xfer 1)"
	st1=$(counter b rx_steered) g1=$(counter b rx_gro_packets)
	echo 1 > $P
	if [ -z "$why" ]; then t_ok "rx_steer=0: data"; else t_fail "rx_steer=0: data" "$why"; fi
	t_expect "rx_steer=0: still taken at GRO (rx_gro_packets +$((${g1:-0} - ${g0:-0})))" "${g1:-0}" -gt "${g0:-0}"
	t_expect "rx_steer=0: none handed over (rx_steered +$((${st1:-0} - ${st0:-0})))" "${st1:-missing}" -eq "${st0:-missing}"
fi

# IPv6 transport mode behind a destination options header (a sticky IPV6_DSTOPTS,
# 8 bytes of PadN), which stays in front of ESP: ESP's next header and the
# segmentation must find TCP behind it.
if xfrm_setup gcm128 transport 6 2> /dev/null; then
	s0=0
	have_module && s0=$(counter a tx_segments)
	if XFER_TIMEOUT=30 XFER_OPTS=setsockopt-bin=41:59:x0000010400000000 xfer a b "$IP6_B" 2; then
		t_ok "v6 behind a destination options header: data intact"
	else
		t_fail "v6 behind a destination options header: data intact" "$XFER_WHY"
	fi
	if have_module; then
		t_expect "v6 behind a destination options header: fast path (tx_segments +$(( $(counter a tx_segments) - s0 )))" \
			"$(counter a tx_segments)" -gt "$s0"
	fi
fi

# Tunnel mode: the ICV vouches for the inner checksum only where it covers the
# packet's whole way, from the peer itself (inner source = the SA's outer source)
# to this host. b forwards 10.3.0.0/24 (to a dummy device): those packets are
# decrypted (rx_decrypted) but keep their checksum check (rx_csum_by_icv stays).
# So do packets to b from a's inner address: to b a host behind the peer, whose
# way to the peer no ICV covered. Packets from a's outer address to b's inner one
# are vouched for.
if have_module && xfrm_setup gcm128 tunnel 4 2> /dev/null; then
	ip -n a route add 10.3.0.0/24 via "$IP4_B" dev va src "$IN4_A"
	ip -n a xfrm policy add src "$IN4_A/32" dst 10.3.0.0/24 dir out \
		tmpl src "$IP4_A" dst "$IP4_B" proto esp reqid 1 mode tunnel
	ip -n a xfrm policy add src "$IP4_A/32" dst "$IN4_B/32" dir out \
		tmpl src "$IP4_A" dst "$IP4_B" proto esp reqid 1 mode tunnel
	ip -n b xfrm policy add src "$IP4_A/32" dst "$IN4_B/32" dir in \
		tmpl src "$IP4_A" dst "$IP4_B" proto esp reqid 1 mode tunnel
	nsx b sysctl -qw net.ipv4.ip_forward=1
	ip -n b link add dm0 type dummy
	ip -n b addr add 10.3.0.1/24 dev dm0
	ip -n b link set dm0 up
	dc0=$(counter b rx_decrypted) cs0=$(counter b rx_csum_by_icv)
	nsx a bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do echo fwd$i > /dev/udp/10.3.0.2/5555; done'
	sleep 0.5
	dc1=$(counter b rx_decrypted) cs1=$(counter b rx_csum_by_icv)
	t_expect "tunnel, forwarded: decrypted (rx_decrypted +$((dc1 - dc0)))" $((dc1 - dc0)) -eq 10
	t_expect "tunnel, forwarded: checksum still checked (rx_csum_by_icv +$((cs1 - cs0)))" "$cs1" -eq "$cs0"
	dc0=$dc1 cs0=$cs1
	nsx a bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do echo behind\$i > /dev/udp/$IN4_B/5555; done"
	sleep 0.5
	dc1=$(counter b rx_decrypted) cs1=$(counter b rx_csum_by_icv)
	t_expect "tunnel, to this host from behind the peer: decrypted (rx_decrypted +$((dc1 - dc0)))" $((dc1 - dc0)) -eq 10
	t_expect "tunnel, to this host from behind the peer: checksum still checked (rx_csum_by_icv +$((cs1 - cs0)))" "$cs1" -eq "$cs0"
	dc0=$dc1 cs0=$cs1
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "peer$i" | nsx a socat -u - "UDP4-SENDTO:$IN4_B:5555,bind=$IP4_A"
	done
	sleep 0.5
	dc1=$(counter b rx_decrypted) cs1=$(counter b rx_csum_by_icv)
	t_expect "tunnel, to this host from the peer itself: decrypted (rx_decrypted +$((dc1 - dc0)))" $((dc1 - dc0)) -eq 10
	t_expect "tunnel, to this host from the peer itself: checksum vouched for by the ICV (rx_csum_by_icv +$((cs1 - cs0)))" \
		$((cs1 - cs0)) -eq 10
	ip -n b link del dm0
	nsx b sysctl -qw net.ipv4.ip_forward=0
fi

# A VM's TSO traffic routed into an SA: the tap hands it over as SKB_GSO_DODGY with
# gso_segs 0, so xfrm reserved no sequence numbers for it; the module must number
# its segments with fresh ones. 5 packets of 8000 bytes at gso_size 1200: 35 segments.
if have_module && modprobe -q tun && xfrm_setup gcm128 tunnel 4 2> /dev/null; then
	nsx a sysctl -qw net.ipv4.ip_forward=1
	ip -n a xfrm policy add src 10.5.0.0/24 dst "$IN4_B/32" dir out \
		tmpl src "$IP4_A" dst "$IP4_B" proto esp reqid 1 mode tunnel
	t0=$(counter a tx_segments) f0=$(counter a fallback_gso_bad) d0=$(counter b rx_decrypted)
	r0=$(counter a tx_recycled)
	nsx a $TAPGSO tap0 10.5.0.1/24 10.5.0.2 "$IN4_B" 5
	sleep 0.5
	t_expect "guest TSO forwarded: payloads copied into recycled pages (tx_recycled +$(( $(counter a tx_recycled) - r0 )))" \
		$(( $(counter a tx_recycled) - r0 )) -eq 35
	t_expect "guest TSO (SKB_GSO_DODGY) forwarded: 35 segments sent (tx_segments +$(( $(counter a tx_segments) - t0 )))" \
		$(( $(counter a tx_segments) - t0 )) -eq 35
	t_expect "guest TSO forwarded: none refused (fallback_gso_bad +$(( $(counter a fallback_gso_bad) - f0 )))" \
		"$(counter a fallback_gso_bad)" -eq "$f0"
	t_expect "guest TSO forwarded: all 35 decrypted, none replayed (rx_decrypted +$(( $(counter b rx_decrypted) - d0 )))" \
		$(( $(counter b rx_decrypted) - d0 )) -eq 35
	nsx a sysctl -qw net.ipv4.ip_forward=0
fi
xfrm_flush

# MTU 9000: a segment's payload and trailer do not fit in a page, so the
# segmentation's copy goes into a linear skb as without tx_recycle
if have_module && ns_setup tso-off-both mtu=9000 && xfrm_setup gcm128 transport 4 2> /dev/null; then
	r0=$(counter a tx_recycled) t0=$(counter a tx_segments) xe0=$(xfrm_errors_total b)
	l0=$(counter a tx_linear_copies) g0=$(counter a tx_gso_skbs)
	why=
	# long enough for TCP to build GSO packets of 8948-byte segments
	xfer a b "$IP4_B" 16 || why=$XFER_WHY
	if [ -z "$why" ]; then t_ok "MTU 9000 gcm128: data"; else t_fail "MTU 9000 gcm128: data" "$why"; fi
	t_expect "MTU 9000 gcm128: fast path (tx_segments +$(( $(counter a tx_segments) - t0 )))" "$(counter a tx_segments)" -gt "$t0"
	# the short last segment of a GSO packet still fits
	if [ "$(counter a tx_gso_skbs)" -gt "$g0" ]; then
		t_expect "MTU 9000 gcm128: too large for recycled pages (tx_linear_copies +$(( $(counter a tx_linear_copies) - l0 )), tx_recycled +$(( $(counter a tx_recycled) - r0 )))" \
			"$(( $(counter a tx_linear_copies) - l0 > $(counter a tx_recycled) - r0 ))" -eq 1
	else
		t_skip "MTU 9000 gcm128: too large for recycled pages" "no GSO packet reached the module (xfrm segmented them first)"
	fi
	t_expect "MTU 9000 gcm128: no xfrm errors at the receiver" "$(xfrm_errors_total b)" -eq "$xe0"
	xfrm_flush
fi
