# SPDX-License-Identifier: GPL-2.0
# 48-outer-tunnel: ESP inside another tunnel between a and b. GRO meets such a packet
# first inside the outer one, on vb; there the module must leave it alone (not even
# look the SA up: rx_drop_no_state stays), for the stock path to decapsulate it.
# - GRE and VXLAN, the SAs between the tunnel's inner addresses: b must see the
#   decrypted packets come in on the tunnel device t0, as the stock path shows them:
#   an nft rule on iifname t0 counts every datagram a sends, none on vb, b's strict
#   reverse-path filter (rp_filter=1; the way back to a's tunnel address is t0) drops
#   none, and a TCP transfer arrives intact. GRO meets them again on t0, where the
#   module takes them (rx_decrypted).
# - FOU (ESP directly in UDP port 5555, "ip fou ... ipproto 50"; a's SA sends ESP in
#   UDP there): GRO meets the ESP header right behind the UDP one (is_fou). The module
#   must not take those (rx_gro_packets and rx_drop_no_state stay). The stock path
#   drops them after FOU, in 6.1 and 6.12 alike (xfrm4_rcv() takes the protocol from
#   the IP header, which still says UDP: XfrmInHdrError), so nothing is delivered.
N=20
PORT=7001
FOU_PORT=5555
T_A=10.50.0.1 T_B=10.50.0.2

# outer_setup KIND: netns; for gre and vxlan the tunnel t0 between a and b and ESP
# (AES-GCM, transport mode) between its addresses; for fou, ESP between a and b whose
# a -> b SA sends ESP in UDP to b's FOU port. Sets DST, the address to send to.
outer_setup() {
	local ns me peer addr sa sel tmpl
	ns_setup tso-off || return 1
	if [ "$1" = fou ]; then
		# only the datagrams to PORT need ESP: the FOU packets carrying
		# them pass b's UDP socket's policy check unprotected
		sel="src $IP4_A/32 dst $IP4_B/32 proto udp dport $PORT"
		tmpl="tmpl src $IP4_A dst $IP4_B proto esp reqid 1 mode transport"
		modprobe -q fou &&
		ip -n b fou add port $FOU_PORT ipproto 50 &&
		sa=$(_xfrm_sa_cmd "$IP4_A" "$IP4_B" $SPI_AB 1 transport gcm128 1 "") &&
		ip -n a -batch - <<-EOB &&
			$sa encap espinudp $FOU_PORT $FOU_PORT 0.0.0.0
			xfrm policy add $sel dir out $tmpl
		EOB
		ip -n b -batch - <<-EOB || return 1
			$sa
			xfrm policy add $sel dir in $tmpl
		EOB
		DST=$IP4_B
		return 0
	fi
	for ns in a b; do
		me=$IP4_A peer=$IP4_B addr=$T_A
		[ $ns = b ] && me=$IP4_B peer=$IP4_A addr=$T_B
		case $1 in
		gre) ip -n $ns link add t0 type gre local "$me" remote "$peer" ;;
		vxlan) ip -n $ns link add t0 type vxlan id 42 local "$me" remote "$peer" \
			dstport 4789 ;;
		esac || return 1
		ip -n $ns addr add "$addr/24" dev t0 && ip -n $ns link set t0 up || return 1
	done
	_xfrm_sa a $T_A $T_B $SPI_AB 1 transport gcm128 1 "" &&
	_xfrm_sa a $T_B $T_A $SPI_BA 2 transport gcm128 2 "" &&
	_xfrm_sa b $T_A $T_B $SPI_AB 1 transport gcm128 1 "" &&
	_xfrm_sa b $T_B $T_A $SPI_BA 2 transport gcm128 2 "" &&
	_xfrm_pol a $T_A $T_B $T_A $T_B transport 1 2 32 &&
	_xfrm_pol b $T_B $T_A $T_B $T_A transport 2 1 32 || return 1
	DST=$T_B
	nsx b sysctl -qw net.ipv4.conf.all.rp_filter=1 &&
	nsx b nft -f - <<-EOF
		table inet t {
			chain in {
				type filter hook input priority 0;
				iifname "t0" meta l4proto udp udp dport $PORT meta secpath exists counter
				iifname "vb" meta l4proto udp udp dport $PORT counter
			}
		}
	EOF
}

# nft_count NTH: packets of the NTH counter rule (1: on t0, 2: on vb)
nft_count() {
	nsx b nft list chain inet t in | awk -v want="$1" '/counter packets/ {
		if (++n == want) for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

rp_drops() {
	nsx b nstat -az TcpExtIPReversePathFilter | awk '/IPReversePathFilter/ {print $2}'
}

modprobe -q ip_gre; modprobe -q vxlan
rx=$T_TMP/outer.rx
for kind in gre vxlan fou; do
	name="esp in $kind"
	if ! outer_setup $kind 2> "$T_TMP/err"; then
		t_fail "$name: setup" "$(cat "$T_TMP/err")"
		continue
	fi
	: > "$rx"
	nsx b socat -u UDP4-RECV:$PORT - > "$rx" &
	sleep 0.5
	r0=$(rp_drops) s0=$(sa_packets b $SPI_AB) h0=$(xfrm_stat b XfrmInHdrError)
	if have_module; then
		d0=$(counter b rx_decrypted) n0=$(counter b rx_drop_no_state)
		g0=$(counter b rx_gro_packets)
	fi
	nsx a bash -c "for i in \$(seq 1 $N); do echo dgram\$i > /dev/udp/$DST/$PORT; done"
	sleep 1
	r1=$(rp_drops) s1=$(sa_packets b $SPI_AB) h1=$(xfrm_stat b XfrmInHdrError)
	if have_module; then
		d1=$(counter b rx_decrypted) n1=$(counter b rx_drop_no_state)
		g1=$(counter b rx_gro_packets)
		t_diag "$name: b: rx_gro_packets +$((g1 - g0)), rx_decrypted +$((d1 - d0))," \
			"rx_drop_no_state +$((n1 - n0))"
		t_expect "$name: the module left them to the stock path (rx_drop_no_state +$((n1 - n0)))" \
			$((n1 - n0)) -eq 0
	fi
	if [ $kind = fou ]; then
		t_diag "$name: b: XfrmInHdrError +$((h1 - h0)) (the stock path's verdict)"
		have_module && t_expect "$name: not taken at GRO (rx_gro_packets +$((g1 - g0)))" \
			$((g1 - g0)) -eq 0
		continue
	fi
	got=$(grep -c '^dgram' "$rx")
	t_expect "$name: ESP carried them (SA $SPI_AB in b +$((s1 - s0)) packets)" \
		$((s1 - s0)) -ge $N
	t_expect "$name: all $N datagrams delivered" "$got" -eq $N
	[ "$got" = $N ] || t_diag "$name: b's counters:" \
		"$(nsx b nstat -a | awk '{printf "%s=%s ", $1, $2}')" \
		"$(xfrm_errors b | tr '\n' ' ')"
	t_diag "$name: b: nft on t0 $(nft_count 1), on vb $(nft_count 2); rp_filter drops +$((r1 - r0))"
	t_expect "$name: b saw them come in on t0 (nft iifname t0)" "$(nft_count 1)" -eq $N
	t_expect "$name: none on vb (nft iifname vb)" "$(nft_count 2)" -eq 0
	t_expect "$name: rp_filter dropped none" $((r1 - r0)) -eq 0
	have_module && t_expect "$name: the module took them from t0 (rx_decrypted +$((d1 - d0)))" \
		$((d1 - d0)) -ge $N
	if xfer a b $T_B 2; then t_ok "$name: 2 MiB over TCP intact"
	else t_fail "$name: 2 MiB over TCP intact" "$XFER_WHY"; fi
done
ns_cleanup
