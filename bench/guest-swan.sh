#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-swan.sh - runs INSIDE the VM for `make demo-swan` (scripts/demo.sh --swan):
# the demo with SAs negotiated by strongSwan instead of set by hand. Two charon
# instances (selftests/swan.sh: one per netns, IKEv2, PSK) bring up an IPv4
# transport-mode child SA with aes128gcm16 and one with chacha20poly1305; iperf3
# measures one TCP stream over each, first on the stock kernel ESP path, then with
# esp_swoffload.ko loaded (SAs are negotiated afresh, so they pick up the module).
#
# Input:  /out/config.sh: T (iperf3 seconds), REPS, MODULE (path of the .ko or empty)
# Output: /out/swan.tsv, one line per run:
#   phase alg rep bits_per_second retransmits tx_segments+ rx_gro_packets+ spi_a->b
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
. /out/config.sh
HERE=$(cd "$(dirname "$0")" && pwd)
export T_RESULTS=/tmp/swan.results T_TMP=/tmp/swan.tmp
mkdir -p "$T_TMP"; : > "$T_RESULTS"
. "$HERE/../selftests/lib.sh"
. "$HERE/../selftests/swan.sh"
TSV=/out/swan.tsv
: > "$TSV"

log() { echo "[$(date +%H:%M:%S)] $*"; }

log "guest kernel $(uname -r), $(nproc) vCPU, T=${T}s REPS=$REPS"
load_simd_crypto
modprobe -a esp4 esp6 xfrm_user veth || { log "FATAL: modprobe esp4 esp6 xfrm_user veth"; exit 1; }
[ -x "$CHARON" ] && command -v swanctl > /dev/null ||
	{ log "FATAL: strongswan-charon/strongswan-swanctl not installed"; exit 1; }
ns_setup tso-off || { log "FATAL: netns setup"; exit 1; }

# swan_run PHASE ALG REP: one child SA up, iperf3 over it, child down
swan_run() {
	local phase=$1 alg=$2 rep=$3 spi tx0 rx0 tx1 rx1
	if ! swc a --initiate --ike v4 --child "v4-tr-$alg" --timeout 40 > "$T_TMP/init.out"; then
		log "$phase $alg: child SA did not come up: $(tail -3 "$T_TMP/init.out")"
		return 1
	fi
	spi=$(out_spis a "$IP4_A" "$IP4_B")
	tx0=$(counter a tx_segments || echo 0) rx0=$(counter b rx_gro_packets || echo 0)
	if ! iperf_run a b "$IP4_B" "$T"; then
		log "$phase $alg: iperf3 failed"
		swc a --terminate --child "v4-tr-$alg" --timeout 20 > /dev/null
		return 1
	fi
	tx1=$(counter a tx_segments || echo 0) rx1=$(counter b rx_gro_packets || echo 0)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$phase" "$alg" "$rep" "$IPERF_BPS" \
		"$IPERF_RETR" $((tx1 - tx0)) $((rx1 - rx0)) "${spi% }" >> "$TSV"
	log "$phase $alg rep$rep: $((IPERF_BPS / 1000000)) Mbit/s, retr $IPERF_RETR, SA ${spi% }," \
		"tx_segments+$((tx1 - tx0)) rx_gro_packets+$((rx1 - rx0))"
	swc a --terminate --child "v4-tr-$alg" --timeout 20 > /dev/null
}

for phase in stock module; do
	if [ $phase = module ]; then
		[ -n "$MODULE" ] || { log "no module: skipping the module phase"; break; }
		insmod "$MODULE" || { log "FATAL: insmod $MODULE"; exit 1; }
	fi
	sw_start a && sw_start b || { log "FATAL: charon did not start"; exit 1; }
	for rep in $(seq "$REPS"); do
		for alg in gcm chacha; do
			swan_run $phase $alg "$rep"
		done
	done
	sw_stop
done
log "done"
