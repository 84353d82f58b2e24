#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-sample.sh - runs INSIDE the VM for scripts/sample.sh (`make sample`).
#
# One iperf3 stream over veth (TSO off, GSO + GRO) per cell, transport mode, with
# esp_swoffload.ko loaded; the host samples the vCPUs while /out/start.CELL exists and
# /out/stop.CELL does not (scripts/sample.py). Writes /out/kallsyms (to resolve the
# samples) and /out/cells.tsv (cell, bytes received, bits/s, the guest's busy jiffies
# during the run, from /proc/stat, at 100 Hz).
#
# Env (from the host): MOD (module path), SAMPLE_T (20 s), SAMPLE_CELLS
#   ("clear null gcm128 chacha"), SAMPLE_FAM (4).
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
T=${SAMPLE_T:-20} FAM=${SAMPLE_FAM:-4}
cd "$(dirname "$0")/../selftests" || exit 1
export T_RESULTS=/tmp/t_results T_TMP=/tmp/t_tmp
mkdir -p "$T_TMP"; : > "$T_RESULTS"
# shellcheck source=../selftests/lib.sh
. ./lib.sh
log() { echo "[$(date +%H:%M:%S)] $*"; }

load_simd_crypto
modprobe -a esp4 esp6 xfrm_user veth || exit 1
insmod "$MOD" || { log "FATAL: insmod $MOD"; exit 1; }
ns_setup tso-off || { log "FATAL: ns_setup"; exit 1; }
log "module loaded, namespaces up"	# the host's log of a hung run shows how far it got
cat /proc/kallsyms > /out/kallsyms
dst=$IP4_B
[ "$FAM" = 6 ] && dst=$IP6_B
printf 'cell\tbytes\tbps\tbusy_jiffies\n' > /out/cells.tsv
for cell in ${SAMPLE_CELLS:-clear null gcm128 chacha}; do
	[ "$cell" != clear ] && xfrm_setup "$cell" transport "$FAM"
	log "v$FAM $cell: sampling for $T s"
	touch "/out/start.$cell"
	b0=$(busy_jiffies)
	iperf_run a b "$dst" "$T" || log "iperf3 failed: $cell"
	b1=$(busy_jiffies)
	touch "/out/stop.$cell"
	printf '%s\t%s\t%s\t%s\n' "$cell" "$(jq -r '.end.sum_received.bytes' "$IPERF_JSON")" \
		"$IPERF_BPS" $((b1 - b0)) >> /out/cells.tsv
	log "v$FAM $cell: $((IPERF_BPS / 1000000)) Mbit/s, retr $IPERF_RETR"
	[ "$cell" != clear ] && xfrm_flush
done
log "done"
