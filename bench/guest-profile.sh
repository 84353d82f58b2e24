#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-profile.sh - runs INSIDE the VM for scripts/profile.sh (`make profile`).
#
# Where the CPU goes, per GB, for one TCP stream over veth (TSO off, GSO + GRO): clear,
# esp-null, rfc4106(gcm(aes)) 128 and rfc7539esp(chacha20,poly1305) in transport mode
# through esp_swoffload.ko loaded with stage_timing=1. Per iperf3 run it records the
# guest's busy jiffies (/proc/stat) and the module's ns_* stage counters of both netns,
# so the host can split CPU-s/GB into the module's stages and the rest of the kernel.
#
# Two checks of the instrument itself:
#   - a gcm run with stage_timing=0 per repetition (what the timing costs);
#   - an idle soaker (SCHED_IDLE dd on each vCPU) during one run of each cell, against
#     its rate on an idle VM: how much of each vCPU the stream really leaves free. perf
#     under TCG puts nearly every sample of this workload in the idle loop; the soaker
#     shows whether the vCPUs were in fact busy.
#
# Env (from the host): MOD (module path), PROFILE_T (5), PROFILE_REPS (3),
#   PROFILE_FAMS ("4"), PROFILE_CELLS ("clear null gcm128 chacha"), PROFILE_AB (a
#   module parameter, e.g. tx_sg: every ESP cell then also runs with it set to N,
#   alternating with Y, for a before/after in one boot), PROFILE_SOAK (1; 0 skips the
#   soaker). Output: /out/runs.tsv, /out/soak.tsv, progress on stdout.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
T=${PROFILE_T:-5} REPS=${PROFILE_REPS:-3} FAMS=${PROFILE_FAMS:-4}
cd "$(dirname "$0")/../selftests" || exit 1
export T_RESULTS=/tmp/t_results T_TMP=/tmp/t_tmp
mkdir -p "$T_TMP"; : > "$T_RESULTS"
# shellcheck source=../selftests/lib.sh
. ./lib.sh
log() { echo "[$(date +%H:%M:%S)] $*"; }

load_simd_crypto
modprobe -a esp4 esp6 xfrm_user veth || exit 1
insmod "$MOD" && echo 1 > "$KNOBS/stage_timing" || { log "FATAL: insmod $MOD"; exit 1; }
ns_setup tso-off || { log "FATAL: ns_setup"; exit 1; }
P=$KNOBS/stage_timing
STAGES="ns_tx_segment ns_tx_xmit ns_rx_gro ns_rx_input"

# stage counters summed over both netns (data one way, ACKs the other)
stages() {
	local s
	for s in $STAGES; do echo $(( $(counter a $s) + $(counter b $s) )); done | paste -sd' '
}

# SA homes moved in both netns (the data SA's in b, the ACK SA's in a)
rehomed() { echo $(( $(counter a rx_rehomed || echo 0) + $(counter b rx_rehomed || echo 0) )); }

# one iperf3 run; prints the tab-separated row for runs.tsv
measure() { # fam cfg rep timing
	local dst=$IP4_B b0 b1 s0 s1 bytes
	[ "$1" = 6 ] && dst=$IP6_B
	local g0 g1 st0 st1 mv0 mv1 share=
	b0=$(busy_jiffies); s0=$(stages)
	g0=$(counter b rx_gro_packets) st0=$(counter b rx_steered) mv0=$(rehomed)
	iperf_run a b "$dst" "$T" || { log "iperf3 failed: $*"; return 1; }
	b1=$(busy_jiffies); s1=$(stages)
	g1=$(counter b rx_gro_packets) st1=$(counter b rx_steered) mv1=$(rehomed)
	[ -n "$g1" ] && [ "$((g1 - g0))" -gt 0 ] &&
		share=", steered $(( (st1 - st0) * 100 / (g1 - g0) ))%, rehomed $((${mv1:-0} - ${mv0:-0}))"
	bytes=$(jq -r '.end.sum_received.bytes' "$IPERF_JSON")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
		"$IPERF_BPS" "$bytes" $((b1 - b0)) "$IPERF_RETR" "$s0" "$s1" >> /out/runs.tsv
	log "v$1 $2 rep $3 timing=$4: $((IPERF_BPS / 1000000)) Mbit/s, retr $IPERF_RETR$share"
}

printf 'fam\tcell\trep\tvariant\tbps\tbytes\tbusy_jiffies\tretrans\tstages0\tstages1\n' > /out/runs.tsv
echo "hz 100" > /out/meta
echo "stages $STAGES" >> /out/meta
CELLS=${PROFILE_CELLS:-clear null gcm128 chacha}
AB=${PROFILE_AB:-}
[ -z "$AB" ] || [ -w $KNOBS/"$AB" ] ||
	{ log "FATAL: no module parameter $AB"; exit 1; }
# run CELL under VARIANT ("-", "stage_timing=0" or "<param>=N|Y")
run_variant() { # fam cell rep variant
	local v=$4
	[ "$v" != - ] && echo "${v#*=}" > $KNOBS/"${v%=*}"
	[ "$2" != clear ] && xfrm_setup "$2" transport "$1"
	measure "$1" "$2" "$3" "$v"
	[ "$2" != clear ] && xfrm_flush
	[ "$v" != - ] && echo "$(cat /tmp/param.saved."${v%=*}")" > $KNOBS/"${v%=*}"
}
for p in stage_timing $AB; do cat $KNOBS/$p > /tmp/param.saved.$p; done
for fam in $FAMS; do
	for rep in $(seq "$REPS"); do
		for cell in $CELLS; do
			if [ -n "$AB" ] && [ "$cell" != clear ]; then
				# alternate which goes first, so drift hits both alike
				if [ $((rep % 2)) = 1 ]; then o="N Y"; else o="Y N"; fi
				for v in $o; do run_variant "$fam" "$cell" "$rep" "$AB=$v"; done
			else
				run_variant "$fam" "$cell" "$rep" -
			fi
		done
		[ -z "$AB" ] && case " $CELLS " in *" gcm128 "*)
			run_variant "$fam" gcm128 "$rep" stage_timing=0 ;; esac
	done
done

# ---- idle soaker: bytes a SCHED_IDLE dd moves per vCPU in SECS, alone and under a stream
soak() { # secs -> /tmp/soak.<cpu>
	local c
	for c in $(seq 0 $(($(nproc) - 1))); do
		( taskset -c "$c" chrt -i 0 timeout -s INT "$1" dd if=/dev/zero of=/dev/null bs=64k 2>&1 |
			awk '/bytes/ {print $1}' > /tmp/soak.$c ) &
	done
}
soak_read() { cat /tmp/soak.* 2>/dev/null | paste -sd' '; }
[ "${PROFILE_SOAK:-1}" = 1 ] || { log "done"; exit 0; }
printf 'cell\tsecs\tbytes_per_cpu\n' > /out/soak.tsv
S=$((T + 1))
soak $S; sleep $((S + 2)); printf 'idle\t%s\t%s\n' $S "$(soak_read)" >> /out/soak.tsv
for cell in $CELLS; do
	[ "$cell" != clear ] && xfrm_setup "$cell" transport 4
	rm -f /tmp/soak.*
	soak $S; iperf_run a b "$IP4_B" "$T"; sleep 3
	printf '%s\t%s\t%s\n' "$cell" $S "$(soak_read)" >> /out/soak.tsv
	log "soaker under $cell: $(soak_read) bytes ($((IPERF_BPS / 1000000)) Mbit/s)"
	[ "$cell" != clear ] && xfrm_flush
done
soak $S; sleep $((S + 2)); printf 'idle\t%s\t%s\n' $S "$(soak_read)" >> /out/soak.tsv
log "done"
