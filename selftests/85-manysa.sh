# SPDX-License-Identifier: GPL-2.0
# 85-manysa: 64 SA pairs at once. A hub netns "ms" is joined to 8 peer netns mp0..mp7 by
# one veth pair each; every peer has 8 SA pairs (distinct SPIs, distinct keys, distinct
# reqids), selected by TCP port (policy selectors dport/sport), so 128 SAs in all:
#   peer:  0 v4 transport gcm   1 v4 transport chacha   2 v4 tunnel gcm   3 v4 tunnel chacha
#          4 v6 transport gcm   5 v6 transport chacha   6 v6 tunnel gcm   7 v6 tunnel chacha
# 64 socat transfers (MANYSA_KB KiB each, every one with its own random data) run in
# parallel hub -> peers. Checks:
#   - every transfer's sha256 matches its own source file (no cross-talk between SAs);
#   - per SA (both directions): the receiver's highest sequence number (anti-replay
#     "seq") equals the sender's "oseq", the receiver's packet counter equals oseq
#     (every sequence number arrived exactly once) unless the veth dropped frames, and
#     the receiver's replay/integrity-failure counters are zero;
#   - /proc/net/xfrm_stat all zero in every netns (XfrmInStateSeqError,
#     XfrmInNoStates, XfrmInTmplMismatch, ...);
#   - fast path: tx_segments in ms == the data SAs' total oseq (every data ESP packet
#     built by the module), rx_gro_packets grew in every peer, and the ACK direction.
# Written with few forks: under TCG every process costs.
MS_KB=${MANYSA_KB:-512}
MS_PEERS=8 MS_PER=8
MS_HUB=ms
MS_REPLAY=${MANYSA_REPLAY:-128}
MS_DIR=$T_TMP/manysa
MS_NS="$MS_HUB mp0 mp1 mp2 mp3 mp4 mp5 mp6 mp7"
PEERS="mp0 mp1 mp2 mp3 mp4 mp5 mp6 mp7"

ms_cleanup() {
	local ns
	for ns in $MS_NS; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}
# per peer k: family, mode, algorithm, addresses
FAM=() MODE=() ALG=() HIP=() PIP=()
for k in 0 1 2 3 4 5 6 7; do
	if [ $k -lt 4 ]; then FAM[k]=4 HIP[k]=10.85.$k.1 PIP[k]=10.85.$k.2
	else FAM[k]=6 HIP[k]=fd85:$k::1 PIP[k]=fd85:$k::2; fi
	if [ $((k % 4)) -lt 2 ]; then MODE[k]=transport; else MODE[k]=tunnel; fi
	if [ $((k % 2)) = 0 ]; then ALG[k]=gcm128; else ALG[k]=chacha; fi
done
# SPI of the SA hub->peer (dir 0) or peer->hub (dir 1) for pair (k, j); port; reqid
# ms_ids K J -> sets PORT S0 S1 R0 R1 K0 K1 (keys derived from the SPI)
ms_ids() {
	local h0 h1
	PORT=$((31000 + $1 * MS_PER + $2))
	printf -v S0 '0x%08x' $((0x85000000 + ($1 << 8) + ($2 << 1)))
	printf -v S1 '0x%08x' $((0x85000000 + ($1 << 8) + ($2 << 1) + 1))
	R0=$((10000 + $1 * 100 + $2 * 2)) R1=$((10000 + $1 * 100 + $2 * 2 + 1))
	h0=${S0#0x} h1=${S1#0x}
	if [ "${ALG[$1]}" = gcm128 ]; then   # 16 B key + 4 B salt
		K0="aead rfc4106(gcm(aes)) 0x$h0$h0$h0$h0$h0 128"
		K1="aead rfc4106(gcm(aes)) 0x$h1$h1$h1$h1$h1 128"
	else                                 # 32 B key + 4 B salt
		K0="aead rfc7539esp(chacha20,poly1305) 0x$h0$h0$h0$h0$h0$h0$h0$h0$h0 128"
		K1="aead rfc7539esp(chacha20,poly1305) 0x$h1$h1$h1$h1$h1$h1$h1$h1$h1 128"
	fi
}

ms_setup() {
	local k j ns h p m plen hb pb sysctls
	ms_cleanup
	rm -rf "$MS_DIR"; mkdir -p "$MS_DIR"
	sysctls="net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0"
	ip netns add $MS_HUB || return 1
	nsx $MS_HUB sh -c "ip link set lo up; sysctl -qw $sysctls"
	hb=
	for k in 0 1 2 3 4 5 6 7; do
		ns=mp$k h=${HIP[k]} p=${PIP[k]} m=${MODE[k]}
		if [ ${FAM[k]} = 4 ]; then plen=24; else plen=64; fi
		ip netns add $ns || return 1
		ip link add s$k netns $MS_HUB address 02:85:00:00:0$k:01 type veth \
			peer name p$k netns $ns address 02:85:00:00:0$k:02 || return 1
		# the hub sends the data: TSO off there so veth hands the peer GSO-built
		# frames (and GRO on at both ends)
		nsx $ns sh -c "ip link set lo up; sysctl -qw $sysctls
			ip addr add $p/$plen dev p$k nodad; ip link set p$k up
			ip neigh replace $h lladdr 02:85:00:00:0$k:01 dev p$k nud permanent
			ethtool -K p$k gro on tso off" > /dev/null || return 1
		nsx $MS_HUB sh -c "ip addr add $h/$plen dev s$k nodad; ip link set s$k up
			ip neigh replace $p lladdr 02:85:00:00:0$k:02 dev s$k nud permanent
			ethtool -K s$k gro on tso off" > /dev/null || return 1
		pb=
		for j in 0 1 2 3 4 5 6 7; do
			ms_ids $k $j
			pb+="xfrm state add src $h dst $p proto esp spi $S0 reqid $R0 mode $m replay-window $MS_REPLAY $K0
xfrm state add src $p dst $h proto esp spi $S1 reqid $R1 mode $m replay-window $MS_REPLAY $K1
xfrm policy add src $p dst $h proto tcp sport $PORT dir out tmpl src $p dst $h proto esp reqid $R1 mode $m
xfrm policy add src $h dst $p proto tcp dport $PORT dir in tmpl src $h dst $p proto esp reqid $R0 mode $m
"
			# hub: data out to dport, ACKs in from sport; the peer: the mirror image
			hb+="xfrm state add src $h dst $p proto esp spi $S0 reqid $R0 mode $m replay-window $MS_REPLAY $K0
xfrm state add src $p dst $h proto esp spi $S1 reqid $R1 mode $m replay-window $MS_REPLAY $K1
xfrm policy add src $h dst $p proto tcp dport $PORT dir out tmpl src $h dst $p proto esp reqid $R0 mode $m
xfrm policy add src $p dst $h proto tcp sport $PORT dir in tmpl src $p dst $h proto esp reqid $R1 mode $m
"
		done
		printf '%s' "$pb" > "$MS_DIR/batch.$ns"
		ip -n $ns -batch "$MS_DIR/batch.$ns" || return 1
	done
	printf '%s' "$hb" > "$MS_DIR/batch.$MS_HUB"
	ip -n $MS_HUB -batch "$MS_DIR/batch.$MS_HUB"
}

# ---------------------------------------------------------------- setup
t0=$(date +%s)
if ! ms_setup > "$T_TMP/ms.err" 2>&1; then
	t_fail "manysa: 8 peers, 128 SAs set up" "$(tail -20 "$T_TMP/ms.err")"
	ms_cleanup
	return 0 2>/dev/null || exit 0
fi
nsa=0
for ns in $MS_NS; do
	n=$(ip -n $ns xfrm state count 2>/dev/null); n=${n##* }
	nsa=$((nsa + ${n:-0}))
done
# the hub holds all 128, every peer its 16
t_expect "manysa: 8 peers, 128 SAs set up (hub + peers hold $nsa states, $(( $(date +%s) - t0 )) s)" "$nsa" -eq 256

# ---------------------------------------------------------------- 64 parallel transfers
# data.NN, NN = k * 8 + j: one random file per transfer
(cd "$MS_DIR" && head -c $((64 * MS_KB * 1024)) /dev/urandom | split -b $((MS_KB * 1024)) -d -a 2 - data.)
t0=$(date +%s%N)
for k in 0 1 2 3 4 5 6 7; do
	if [ ${FAM[k]} = 4 ]; then l=TCP4-LISTEN; else l=TCP6-LISTEN; fi
	for j in 0 1 2 3 4 5 6 7; do
		ms_ids $k $j; i=$((k * 8 + j)); printf -v i %02d $i
		# -T: give up after 90 s without data
		echo "socat -T 90 -u $l:$PORT,reuseaddr CREATE:$MS_DIR/recv.$i &"
	done > "$MS_DIR/listen.mp$k"
	echo wait >> "$MS_DIR/listen.mp$k"
	nsx mp$k sh "$MS_DIR/listen.mp$k" > "$MS_DIR/listen.out.mp$k" 2>&1 &
	lpids="${lpids:-} $!"
done
# all 64 listening? (one ss per peer)
for k in 0 1 2 3 4 5 6 7; do
	for try in $(seq 1 300); do
		n=$(nsx mp$k ss -Hltn 'sport >= :31000' | wc -l)
		[ "$n" -ge 8 ] && break
		sleep 0.2
	done
	[ "$n" -ge 8 ] || t_diag "manysa: only $n of 8 listeners up in mp$k"
done
{
	for k in 0 1 2 3 4 5 6 7; do
		if [ ${FAM[k]} = 4 ]; then c="TCP4:${PIP[k]}"; else c="TCP6:[${PIP[k]}]"; fi
		for j in 0 1 2 3 4 5 6 7; do
			ms_ids $k $j; printf -v i %02d $((k * 8 + j))
			echo "socat -T 90 -u OPEN:$MS_DIR/data.$i $c:$PORT || echo 'sender $i ($c:$PORT) failed' &"
		done
	done
	echo wait
} > "$MS_DIR/send.ms"
nsx $MS_HUB sh "$MS_DIR/send.ms" > "$MS_DIR/send.out" 2>&1
# listeners of failed senders would wait forever: give them 30 s, then stop them
for try in $(seq 1 150); do
	alive=0
	for pid in $lpids; do kill -0 "$pid" 2>/dev/null && alive=1; done
	[ $alive = 0 ] && break
	sleep 0.2
done
[ $alive = 0 ] || { t_diag "manysa: listeners still waiting after 30 s, stopped"; for ns in $PEERS; do ip netns pids $ns | xargs -r kill; done; }
for pid in $lpids; do wait "$pid"; done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
sfail=$(grep -c 'failed$' "$MS_DIR/send.out")
# one sha256sum over all sources, one over all copies
bad=$(cd "$MS_DIR" && diff <(sha256sum data.* | sed 's/ data\./ /') \
	<(for f in data.*; do i=${f#data.}; if [ -s recv.$i ]; then echo "$(sha256sum < recv.$i | cut -d' ' -f1)  $i"; else echo "missing  $i"; fi; done) |
	awk '/^>/ {printf " #%s", $3}')
t_diag "manysa: 64 parallel transfers of $MS_KB KiB in $ms ms (guest clock), $sfail senders failed"
[ "$sfail" = 0 ] || t_diag "$(grep -v '^$' "$MS_DIR/send.out" | head -10)"
if [ -z "$bad" ] && [ "$sfail" = 0 ]; then t_ok "manysa: 64 parallel transfers, each sha256 equal"
else t_fail "manysa: 64 parallel transfers, each sha256 equal" "transfers (k*8+j) with a wrong or missing copy:${bad:- none}; senders failed: $sfail"; fi

# ---------------------------------------------------------------- per-SA sequence numbers
drops=0
for ns in $MS_NS; do
	# rx and tx drops of the veths (/proc/net/dev: "dev: rx bytes packets errs drop ... tx bytes packets errs drop")
	d=$(nsx $ns cat /proc/net/dev | awk -F'[: ]+' '$2 ~ /^[ps][0-7]$/ {s += $6 + $14} END {print s + 0}')
	drops=$((drops + d))
	# ip -s xfrm state: "spi 0x..", "seq 0x..", "oseq 0x.." (legacy or, with replay-window
	# > 32, ESN-style context), "N(bytes), N(packets)", last "replay-window R replay N failed N"
	ip -n $ns -s xfrm state 2>/dev/null | tee "$MS_DIR/raw.$ns" | awk -v ns=$ns '
		{ for (i = 1; i < NF; i++) {
			v = $(i + 1); sub(/,$/, "", v)
			if ($i == "spi") { spi = v; sub(/\(.*/, "", spi); seq = oseq = b = p = "-" }
			else if ($i == "seq") seq = v
			else if ($i == "oseq") oseq = v
		  }
		  for (i = 1; i <= NF; i++) {
			if ($i ~ /^[0-9]+\(bytes\)/) { b = $i; sub(/\(.*/, "", b) }
			if ($i ~ /^[0-9]+\(packets\)/) { p = $i; sub(/\(.*/, "", p) }
		  }
		  if ($1 == "replay-window" && $3 == "replay" && $5 == "failed") print ns, spi, seq, oseq, b, p, $4, $6 }'
done > "$MS_DIR/sas"
# join: for each SPI the sender's and the receiver's line (data SAs: even SPI, sender ms)
read -r nchk seqbad pktbad errbad sum_d sum_drecv sum_dsk sum_a sum_arecv <<< "$(awk -v drops=$drops '
	function hex(s,   i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	{ even = index("02468ace", substr($2, length($2), 1)) > 0
	  sender = (even && $1 == "ms") || (!even && $1 != "ms")
	  if (sender) { soseq[$2] = hex($4); spk[$2] = $6; dir[$2] = even ? "d" : "a" }
	  else { rseq[$2] = hex($3); rpk[$2] = $6; rrep[$2] = $7; rfail[$2] = $8 } }
	END {
		for (s in soseq) {
			n++
			if (!(s in rseq) || soseq[s] == 0 || rseq[s] != soseq[s]) { sb++; print "seq " s " oseq " soseq[s] " peer seq " rseq[s] > "/dev/stderr" }
			if (rpk[s] != soseq[s] && (drops == 0 || rpk[s] > soseq[s])) { pb++; print "pkt " s " oseq " soseq[s] " received " rpk[s] > "/dev/stderr" }
			if (rrep[s] != 0 || rfail[s] != 0) { eb++; print "err " s " replay " rrep[s] " failed " rfail[s] > "/dev/stderr" }
			if (dir[s] == "d") { d += soseq[s]; dr += rpk[s]; dsk += spk[s] } else { a += soseq[s]; ar += rpk[s] }
		}
		print n + 0, sb + 0, pb + 0, eb + 0, d + 0, dr + 0, dsk + 0, a + 0, ar + 0 }' "$MS_DIR/sas" 2> "$MS_DIR/sas.bad")"
t_diag "manysa: $nchk SAs; data SAs: sum oseq $sum_d, received $sum_drecv (sender lifetime packets: $sum_dsk); ACK SAs: sum oseq $sum_a, received $sum_arecv; veth drops $drops"
[ -s "$MS_DIR/sas.bad" ] && t_diag "$(head -8 "$MS_DIR/sas.bad")" "first SA in ms as printed:" "$(head -24 "$MS_DIR/raw.ms")"
t_expect "manysa: all 128 SAs carried traffic in both netns" "$nchk" -eq 128
t_expect "manysa: every SA: receiver's highest seq == sender's oseq > 0 ($seqbad bad)" "$seqbad" -eq 0
t_expect "manysa: every SA: packets received == oseq, each sequence number once ($pktbad bad)" "$pktbad" -eq 0
t_expect "manysa: every SA: no replay or integrity failures ($errbad bad)" "$errbad" -eq 0
xe=
for ns in $MS_NS; do
	e=$(xfrm_errors $ns | tr '\n' ' ')
	[ -n "$e" ] && xe="$xe $ns: $e"
done
if [ -z "$xe" ]; then t_ok "manysa: /proc/net/xfrm_stat all zero in all 9 netns (XfrmInStateSeqError etc.)"
else t_fail "manysa: /proc/net/xfrm_stat all zero in all 9 netns (XfrmInStateSeqError etc.)" "$xe"; fi

# ---------------------------------------------------------------- fast path
if [ -n "$ESP_MODULE" ] || have_module; then
	for ns in $MS_NS; do echo "$ns $(counter $ns tx_segments) $(counter $ns rx_gro_packets)"; done > "$MS_DIR/ctr"
	read -r htx hrx ptx prx nog <<< "$(awk '$1 == "ms" {htx = $2; hrx = $3; next}
		{ptx += $2; prx += $3; if ($3 + 0 == 0) nog = nog "," $1}
		END {print htx + 0, hrx + 0, ptx + 0, prx + 0, (nog == "" ? "-" : nog)}' "$MS_DIR/ctr")"
	t_diag "manysa: data: tx_segments(ms) $htx vs sum oseq $sum_d; rx_gro_packets(peers) $prx vs received $sum_drecv"
	t_diag "manysa: ACKs: tx_segments(peers) $ptx vs sum oseq $sum_a; rx_gro_packets(ms) $hrx vs received $sum_arecv"
	t_diag "manysa: ms counters: $(counters $MS_HUB | awk '$2 != 0' | tr '\n' ' ')"
	# every ESP packet of the data direction was built by the module
	t_expect "manysa: fast path: tx_segments(ms) == sum of the 64 data SAs' oseq" "$htx" -eq "$sum_d"
	t_expect "manysa: fast path: rx_gro_packets grew in all 8 peers (not in: $nog)" "$nog" = -
	t_expect "manysa: fast path: rx_gro_packets(peers) >= 90% of the received data packets" \
		$((prx * 10)) -ge $((sum_drecv * 9))
	t_expect "manysa: fast path (ACK direction): tx_segments(peers) and rx_gro_packets(ms) grew" \
		$(( (ptx > 0) + (hrx > 0) )) -eq 2
else
	t_skip "manysa: fast path" "no module loaded"
fi
ms_cleanup
rm -rf "$MS_DIR"
