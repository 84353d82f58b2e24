#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-profile.sh - runs INSIDE the VM for scripts/profile.sh (`make profile`), which
# boots it under bench/insn's plugin with profile=on.
#
# One TCP stream over veth (TSO off, GSO + GRO), per cell and family: clear (and
# clear_tso, the same with TSO on, if asked for), and ESP in transport mode (esp-null,
# AES-GCM-128, ChaCha20-Poly1305) under each kernel configuration in PROFILE_MODES
# (module: esp_swoffload.ko; offload: esp4/6_offload; stock). A window of each run,
# from 1 s after its start to 1 s before its end, is bracketed by two dump markers
# (insn-mark with bit 15; both timed from the start), so the plugin writes every
# kernel block's count at both; the host subtracts them and puts them on the
# functions of this guest's /proc/kallsyms, saved per mode. The markers read the
# receiver's TCP payload bytes first (see guest-bench.sh): bytes is the window's.
#
# Env (from the host): MOD (module path), MARK (insn-mark path), PROFILE_T (5),
#   PROFILE_FAMS ("4"), PROFILE_CELLS ("clear null gcm128 chacha"),
#   PROFILE_MODES ("module"), PROFILE_AB (module switches, e.g. "tx_recycle=0": every
#   ESP cell of the module runs once more with each set, for a before/after in one
#   boot).
# Output: /out/runs.tsv (mode fam cell tag0 tag1 bytes retrans tx_segments variant),
#   /out/kallsyms.<mode>, progress on stdout.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
T=${PROFILE_T:-5} FAMS=${PROFILE_FAMS:-4}
[ "$T" -ge 3 ] || { echo "PROFILE_T must be at least 3 (a 1 s margin on each side)"; exit 1; }
cd "$(dirname "$0")/../selftests" || exit 1
export T_RESULTS=/tmp/t_results T_TMP=/tmp/t_tmp
mkdir -p "$T_TMP"; : > "$T_RESULTS"
# shellcheck source=../selftests/lib.sh
. ./lib.sh
log() { echo "[$(date +%H:%M:%S)] $*"; }
# shellcheck source=guest-lib.sh
. ../bench/guest-lib.sh
# from the guest's memory: a first start from the host's directory can take seconds
cp "$MARK" /tmp/insn-mark && MARK=/tmp/insn-mark

load_simd_crypto
modprobe -a esp4 esp6 xfrm_user veth || exit 1
ns_setup tso-off || { log "FATAL: ns_setup"; exit 1; }
# full-sized GSO packets, at most 64 KB, whatever rate TCG gives (see guest-bench.sh)
for ns in a b; do nsx $ns sysctl -qw net.ipv4.tcp_min_tso_segs=45; done

set_mode() {
	unload_module >/dev/null 2>&1
	rmmod esp4_offload esp6_offload 2>/dev/null
	case $1 in
	module) insmod "$MOD" ;;
	offload) modprobe -a esp4_offload esp6_offload ;;
	stock) : ;;
	esac
}

printf 'mode\tfam\tcell\ttag0\ttag1\tbytes\tretrans\ttx_segments\tvariant\n' > /out/runs.tsv
i=0
for mode in ${PROFILE_MODES:-module}; do
	set_mode "$mode" || { log "FATAL: mode $mode"; exit 1; }
	variants=-
	[ "$mode" = module ] && variants="- ${PROFILE_AB:-}"
	for variant in $variants; do
	[ "$variant" = - ] || echo "${variant#*=}" > "$KNOBS/${variant%%=*}" ||
		{ log "FATAL: no switch ${variant%%=*}"; exit 1; }
	for fam in $FAMS; do
		dst=$IP4_B; [ "$fam" = 6 ] && dst=$IP6_B
		for cell in ${PROFILE_CELLS:-clear null gcm128 chacha}; do
			case $cell in
			clear*) { [ "$mode" != "${PROFILE_MODES%% *}" ] || [ "$variant" != - ]; } && continue ;;
			*) xfrm_setup "$cell" transport "$fam" ||
				{ log "FATAL: cell $cell: no SA"; exit 1; } ;;
			esac
			tso=off; [ "$cell" = clear_tso ] && tso=on
			nsx a ethtool -K "$DEV_A" tso $tso > /dev/null 2>&1
			i=$((i + 1))
			t0=$((0x8000 | (2 * i - 1))) t1=$((0x8000 | (2 * i)))
			seg0=$(counter a tx_segments 2>/dev/null || echo 0)
			_next_port
			nsx b timeout $((T + 60)) iperf3 -s -1 -p $_T_PORT > /dev/null 2>&1 &
			srv=$!
			wait_listen b $_T_PORT
			start=${EPOCHREALTIME/./}
			nsx a timeout $((T + 60)) iperf3 -c "$dst" -p $_T_PORT -t "$T" -J > "$T_TMP/p.json" &
			cli=$!
			sleep_until $((start + 1000000))
			b0=$("$MARK" $t0 b $_T_PORT)
			sleep_until $((start + (T - 1) * 1000000))
			b1=$("$MARK" $t1 b $_T_PORT)
			wait $cli
			wait $srv
			seg1=$(counter a tx_segments 2>/dev/null || echo 0)
			bytes=0
			[ -n "$b0" ] && [ -n "$b1" ] && bytes=$((b1 - b0))
			retr=$(jq -r '.end.sum_sent.retransmits' "$T_TMP/p.json")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$fam" "$cell" $t0 $t1 \
				"$bytes" "$retr" $((seg1 - seg0)) "$variant" >> /out/runs.tsv
			log "$mode${variant#-} v$fam $cell: $bytes bytes, retr $retr"
			case $cell in clear*) ;; *) xfrm_flush ;; esac
		done
	done
	[ "$variant" = - ] || echo 1 > "$KNOBS/${variant%%=*}"
	done
	cat /proc/kallsyms > /out/kallsyms.$mode
done
log "done"
