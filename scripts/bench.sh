#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - the full benchmark (`make bench`).
#
# First the module's own crypto code as host programs (bench/native: cycles per byte
# next to OpenSSL). Then ONE VM (2 vCPU) under bench/insn's instruction-count plugin
# measures, for IPv4 and IPv6, a single TCP stream (iperf3) over veth between two
# network namespaces:
#   clear, TSO on / clear, TSO off + GSO + GRO (the fair ceiling for ESP)
#   esp-null, rfc4106(gcm(aes)) 128, rfc7539esp(chacha20,poly1305), ESP transport mode,
#   each under: stock esp4/esp6, stock + esp4_offload/esp6_offload, and esp_swoffload.ko
# The measure is guest instructions per payload byte (scripts/insn.py's cost model);
# Mbit/s, CPU-seconds per GB (/proc/stat) and TCP retransmits come with it.
# Medians over the repetitions (scripts/bench_analyze.py).
# Output: a table and the goal ratios on stdout, bench/results.json, bench/results.png;
# raw data (iperf3 JSON, plugin snapshots, guest log) in bench/out/<date>-<kver>/.
#
# Env: KV        kernel (default: newest 6.1.x under /lib/modules; a prefix such as
#                KV=6.12 picks the newest match)
#      BENCH_T   seconds per iperf3 run (5)       BENCH_REPS  repetitions (3)
#      BENCH_FAMS "4 6" (default) or "4"          BENCH_NATIVE 1 (default) or 0
#      VMRUN     VM runner (default scripts/vmrun)
#      BENCH_RESULTS where results.json and results.png go (default bench/)
#      BENCH_PHASES  modes and their cells, e.g. "stock:clear_tso module:null" (default:
#                    all; for looking into one cell)
#
# scripts/bench.sh --analyze bench/out/<run>   redo the table, JSON and PNG from a run's
#                                              raw data (no VM)
# scripts/bench.sh --selftest                  the analysis of a made-up run, checked
#                                              (no VM; make check runs it)
# Exit status: 0 when the VM run completed (goal MISSes do not fail it), 1 otherwise.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = --selftest ]; then
	exec python3 "$ROOT/scripts/bench_analyze.py" --selftest
fi

ANALYZE=
if [ "${1:-}" = --analyze ]; then
	ANALYZE=$(readlink -f "${2:?usage: $0 --analyze DIR}")
fi
cd "$ROOT" || exit 1
T=${BENCH_T:-5}
REPS=${BENCH_REPS:-3}
FAMS=${BENCH_FAMS:-4 6}
NATIVE=${BENCH_NATIVE:-1}
VMRUN=${VMRUN:-$ROOT/scripts/vmrun}
RESULTS=$(mkdir -p "${BENCH_RESULTS:-$ROOT/bench}" && cd "${BENCH_RESULTS:-$ROOT/bench}" && pwd) || exit 1
say() { echo "bench: $*" >&2; }

# ------------------------------------------------------------------------ kernel
# shellcheck source=hostlib.sh
. "$ROOT/scripts/hostlib.sh"

if [ -n "$ANALYZE" ]; then
	# shellcheck disable=SC1091
	. "$ANALYZE/config.sh" || exit 1
	OUT=$ANALYZE VRC=$(cat "$OUT/vmrc" 2>/dev/null || echo 0)
else
# ------------------------------------------------------------------------ deps
ensure_deps "qemu-system-x86_64 busybox iperf3 ethtool ip python3 gnuplot cpio modprobe" \
	"qemu-system-x86 busybox-static iperf3 ethtool iproute2 kmod python3 gnuplot-nox cpio xz-utils make gcc libssl-dev" ||
	exit 1
KV=$(pick_kv "${KV:-}")
[ -n "$KV" ] || { say "no kernel found under /lib/modules"; exit 1; }
[ -x "$VMRUN" ] || { say "no VM runner at $VMRUN"; exit 1; }

OUT=$ROOT/bench/out/$(date +%Y%m%d-%H%M%S)-$KV
mkdir -p "$OUT"

# ------------------------------------------------------------------------ module
MODULE=
MODNOTE=
if ls "$ROOT"/*.c >/dev/null 2>&1; then
	say "building esp_swoffload.ko for $KV (log: $OUT/build.log)"
	if [ -x scripts/build.sh ]; then
		# a private build dir: no race with a concurrent `make check` building the same kernel
		MODULE=$(BUILD_DIR="$OUT/build" scripts/build.sh "$KV" 2>"$OUT/build.log" | tail -1)
	else
		make KVER="$KV" >"$OUT/build.log" 2>&1 && MODULE=$ROOT/esp_swoffload.ko
	fi
	if [ -n "$MODULE" ] && [ -r "$MODULE" ]; then
		vm=$(modinfo -F vermagic "$MODULE" 2>/dev/null | awk '{print $1}')
		if [ "$vm" != "$KV" ]; then
			MODNOTE="$MODULE is for '$vm', not $KV"; MODULE=
		fi
	else
		MODNOTE="module build failed (see $OUT/build.log)"; MODULE=
		tail -5 "$OUT/build.log" | sed 's/^/    /' >&2
	fi
else
	MODNOTE="no module sources yet"
fi
[ -n "$MODNOTE" ] && say "WARNING: $MODNOTE: the esp_swoffload cells will be skipped"

# ------------------------------------------------------------------------ instruments
say "building the instruction-count plugin (bench/insn)"
make -s -C bench/insn OUT="$OUT/insn-bin" >"$OUT/insn-build.log" 2>&1 ||
	{ tail -5 "$OUT/insn-build.log" >&2; say "plugin build failed"; exit 1; }
if [ "$NATIVE" = 1 ]; then
	say "native crypto bench on the host CPU (bench/native; log: $OUT/native.log)"
	make -s -C bench/native bench OUT="$OUT/native-bin" >"$OUT/native.log" 2>&1 ||
		say "WARNING: the native bench failed (see $OUT/native.log)"
fi

# ------------------------------------------------------------------------ VM run
PHASES=${BENCH_PHASES:-"stock:clear_tso,clear_gso,null,gcm,chacha offload:null,gcm,chacha module:null,gcm,chacha"}
cat >"$OUT/config.sh" <<EOF
T=$T
REPS=$REPS
FAMS="$FAMS"
PHASES="$PHASES"
MODULE="$MODULE"
TCRYPT=0
INSN_MARK="$OUT/insn-bin/insn-mark"
KV="$KV"
MODNOTE="$MODNOTE"
EOF
NF=$(echo $FAMS | wc -w)
# runs per repetition: clear_tso and each module cell three times (bench/guest-bench.sh,
# TSO_RUNS and MODULE_RUNS), the others once
NCELLS=0
for ph in $PHASES; do
	for c in $(echo "${ph#*:}" | tr ',' ' '); do
		case ${ph%%:*}:$c in *:clear_tso | module:*) n=3 ;; *) n=1 ;; esac
		NCELLS=$((NCELLS + n))
	done
done
NRUNS=$((NCELLS * NF * REPS))
TMO=$((300 + NRUNS * (T + 60)))  # hang guard only; generous for a busy host
say "kernel $KV, $NRUNS iperf3 runs of ${T}s ($REPS reps); raw data in $OUT"
say "expect roughly $(( (60 + NRUNS * (T + 8)) / 60 )) min (more on a busy host)"
START=$(date +%s)
KV=$KV SMP=2 TIMEOUT=$TMO QEMU_EXTRA="${QEMU_EXTRA:-} -plugin $OUT/insn-bin/insn-plugin.so,out=$OUT/insn.txt" \
	"$VMRUN" "$ROOT/bench/guest-bench.sh" "$OUT" >"$OUT/vmrun.log" 2>&1 &
VPID=$!
# Live progress: the guest writes its log into OUT over 9p.
tail -n +1 -F --pid=$VPID "$OUT/guest.log" 2>/dev/null | sed -u 's/^/  guest /' >&2 &
TPID=$!
wait $VPID
VRC=$?
sleep 1; kill $TPID 2>/dev/null; wait $TPID 2>/dev/null
echo $VRC >"$OUT/vmrc"
say "VM finished in $(( $(date +%s) - START )) s, status $VRC"
if [ $VRC -ne 0 ]; then
	say "the VM run failed (status $VRC); tail of $OUT/vmrun.log:"
	tail -15 "$OUT/vmrun.log" >&2
fi
fi # not --analyze
[ -s "$OUT/runs.tsv" ] || { say "no results in $OUT"; exit 1; }

# ------------------------------------------------------------------------ analysis
KV=$KV T=$T REPS=$REPS MODULE=${MODULE:-} MODNOTE=$MODNOTE VRC=$VRC RAW_DIR=${OUT#"$ROOT"/} \
	python3 "$ROOT/scripts/bench_analyze.py" "$OUT" "$RESULTS" || { say "analysis failed"; exit 1; }

if command -v gnuplot >/dev/null 2>&1; then
	gnuplot -e "dir='$OUT'; fams='$FAMS'; out='$RESULTS/results.png'; ttl='esp_swoffload bench, $KV, iperf3 -t $T, $REPS rep(s), medians'" \
		bench/plot.gp 2>"$OUT/gnuplot.log" && say "wrote $RESULTS/results.json, $RESULTS/results.png" ||
		{ say "gnuplot failed:"; cat "$OUT/gnuplot.log" >&2; }
else
	say "gnuplot missing: no PNG"
fi
[ $VRC -eq 0 ] || exit 1
exit 0
