# SPDX-License-Identifier: GPL-2.0
# 46-csum: what the ICV vouches for. A GRE or VXLAN tunnel between a and b runs over
# ESP (transport mode between their addresses, or tunnel mode whose inner addresses
# are the peers' own), and b forwards what comes out of it to a third netns, c.
# a sends UDP datagrams into the tunnel, to c, some with a wrong UDP checksum (a raw
# socket: selftests/rawudp.py). The ICV covers the ESP payload, which is the GRE or
# VXLAN packet, not the checksum of the datagram inside, which b only forwards: c
# must find the wrong ones (UdpInCsumErrors) and deliver only the right ones. For
# GRE, which has no checksum, b must vouch for none (rx_csum_by_icv stays); for VXLAN
# it vouches for the outer UDP checksum, the one the ESP payload starts with, and for
# nothing inside. Both with the module finishing the packets itself (rx_decap) and
# with xfrm_input() finishing them.
N=10
PORT=7000
T_A=10.50.0.1 T_B=10.50.0.2 C_B=10.60.0.1 C_C=10.60.0.2
RAWUDP="python3 $(dirname "${BASH_SOURCE[0]}")/rawudp.py"

csum_cleanup() {
	if [ -e /run/netns/c ]; then
		ip netns pids c 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del c
	fi
	return 0
}

# csum_sas MODE: ESP between a's and b's addresses for everything between them
csum_sas() {
	if [ "$1" = transport ]; then
		xfrm_setup gcm128 transport 4
		return
	fi
	xfrm_flush
	_xfrm_sa a "$IP4_A" "$IP4_B" $SPI_AB 1 tunnel gcm128 1 "" &&
	_xfrm_sa a "$IP4_B" "$IP4_A" $SPI_BA 2 tunnel gcm128 2 "" &&
	_xfrm_sa b "$IP4_A" "$IP4_B" $SPI_AB 1 tunnel gcm128 1 "" &&
	_xfrm_sa b "$IP4_B" "$IP4_A" $SPI_BA 2 tunnel gcm128 2 "" &&
	_xfrm_pol a "$IP4_A" "$IP4_B" "$IP4_A" "$IP4_B" tunnel 1 2 32 &&
	_xfrm_pol b "$IP4_B" "$IP4_A" "$IP4_B" "$IP4_A" tunnel 2 1 32
}

# csum_tunnel KIND: the tunnel device t0 in a and b (KIND gre or vxlan), a's route
# to c through it
csum_tunnel() {
	local ns me peer addr
	for ns in a b; do
		me=$IP4_A peer=$IP4_B addr=$T_A
		[ $ns = b ] && me=$IP4_B peer=$IP4_A addr=$T_B
		ip -n $ns link del t0 2>/dev/null
		case $1 in
		gre) ip -n $ns link add t0 type gre local "$me" remote "$peer" ;;
		vxlan) ip -n $ns link add t0 type vxlan id 42 local "$me" remote "$peer" \
			dstport 4789 ;;
		esac || return 1
		ip -n $ns addr add "$addr/24" dev t0 && ip -n $ns link set t0 up || return 1
	done
	ip -n a route add 10.60.0.0/24 via $T_B dev t0
}


udp_csum_errors() {
	awk '/^Udp: / {if (!h) {for (i = 1; i <= NF; i++) if ($i == "InCsumErrors") c = i; h = 1}
		else print $c}' "/proc/$(ns_pid c)/net/snmp"
}

if ! have_module; then
	t_skip "csum: needs the module"
	return 0
fi
modprobe -q ip_gre; modprobe -q vxlan
rx=$T_TMP/csum.rx
for mode in transport tunnel; do
	csum_cleanup
	if ! ns_setup tso-off 2> "$T_TMP/err" || ! csum_sas $mode 2>> "$T_TMP/err" ||
	   ! ip netns add c 2>> "$T_TMP/err" ||
	   ! ip -n b link add vc type veth peer name vc netns c 2>> "$T_TMP/err" ||
	   ! ip -n b -batch - <<-EOB 2>> "$T_TMP/err" ||
		addr add $C_B/24 dev vc
		link set vc up
	EOB
	   ! ip -n c -batch - <<-EOB 2>> "$T_TMP/err"; then
		link set lo up
		addr add $C_C/24 dev vc
		link set vc up
		route add 10.50.0.0/24 via $C_B
	EOB
		t_fail "csum $mode: setup (netns a b c, SAs)" "$(cat "$T_TMP/err")"
		continue
	fi
	nsx b sysctl -qw net.ipv4.ip_forward=1
	: > "$rx"
	nsx c socat -u UDP4-RECV:$PORT - > "$rx" &
	for kind in gre vxlan; do
		if ! csum_tunnel $kind 2> "$T_TMP/err"; then
			t_fail "csum $mode $kind: tunnel set up" "$(cat "$T_TMP/err")"
			continue
		fi
		for decap in 1 0; do
			name="csum $mode $kind rx_decap=$decap"
			echo $decap > "$KNOBS/rx_decap"
			tag=$mode$kind$decap
			e0=$(udp_csum_errors) d0=$(counter b rx_decrypted) i0=$(counter b rx_csum_by_icv)
			# N with a wrong UDP checksum, N with the right one, a -> c
			nsx a $RAWUDP $T_A $C_C $PORT $N "$tag"
			sleep 1
			e1=$(udp_csum_errors) d1=$(counter b rx_decrypted) i1=$(counter b rx_csum_by_icv)
			t_diag "$name: c: UdpInCsumErrors +$((e1 - e0)); b: rx_decrypted +$((d1 - d0))," \
				"rx_csum_by_icv +$((i1 - i0))"
			t_expect "$name: the module decrypted them (rx_decrypted +$((d1 - d0)))" \
				$((d1 - d0)) -ge $((2 * N))
			t_expect "$name: c found the $N wrong checksums (UdpInCsumErrors +$((e1 - e0)))" \
				$((e1 - e0)) -eq $N
			t_expect "$name: c delivered none of them" "$(grep -c "^${tag}bad" "$rx")" -eq 0
			t_expect "$name: c delivered the $N right ones" "$(grep -c "^${tag}good" "$rx")" -eq $N
			if [ $kind = gre ]; then
				t_expect "$name: b vouched for no checksum (rx_csum_by_icv +$((i1 - i0)))" \
					$((i1 - i0)) -eq 0
			else
				t_expect "$name: b vouched for the outer UDP checksums (rx_csum_by_icv +$((i1 - i0)))" \
					$((i1 - i0)) -ge $((2 * N))
			fi
		done
		echo 1 > "$KNOBS/rx_decap"
	done
done
csum_cleanup
ns_cleanup
