# SPDX-License-Identifier: GPL-2.0
# Asynchronous AEADs: pcrypt (parallel over CPUs, completes in order) is
# instantiated over the SA's algorithm through crypto_user, at a higher
# priority, so SAs created afterwards use it: over AES-GCM and over this
# module's own ChaCha20-Poly1305. (cryptd refuses to wrap an algorithm that
# is already asynchronous, as the AES-NI GCM is, and a cryptd over a
# synchronous generic one ranks below AES-NI, so no SA would pick it.) The
# module must then see -EINPROGRESS (tx_async) and every byte must arrive,
# intact, with no TCP retransmit and no segment arriving out of order
# (TcpExtTCPOFOQueue on the receiver).
#
# pcrypt completes in bursts: its serial worker hands back every finished
# request at once, with bottom halves off, and xfrm queues each decrypted
# packet on the gro_cells of that CPU, which hold at most netdev_max_backlog
# packets (net/core/gro_cells.c: "if (skb_queue_len(&cell->napi_skbs) >
# READ_ONCE(netdev_max_backlog)) { drop: dev_core_stats_rx_dropped_inc(dev)").
# With the default 1000 a burst overflowed them, TCP retransmitted, and this
# test failed 4 times in 9. The module now keeps at most rx_async_max (256,
# at most half the backlog) packets in asynchronous decryption and holds the
# rest in its per-SA queue (rx_steer.c), so the cases below run at the
# default backlog and assert no loss at all. One more case forces the limit
# down to 8 so that the pause-and-wake path is taken for certain.

modprobe -q crypto_user; modprobe -q pcrypt

# Where a lost or late segment could have gone, for the known-issue report:
# veth (ring full), qdisc, xfrm, and the receiving socket (pruned, dropped).
async_drops() {
	echo "va tx/rx dropped $(link_stat a va tx dropped)/$(link_stat a va rx dropped)," \
	     "vb tx/rx dropped $(link_stat b vb tx dropped)/$(link_stat b vb rx dropped)," \
	     "qdisc dropped a $(tc -n a -s qdisc show dev va | awk '/dropped/ {sub(",", "", $7); print $7}')" \
	     "b $(tc -n b -s qdisc show dev vb | awk '/dropped/ {sub(",", "", $7); print $7}')," \
	     "xfrm errors a $(xfrm_errors_total a) b $(xfrm_errors_total b)"
}
async_case() {
	local tmpl=$1 fam=$2 algo=${3:-gcm128} drv inst a0 a1 o0 o1 name
	ns_setup tso-off || { t_fail "$tmpl v$fam: setup"; return; }
	# An async AEAD needs a queue on the egress device: see docs/design.md,
	# "Async crypto on TX, and devices without a queue".
	tc -n a qdisc replace dev va root pfifo
	tc -n b qdisc replace dev vb root pfifo
	xfrm_setup "$algo" transport "$fam" || { t_fail "$tmpl v$fam: xfrm"; return; }
	case $algo in chacha) name='rfc7539esp(chacha20,poly1305)' ;; *) name='rfc4106(gcm(aes))' ;; esac
	drv=$(seqiv_driver "$name")
	inst="$tmpl($drv)"
	xfrm_flush
	if ! $CU add "$inst"; then
		t_fail "$tmpl v$fam: instantiate $inst via crypto_user"
		return
	fi
	awk -v d="$inst" '$1 == "driver" && $3 == d {f = 1} END {exit !f}' /proc/crypto ||
		{ t_fail "$tmpl v$fam: $inst in /proc/crypto"; return; }
	xfrm_setup "$algo" transport "$fam"
	tmpl="$tmpl $algo"

	a0=$(counter a tx_async); o0=$(tcp_ofo b); r0=$(counter b rx_async)
	if xfer a b "$ADDR_B" 8; then t_ok "$tmpl v$fam: 8 MiB intact through an async AEAD"
	else t_fail "$tmpl v$fam: 8 MiB intact through an async AEAD" "$XFER_WHY"; fi
	drops0=$(async_drops) rt0=$(tcp_retrans a) ds0=$(tcp_dsacked a)
	iperf_run a b "$ADDR_B" 5
	rt1=$(tcp_retrans a) ds1=$(tcp_dsacked a)
	a1=$(counter a tx_async); o1=$(tcp_ofo b); r1=$(counter b rx_async)
	t_diag "$tmpl v$fam: a: $(counters a | awk '$2 != 0' | tr '\n' ' ') $(xfrm_errors a | tr '\n' ' ')"
	t_diag "$tmpl v$fam: b: $(counters b | awk '$2 != 0' | tr '\n' ' ')"
	t_expect "$tmpl v$fam: encryptions completed asynchronously (tx_async +$((a1 - a0)))" $((a1 - a0)) -gt 1000
	t_expect "$tmpl v$fam: decryptions completed asynchronously (rx_async +$((r1 - r0)))" $((r1 - r0)) -gt 1000
	if [ -n "${ASYNC_CAP:-}" ]; then
		t_expect "$tmpl v$fam: RX paused at rx_async_max=$ASYNC_CAP and resumed (rx_async_throttled)" \
			"$(counter b rx_async_throttled)" -gt 0
	fi
	t_expect "$tmpl v$fam: no xfrm errors at the receiver" "$(xfrm_errors_total b)" -eq 0
	# a tail-loss probe is a timer, not a loss: when an ACK is late (async crypto
	# under emulation), TCP probes and the receiver reports it as a duplicate.
	# A probe that sends new data counts in TCPLossProbes but not in
	# TcpRetransSegs, so "none beyond the probes" can come out below zero.
	# A retransmission timeout on a late ACK is a timer too: the receiver
	# then reports the segment twice (DSACK) and TCP undoes the loss. Such
	# segments (TCPDSACKRecvSegs) were not lost either; a real loss also
	# shows as reordering at the receiver, asserted next.
	t_expect "$tmpl v$fam: zero retransmits but tail-loss probes and DSACK-proven spurious ones with async crypto (iperf3 5 s, $((${IPERF_BPS:-0} / 1000000)) Mbit/s, $IPERF_RETR in all, $((ds1 - ds0)) DSACKed)" \
		"$((${rt1:-999} - ${rt0:-0} - (${ds1:-0} - ${ds0:-0})))" -le 0
	t_expect "$tmpl v$fam: no segment arrived out of order (TCPOFOQueue +$((o1 - o0)))" \
		$((o1 - o0)) -eq 0
	if [ "${IPERF_RETR:-x}$((o1 - o0))" != 00 ]; then	# probes too: say why
		t_diag "$(printf '%s\n' "$tmpl v$fam: drop counters before: $drops0" \
			"$tmpl v$fam: drop counters after:  $(async_drops)" \
			"$(retrans_why a b | sed "s/^/$tmpl v$fam: /")")"
	fi

	xfrm_flush
	ns_cleanup
	# the SAs are gone once the xfrm GC ran; then the instance can go
	pcrypt_del "$inst"
}

# Without a qdisc the stock kernel reports -ENOMEM for a packet that went to
# async crypto (net/core/dev.c, __dev_queue_xmit(): validate_xmit_skb()
# returned NULL, rc is still -ENOMEM), TCP believes the send failed and the
# connection stalls, with or without this module. The module must say so.
noqueue_case() {
	local drv inst
	ns_setup tso-off
	xfrm_setup gcm128 transport 4
	drv=$(seqiv_driver 'rfc4106(gcm(aes))'); inst="pcrypt($drv)"; xfrm_flush
	$CU add "$inst" || { t_fail "noqueue: instantiate $inst"; return; }
	xfrm_setup gcm128 transport 4
	dmesg_clear
	XFER_TIMEOUT=10 xfer a b "$ADDR_B" 1
	t_expect "noqueue + async AEAD: counted (tx_async_noqueue)" "$(counter a tx_async_noqueue)" -gt 0
	t_check "noqueue + async AEAD: dmesg says to add a qdisc" \
		bash -c 'dmesg | grep -q "add a qdisc"'
	xfrm_flush; ns_cleanup
	pcrypt_del "$inst"
}

# A packet in asynchronous decryption that xfrm ends where the module cannot
# recognise it stays counted in flight (rx_steer.c). Here: GCM packets whose
# payload is ESP with an SPI nobody has, so xfrm resets their sec_path before
# it drops them. Ten of them at rx_async_max=8 throttle RX with nothing in
# flight to wake it; the watchdog must reset the count within a second or so.
watchdog_case() {
	local drv inst th0 mv0 max0 P=$KNOBS seq key
	ns_setup tso-off
	tc -n a qdisc replace dev va root pfifo
	tc -n b qdisc replace dev vb root pfifo
	xfrm_setup gcm128 transport 4
	drv=$(seqiv_driver 'rfc4106(gcm(aes))'); inst="pcrypt($drv)"; xfrm_flush
	$CU add "$inst" || { t_fail "watchdog: instantiate $inst"; return; }
	xfrm_setup gcm128 transport 4
	key=$(ip -n a xfrm state get src "$IP4_A" dst "$IP4_B" proto esp spi $SPI_AB |
		awk '$1 == "aead" {print $3}')
	max0=$(cat $P/rx_async_max)
	echo 8 > $P/rx_async_max
	th0=$(counter b rx_async_throttled)
	dmesg_clear
	for seq in 1 2 3 4 5 6 7 8 9 10; do
		nsx a $INJ gcm-nested va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB $seq $key esp 0x7777
	done
	sleep 0.5
	# fresh SAs: the injected packets moved b's replay window past a's numbers
	xfrm_setup gcm128 transport 4
	if XFER_TIMEOUT=30 xfer a b "$ADDR_B" 2; then t_ok "watchdog: traffic flows after 10 unrecognisable ends"
	else t_fail "watchdog: traffic flows after 10 unrecognisable ends" "$XFER_WHY"; fi
	t_expect "watchdog: RX was throttled by them (rx_async_throttled +$(( $(counter b rx_async_throttled) - th0 )))" \
		"$(counter b rx_async_throttled)" -gt "${th0:-missing}"
	t_check "watchdog: dmesg says the count was reset" bash -c 'dmesg | grep -q "count reset"'
	echo "$max0" > $P/rx_async_max

	# Below the cap such ends throttle nothing, but while counted in flight they
	# keep every home from moving. Three of them, then synchronous traffic
	# (pcrypt gone) with homes asked to move every 300 packets: they must move
	# again once the watchdog has reset the count (a second after the first
	# refused move).
	xfrm_setup gcm128 transport 4
	dmesg_clear
	for seq in 1 2 3; do
		nsx a $INJ gcm-nested va "$MAC_A" "$MAC_B" "$IP4_A" "$IP4_B" $SPI_AB $seq $key esp 0x7777
	done
	sleep 0.5
	xfrm_flush
	pcrypt_del "$inst" || t_fail "watchdog: delete $inst"
	xfrm_setup gcm128 transport 4
	echo 300 > $P/rx_rehome_every
	th0=$(counter b rx_async_throttled) mv0=$(counter b rx_rehomed)
	iperf_run a b "$ADDR_B" 4 || t_fail "watchdog: iperf3 after 3 unrecognisable ends" "$(head -c 600 "$IPERF_JSON")"
	echo 0 > $P/rx_rehome_every
	t_expect "watchdog: 3 unrecognisable ends throttled nothing (rx_async_throttled +$(( $(counter b rx_async_throttled) - th0 )))" \
		"$(counter b rx_async_throttled)" -eq "${th0:-missing}"
	t_expect "watchdog: homes move again after them (rx_rehomed +$(( $(counter b rx_rehomed) - mv0 )))" \
		"$(counter b rx_rehomed)" -gt "${mv0:-missing}"
	t_check "watchdog: dmesg says that count was reset" bash -c 'dmesg | grep -q "count reset"'
	xfrm_flush; ns_cleanup
}

if ! have_module; then
	t_skip "async crypto" "module not loaded"
else
	t_expect "async RX at the default netdev_max_backlog" \
		"$(sysctl -n net.core.netdev_max_backlog)" -eq 1000
	async_case pcrypt 4 gcm128
	async_case pcrypt 4 chacha
	async_case pcrypt 6 gcm128
	cap0=$(cat $KNOBS/rx_async_max)
	echo 8 > $KNOBS/rx_async_max
	ASYNC_CAP=8 async_case pcrypt 4 gcm128
	echo "$cap0" > $KNOBS/rx_async_max
	watchdog_case
	noqueue_case
fi
