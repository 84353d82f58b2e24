# SPDX-License-Identifier: GPL-2.0
# Bad input at the GRO receive path: every malformed, truncated, replayed or
# forged ESP packet is dropped and counted (by the module or by xfrm in
# /proc/net/xfrm_stat), the kernel log stays clean (run.sh checks), and good
# traffic still flows afterwards. Frames are captured from a real flow on the
# sender's veth and re-injected there with AF_PACKET, so they reach the
# receiver's GRO exactly as wire traffic would.


ctr() { if have_module; then counter "$@"; else echo 0; fi; }

# delta_check NAME NS KIND NAME EXPECTED CMD...: run CMD, expect counter +EXPECTED
# KIND is "x" (xfrm_stat) or "m" (module counter; skipped without the module)
delta_check() {
	local name=$1 ns=$2 kind=$3 what=$4 want=$5 before after i=0; shift 5
	if [ "$kind" = m ] && ! have_module; then
		"$@" >/dev/null 2>&1; t_skip "$name" "module not loaded"; return
	fi
	if [ "$kind" = x ]; then before=$(xfrm_stat "$ns" "$what"); else before=$(ctr "$ns" "$what"); fi
	"$@" >/dev/null 2>&1
	# the packet may still be on its way (the SA's home CPU, gro_cells): wait for
	# the count to reach the expected rise, up to 3 s (a slow kernel: check-debug)
	while :; do
		sleep 0.3
		if [ "$kind" = x ]; then after=$(xfrm_stat "$ns" "$what"); else after=$(ctr "$ns" "$what"); fi
		[ $((after - before)) -lt "$want" ] && [ $i -lt 9 ] || break
		i=$((i + 1))
	done
	t_expect "$name ($what +$((after - before)))" $((after - before)) -eq "$want"
	[ $((after - before)) -eq "$want" ] ||
		t_diag "$name: $ns's xfrm_stat now: $(xfrm_errors "$ns" | tr '\n' ' ')"
}

# badinput_family FAMILY [ALGO]: the module decrypts the packets itself, in batches
# (rx_batched; AES-GCM by default, and chacha), and xfrm must still drop and count them
# the same way.
badinput_family() {
	local fam=$1 algo=${2:-gcm128} cap=$T_TMP/esp$1.cap dst n before after g0 g1 rx rb0
	# TSO off on the sender: veth only hands frames to GRO (NAPI) then
	ns_setup tso-off || { t_fail "v$fam: netns setup"; return; }
	xfrm_setup "$algo" transport "$fam" || { t_fail "v$fam: xfrm setup"; return; }
	[ "$algo" = gcm128 ] || fam="$fam $algo"	# test names; the IP family is ${fam%% *}
	dst=$ADDR_B
	[ "${fam%% *}" = 6 ] && dst="[$ADDR_B]"
	rx=$T_TMP/udp${fam// /-}.rx; : > "$rx"
	rb0=$(ctr b rx_batched)
	if [ "${fam%% *}" = 6 ]; then
		nsx b socat -u UDP6-RECV:5555 - > "$rx" &
	else
		nsx b socat -u UDP4-RECV:5555 - > "$rx" &
	fi
	# (lib.sh keeps a holder process per netns: never "wait" for all jobs)
	sleep 0.5
	n=$(nsx a $INJ capture va "$cap" 4 bash -c \
		"for i in 1 2 3 4; do echo hello\$i > /dev/udp/$ADDR_B/5555; sleep 0.2; done")
	t_expect "v$fam: captured 4 ESP frames from a real flow" "${n:-0}" -eq 4
	sleep 0.3
	t_check "v$fam: the real flow was delivered" grep -q hello4 "$rx"

	g0=$(ctr b rx_gro_packets)
	delta_check "v$fam: replayed packet dropped" b x XfrmInStateSeqError 1 \
		nsx a $INJ inject va "$cap" 0 replay
	delta_check "v$fam: forged packet (new seq, old ICV) dropped" b x XfrmInStateProtoError 1 \
		nsx a $INJ inject va "$cap" 1 seq 1000
	delta_check "v$fam: flipped ICV bit dropped" b x XfrmInStateProtoError 1 \
		nsx a $INJ inject va "$cap" 2 seq 1001 flip
	delta_check "v$fam: truncated ESP dropped by the module" b m rx_drop_truncated 1 \
		nsx a $INJ inject va "$cap" 3 truncate 20
	delta_check "v$fam: unknown SPI left to the stack" b m rx_drop_no_state 1 \
		nsx a $INJ inject va "$cap" 3 spi 0xdead
	delta_check "v$fam: unknown SPI counted by xfrm" b x XfrmInNoStates 1 \
		nsx a $INJ inject va "$cap" 3 spi 0xbeef
	delta_check "v$fam: frame with trailing garbage (forged) dropped" b x XfrmInStateProtoError 1 \
		nsx a $INJ inject va "$cap" 3 seq 1002 trailer 37
	g1=$(ctr b rx_gro_packets)
	if have_module; then
		t_expect "v$fam: module took the 3 well-formed ones at GRO" $((g1 - g0)) -eq 3
	fi

	# 300 random packets with fresh sequence numbers: all must be dropped,
	# each exactly once, by ICV check or truncation.
	before=$(( $(xfrm_stat b XfrmInStateProtoError) + $(ctr b rx_drop_truncated) ))
	nsx a $INJ flood va "$cap" 0 300 5000
	sleep 1
	after=$(( $(xfrm_stat b XfrmInStateProtoError) + $(ctr b rx_drop_truncated) ))
	t_expect "v$fam: 300 random packets all dropped and counted" $((after - before)) -eq 300
	t_check "v$fam: nothing forged was delivered" test "$(grep -c . "$rx")" -eq 4
	if have_module; then
		# the 4 real ones and the replayed one pass the ICV; nothing forged does
		t_expect "v$fam: decrypted by the module's RX batch (rx_batched +$(( $(ctr b rx_batched) - rb0 )))" \
			$(( $(ctr b rx_batched) - rb0 )) -ge 5
	fi
	ip netns pids b | xargs -r kill 2>/dev/null

	if xfer a b "$ADDR_B" 2; then t_ok "v$fam: good traffic flows after the bad input"
	else t_fail "v$fam: good traffic flows after the bad input" "$XFER_WHY"; fi
}

badinput_family 4
badinput_family 6
badinput_family 4 chacha
badinput_family 6 chacha

# ESP-null carries no ICV: a valid packet followed by bytes beyond the IP
# length (what Ethernet padding of a short frame looks like) must still be
# delivered, because the module leaves it to ip_rcv(), which trims it.
ns_setup tso-off
xfrm_setup null transport 4
rx=$T_TMP/null.rx; : > "$rx"
nsx b socat -u UDP4-RECV:5556 - > "$rx" &
sleep 0.5
nsx a $INJ null va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB 1 5556 plain
nsx a $INJ null va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB 2 5556 padded trailer 18
sleep 0.5
ip netns pids b | xargs -r kill 2>/dev/null
t_check "null: crafted ESP packet delivered" grep -q plain "$rx"
t_check "null: ESP packet with trailing padding delivered" grep -q padded "$rx"

# udp_csum_case NAME PORT SEND SEQ: SEND SEQ PORT TEXT good|bad injects one ESP
# packet carrying a UDP datagram TEXT to b:PORT with a right or wrong checksum.
# The right one must arrive; the wrong one be dropped and counted (UdpInCsumErrors).
udp_csum_case() {
	local name=$1 port=$2 send=$3 seq=$4 rx=$T_TMP/csum-$2.rx c0 c1
	: > "$rx"
	c0=$(nsx b nstat -az UdpInCsumErrors | awk '/UdpInCsumErrors/ {print $2}')
	nsx b socat -u UDP4-RECV:"$port" - > "$rx" &
	sleep 0.5
	$send "$seq" "$port" rightsum good
	$send $((seq + 1)) "$port" wrongsum bad
	sleep 0.5
	ip netns pids b | xargs -r kill 2>/dev/null
	c1=$(nsx b nstat -az UdpInCsumErrors | awk '/UdpInCsumErrors/ {print $2}')
	t_check "$name: right UDP checksum delivered" grep -q rightsum "$rx"
	t_check "$name: wrong UDP checksum dropped" eval "! grep -q wrongsum '$rx'"
	t_expect "$name: wrong UDP checksum counted (UdpInCsumErrors)" "$c1" -gt "${c0:-missing}"
}
null_udp() {
	nsx a $INJ null va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB "$1" "$2" "$3" csum "$4"
}
behind_peer_udp() {
	nsx a $INJ gcm-udp va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB "$1" "$key" \
		10.9.0.5 "$IN4_B" "$2" "$3" "$4"
}

# Without an ICV nothing vouches for the inner packet, so the module must leave the
# checksum check to the stack.
udp_csum_case null 5557 null_udp 3

# Tunnel mode, from a host behind the peer: the ICV covers only the way from the
# peer, so the module must leave the inner checksum to the stack there too, and not
# vouch for it (rx_csum_by_icv).
xfrm_setup gcm128 tunnel 4
ip -n b xfrm policy add src 10.9.0.0/24 dst "$IN4_B/32" dir in \
	tmpl src "$IP4_A" dst "$IP4_B" proto esp reqid 1 mode tunnel
key=$(ip -n a xfrm state get src "$IP4_A" dst "$IP4_B" proto esp spi $SPI_AB |
	awk '$1 == "aead" {print $3}')
icv0=$(ctr b rx_csum_by_icv) dc0=$(ctr b rx_decrypted)
udp_csum_case "tunnel from behind the peer" 5558 behind_peer_udp 1
if have_module; then
	t_expect "tunnel from behind the peer: both decrypted by the module (rx_decrypted +$(( $(ctr b rx_decrypted) - dc0 )))" \
		$(( $(ctr b rx_decrypted) - dc0 )) -eq 2
	t_expect "tunnel from behind the peer: not vouched for (rx_csum_by_icv +$(( $(ctr b rx_csum_by_icv) - icv0 )))" \
		"$(ctr b rx_csum_by_icv)" -eq "$icv0"
fi

# ESN and the ChaCha RX batch: the module checks a run's ICVs with the high sequence
# bits the replay window gives before the run, and xfrm_input() infers them again
# after the run's earlier packets. A packet that falls below the window within its
# run (late by more than the window, or replayed) gets the next subspace's bits
# there, as on the stock path, whose ICV check then fails it. It must fail here too,
# not move b's window into that subspace, after which every packet would fail. A plug
# qdisc on a holds each burst of 31 packets and one late packet and lets it go at
# once from one CPU, then from the other, so that one burst comes to the SA's home
# CPU (rx_rehome off: the home stays put) as one run.
esn_late_case() {
	local port=5559 rx=$T_TMP/esn.rx key cpu base i seqs st0 rehome= failed seq_hi
	local P=$KNOBS st
	XFRM_REPLAY=32 xfrm_setup chacha transport 4 esn
	key=$(ip -n a xfrm state get src "$IP4_A" dst "$IP4_B" proto esp spi $SPI_AB |
		awk '$1 == "aead" {print $3}')
	if have_module; then rehome=$(cat $P/rx_rehome); echo N > $P/rx_rehome; fi
	st0=$(ctr b rx_batch_esn_stale)
	tc -n a qdisc add dev $DEV_A root plug
	: > "$rx"
	nsx b socat -u UDP4-RECV:$port - > "$rx" &
	sleep 0.5
	for cpu in 0 1; do
		base=$((cpu * 100 + 100)) seqs=
		for i in $(seq 1 31); do seqs="$seqs $((base + i)):in$((base + i)),"; done
		seqs="$seqs $((base - 15)):late$((base - 15)),"
		tc -n a qdisc change dev $DEV_A root plug block
		nsx a $INJ chacha-esn $DEV_A "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB \
			"$key" 0 $port $seqs
		nsx a taskset -c $cpu tc qdisc change dev $DEV_A root plug release_indefinite
		sleep 0.3
	done
	nsx a $INJ chacha-esn $DEV_A "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB "$key" 0 \
		$port 400:after,
	sleep 0.5
	ip netns pids b | xargs -r kill 2>/dev/null
	tc -n a qdisc del dev $DEV_A root
	[ -n "$rehome" ] && echo "$rehome" > $P/rx_rehome
	st=$(ip -n b -s xfrm state get src "$IP4_A" dst "$IP4_B" proto esp spi $SPI_AB)
	failed=$(awk '$1 == "replay-window" && $3 == "replay" {print $6}' <<< "$st")
	seq_hi=$(grep -o ' seq-hi 0x[0-9a-f]*' <<< "$st")
	t_expect "ESN run: the 62 packets in order delivered" \
		"$(grep -o 'in[0-9]*,' "$rx" | sort -u | wc -l)" -eq 62
	t_check "ESN run: the late packets dropped" eval "! grep -q late '$rx'"
	t_expect "ESN run: the late packets failed their ICV (integrity failed $failed)" \
		"$failed" -eq 2
	t_expect "ESN run: b's window stayed in the peer's subspace ($seq_hi)" \
		"${seq_hi# seq-hi }" = 0x0
	t_check "ESN run: a packet after them delivered" grep -q after "$rx"
	if have_module; then
		t_expect "ESN run: a late packet shared a run (rx_batch_esn_stale +$(( $(ctr b rx_batch_esn_stale) - st0 )))" \
			"$(ctr b rx_batch_esn_stale)" -gt "${st0:-missing}"
	fi
}
esn_late_case

xfrm_setup null transport 4	# what the cases below send on

# A larval SA (ALLOCSPI, before the key manager's update) has an SPI but no keys
# yet: a packet for it must be left to xfrm, which drops and counts it.
nsx b ip xfrm state allocspi src "$IP4_A" dst "$IP4_B" proto esp min 0x5000 max 0x5000 >/dev/null
delta_check "larval SA: packet for its SPI dropped by xfrm" b x XfrmAcquireError 1 \
	nsx a $INJ null va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" 0x5000 1 5558 larval

# ESP inside a tunnel-mode SA's packet (here the same SA again) comes back through
# GRO after decapsulation, with the outer SA's sec_path: the module must leave it to
# the ordinary path, which finds it replayed.
nsx b ip xfrm state add src "$IP4_A" dst "$IP4_B" proto esp spi 0x5001 mode tunnel \
	replay-window 32 enc 'ecb(cipher_null)' ''
g0=$(ctr b rx_gro_packets)
delta_check "nested: ESP in a tunnel SA's packet dropped as replayed by xfrm" b x XfrmInStateSeqError 1 \
	nsx a $INJ nested va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" 0x5001 1 ipip-esp 0x5001
if have_module; then
	t_expect "nested: only the outer packet taken at GRO" $(( $(ctr b rx_gro_packets) - g0 )) -eq 1
fi

# Packets whose ESP payload is another transform (ESP, AH, IPComp; no SA for it)
# end in xfrm through the handlers of that protocol. The module counts the RX
# packets in asynchronous decryption by seeing each one end; one it missed would
# count for good. At rx_async_max=8, eight of them would throttle RX until the
# watchdog resets the count a second later.
if have_module; then
	P=$KNOBS
	max0=$(cat $P/rx_async_max)
	echo 8 > $P/rx_async_max
	th0=$(ctr b rx_async_throttled) g0=$(ctr b rx_gro_packets)
	seq=10
	for kind in esp ah comp; do
		for i in 1 2 3 4 5 6 7 8 9 10; do
			seq=$((seq + 1))
			nsx a $INJ nested va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB $seq $kind 0x7777
		done
	done
	sleep 0.5
	t_expect "nested: 30 packets with ESP, AH or IPComp inside taken at GRO" \
		$(( $(ctr b rx_gro_packets) - g0 )) -eq 30
	# fresh SAs: the injected packets moved b's replay window past a's numbers
	xfrm_setup null transport 4
	if XFER_TIMEOUT=30 xfer a b "$ADDR_B" 2; then t_ok "nested: traffic flows after them"
	else t_fail "nested: traffic flows after them" "$XFER_WHY"; fi
	t_expect "nested: every one seen to end: RX never throttled (rx_async_throttled +$(( $(ctr b rx_async_throttled) - th0 )))" \
		"$(ctr b rx_async_throttled)" -eq "${th0:-missing}"
	echo "$max0" > $P/rx_async_max
fi
xfrm_flush
