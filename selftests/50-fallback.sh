# SPDX-License-Identifier: GPL-2.0
# SAs the fast path does not carry go the stock way and still work:
# ESP in UDP (NAT-T), ESP nested with IPComp. TFC padding is carried, and
# padded the way esp4/esp6 pad it (stock esp4_offload skips it).

tx_seg() { counter a tx_segments 2>/dev/null || echo 0; }

# A UDP socket with UDP_ENCAP_ESPINUDP on port 4500 is what an IKE daemon
# keeps open; without it the kernel does not decapsulate ESP-in-UDP.
encap_sock() {
	nsx "$1" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4500))
s.setsockopt(socket.IPPROTO_UDP, 100, 2)
time.sleep(600)' &
}

fallback_udp_encap() {
	local k=0x0102030405060708090a0b0c0d0e0f10cafe0100 s0 s1 ns
	ns_setup tso-off
	xfrm_addrs transport 4
	for ns in a b; do
		ip -n $ns xfrm state add src $IP4_A dst $IP4_B proto esp spi $SPI_AB reqid 1 \
			mode transport encap espinudp 4500 4500 0.0.0.0 aead 'rfc4106(gcm(aes))' $k 128
		ip -n $ns xfrm state add src $IP4_B dst $IP4_A proto esp spi $SPI_BA reqid 2 \
			mode transport encap espinudp 4500 4500 0.0.0.0 aead 'rfc4106(gcm(aes))' $k 128
	done
	# Policies for TCP only: the UDP/4500 packets themselves must not need
	# ESP (the socket policy check runs before decapsulation; IKE daemons
	# give their NAT-T sockets a bypass policy instead).
	for d in "a $IP4_A $IP4_B 1 2" "b $IP4_B $IP4_A 2 1"; do
		set -- $d
		ip -n $1 xfrm policy add src $2 dst $3 proto tcp dir out \
			tmpl src $2 dst $3 proto esp reqid $4 mode transport
		ip -n $1 xfrm policy add src $3 dst $2 proto tcp dir in \
			tmpl src $3 dst $2 proto esp reqid $5 mode transport
	done
	encap_sock a; encap_sock b
	sleep 0.5
	s0=$(tx_seg)
	if xfer a b $IP4_B 4; then t_ok "ESP-in-UDP SA: 4 MiB intact"
	else t_fail "ESP-in-UDP SA: 4 MiB intact" "$XFER_WHY"; fi
	s1=$(tx_seg)
	t_expect "ESP-in-UDP SA: carried by the stock path (tx_segments +$((s1 - s0)))" $((s1 - s0)) -eq 0
	t_expect "ESP-in-UDP SA: SA counted the traffic" "$(sa_bytes b $SPI_AB)" -gt 4000000
	t_expect "ESP-in-UDP SA: no xfrm errors" "$(xfrm_errors_total b)" -eq 0
	t_diag "a: $(xfrm_errors a | tr '\n' ' ') b: $(xfrm_errors b | tr '\n' ' ')"
	ns_cleanup
}

fallback_ipcomp() {
	local k=0x0102030405060708090a0b0c0d0e0f10cafe0100 s0 s1 ns d
	ns_setup tso-off
	for ns in a b; do
		for d in "$IP4_A $IP4_B $SPI_AB 1 0x11" "$IP4_B $IP4_A $SPI_BA 2 0x22"; do
			set -- $d
			ip -n $ns xfrm state add src $1 dst $2 proto comp spi $5 reqid $4 \
				mode transport comp deflate
			ip -n $ns xfrm state add src $1 dst $2 proto esp spi $3 reqid $4 \
				mode transport aead 'rfc4106(gcm(aes))' $k 128
		done
	done
	for d in "a $IP4_A $IP4_B 1 2" "b $IP4_B $IP4_A 2 1"; do
		set -- $d
		ip -n $1 xfrm policy add src $2 dst $3 dir out \
			tmpl src $2 dst $3 proto comp reqid $4 mode transport \
			tmpl src $2 dst $3 proto esp reqid $4 mode transport
		ip -n $1 xfrm policy add src $3 dst $2 dir in \
			tmpl src $3 dst $2 proto comp reqid $5 mode transport level use \
			tmpl src $3 dst $2 proto esp reqid $5 mode transport
	done
	s0=$(tx_seg)
	if xfer a b $IP4_B 4; then t_ok "IPComp+ESP (nested transforms): 4 MiB intact"
	else t_fail "IPComp+ESP (nested transforms): 4 MiB intact" "$XFER_WHY"; fi
	s1=$(tx_seg)
	t_expect "IPComp+ESP: carried by the stock path (tx_segments +$((s1 - s0)))" $((s1 - s0)) -eq 0
	t_expect "IPComp+ESP: ESP SA counted the traffic" "$(sa_bytes b $SPI_AB)" -gt 100000
	ns_cleanup
}

tfc_padding() {
	local k=0x0102030405060708090a0b0c0d0e0f10cafe0100 ns cap=$T_TMP/tfc.cap n short
	ns_setup tso-off
	xfrm_addrs tunnel 4
	for ns in a b; do
		ip -n $ns xfrm state add src $IP4_A dst $IP4_B proto esp spi $SPI_AB reqid 1 \
			mode tunnel tfcpad 1000 aead 'rfc4106(gcm(aes))' $k 128
		ip -n $ns xfrm state add src $IP4_B dst $IP4_A proto esp spi $SPI_BA reqid 2 \
			mode tunnel tfcpad 1000 aead 'rfc4106(gcm(aes))' $k 128
	done
	_xfrm_pol a $IN4_A $IN4_B $IP4_A $IP4_B tunnel 1 2 32
	_xfrm_pol b $IN4_B $IN4_A $IP4_B $IP4_A tunnel 2 1 32
	s0=$(tx_seg)
	if xfer a b $IN4_B 2; then t_ok "TFC padding SA: 2 MiB intact"
	else t_fail "TFC padding SA: 2 MiB intact" "$XFER_WHY"; fi
	t_expect "TFC padding SA: carried by the module (tx_segments +$(( $(tx_seg) - s0 )))" \
		$(( $(tx_seg) - s0 )) -gt 1000
	# small UDP datagrams must leave padded to 1000 bytes of ESP payload
	n=$(nsx a python3 "$(dirname "${BASH_SOURCE[0]:-$0}")/espinject.py" capture va "$cap" 3 \
		bash -c "for i in 1 2 3; do echo tfc > /dev/udp/$IN4_B/5557; sleep 0.2; done")
	short=$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(); i = 0; short = 0
while i < len(d):
    n = struct.unpack("!I", d[i:i + 4])[0]; i += 4 + n
    short += n - 14 - 20 < 1000 + 8 + 8 + 2 + 16
print(short)' "$cap")
	t_expect "TFC padding: $n small packets captured" "${n:-0}" -eq 3
	t_expect "TFC padding: none of them shorter than tfcpad" "${short:-1}" -eq 0
	ns_cleanup
}

# BEET: carried by the module (its GSO path rebuilds the inner headers).
beet_case() {
	local k=0x0102030405060708090a0b0c0d0e0f10cafe0100 ns s0
	ns_setup tso-off-both
	for ns in a b; do
		ip -n $ns xfrm state add src $IP4_A dst $IP4_B proto esp spi $SPI_AB reqid 1 \
			mode beet sel src $IN4_A dst $IN4_B aead 'rfc4106(gcm(aes))' $k 128
		ip -n $ns xfrm state add src $IP4_B dst $IP4_A proto esp spi $SPI_BA reqid 2 \
			mode beet sel src $IN4_B dst $IN4_A aead 'rfc4106(gcm(aes))' $k 128
	done
	_xfrm_pol a $IN4_A $IN4_B $IP4_A $IP4_B beet 1 2 32
	_xfrm_pol b $IN4_B $IN4_A $IP4_B $IP4_A beet 2 1 32
	s0=$(tx_seg)
	if xfer a b $IN4_B 4; then t_ok "BEET SA: 4 MiB intact"
	else t_fail "BEET SA: 4 MiB intact" "$XFER_WHY"; fi
	t_expect "BEET SA: GSO carried by the module (tx_gso_skbs)" "$(counter a tx_gso_skbs)" -gt 0
	t_expect "BEET SA: no xfrm errors" "$(xfrm_errors_total b)" -eq 0
	ns_cleanup
}

if have_module; then
	beet_case
	fallback_udp_encap
	fallback_ipcomp
	tfc_padding
else
	t_skip "fallback cases" "module not loaded"
fi
