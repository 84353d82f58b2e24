# SPDX-License-Identifier: GPL-2.0
# 47-lifetime: an SA's lifetime counts the packets and bytes that go on the wire,
# however many of them leave in one GSO packet. After 4 MiB over TCP, a's count on
# the outbound SA is within 1% of b's on the inbound one (packets and bytes; b counts
# one packet at a time), for the module's batch AEAD, esp-null and AES-CBC/HMAC,
# transport and tunnel mode, IPv4 and IPv6. Then an outbound SA with a soft limit of
# SOFT packets: its expire event (ip xfrm monitor, what a key manager rekeys on)
# comes while the count is between SOFT and SOFT + one GSO packet's segments.
MB=4
SOFT=1000

if ! have_module; then
	t_skip "lifetime: needs the module"
	return 0
fi
for cfg in "gcm128 transport 4" "gcm128 tunnel 6" "null transport 6" "cbc-sha256 tunnel 4"; do
	read -r algo mode fam <<< "$cfg"
	ipv6_up || [ "$fam" = 4 ] || continue
	name="lifetime $algo $mode ipv$fam"
	if ! ns_setup tso-off 2> "$T_TMP/err" || ! xfrm_setup "$algo" "$mode" "$fam" 2>> "$T_TMP/err"; then
		t_fail "$name: setup" "$(cat "$T_TMP/err")"
		continue
	fi
	g0=$(counter a tx_gso_skbs) s0=$(counter a tx_segments)
	xfer a b "$ADDR_B" $MB || t_fail "$name: $MB MiB intact" "$XFER_WHY"
	g=$(($(counter a tx_gso_skbs) - g0)) s=$(($(counter a tx_segments) - s0))
	pa=$(sa_packets a $SPI_AB) pb=$(sa_packets b $SPI_AB)
	ba=$(sa_bytes a $SPI_AB) bb=$(sa_bytes b $SPI_AB)
	t_diag "$name: a sent $pa packets, $ba bytes; b received $pb packets, $bb bytes;" \
		"tx_gso_skbs +$g, tx_segments +$s"
	t_expect "$name: GSO packets of many segments (tx_gso_skbs +$g, tx_segments +$s)" \
		"$s" -gt $((4 * g))
	dp=$((pa - pb)) db=$((ba - bb))
	t_expect "$name: a's packet count within 1% of b's ($pa, $pb)" $((${dp#-} * 100)) -le "$pb"
	t_expect "$name: a's byte count within 1% of b's ($ba, $bb)" $((${db#-} * 100)) -le "$bb"
done

name="lifetime packet-soft $SOFT"
if ns_setup tso-off 2> "$T_TMP/err" && xfrm_setup gcm128 transport 4 2>> "$T_TMP/err" &&
   sa=$(_xfrm_sa_cmd "$IP4_A" "$IP4_B" $SPI_AB 1 transport gcm128 1 "") &&
   ip -n a xfrm state del src "$IP4_A" dst "$IP4_B" proto esp spi $SPI_AB 2>> "$T_TMP/err" &&
   ip -n a -batch - <<< "$sa limit packet-soft $SOFT" 2>> "$T_TMP/err"; then
	nsx a ip -s xfrm monitor expire > "$T_TMP/expire" 2>&1 &
	mpid=$!
	sleep 0.5
	xfer a b "$IP4_B" $MB || t_fail "$name: $MB MiB intact" "$XFER_WHY"
	sleep 0.5
	kill $mpid; wait $mpid 2>/dev/null
	pa=$(sa_packets a $SPI_AB)
	# the packet count of the first expire event, and whether it was the soft one
	read -r at hard <<< "$(awk '/^Expired/ {e = 1}
		e && n == 1 {sub(/^.*\(bytes\), */, ""); sub(/\(packets\).*/, ""); at = $1; n = 2}
		e && /lifetime current:/ && !n {n = 1}
		e && /hard [0-9]+[[:space:]]*$/ && !/\(/ {h = $NF; exit}
		END {print (at == "" ? "none" : at), (h == "" ? "?" : h)}' "$T_TMP/expire")"
	t_diag "$name: a sent $pa packets; expire event at ${at} packets, hard ${hard}"
	t_expect "$name: the SA sent more than $SOFT packets" "$pa" -gt $SOFT
	if [ "$at" = none ]; then
		t_fail "$name: an expire event came" "$(head -c 2000 "$T_TMP/expire")"
	else
		t_expect "$name: it was the soft one" "$hard" -eq 0
		t_expect "$name: it came not before $SOFT packets ($at)" \
			"$at" -ge $SOFT
		t_expect "$name: it came within one GSO packet after $SOFT packets ($at)" \
			"$at" -le $((SOFT + 64))
	fi
else
	t_fail "$name: setup" "$(cat "$T_TMP/err")"
fi
ns_cleanup
