#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sample.sh - `make sample`: a function-level profile of the guest, sampled from the host.
#
# perf inside the guest cannot see this workload under TCG (README, "Where the time
# goes"). This boots one VM with a QEMU monitor socket, runs bench/guest-sample.sh (one
# iperf3 stream per cell over veth, TSO off, GSO + GRO, transport mode) and, from the
# host, samples every vCPU's RIP and stack top while each cell runs (scripts/sample.py,
# which stops the VM for each sample: a running TCG vCPU's RIP is stale).
# Prints per cell the guest's CPU-s/GB split into categories (cipher, copies, zeroing,
# checksums, MMIO, this module, xfrm/esp, the rest), the top leaf functions, those that
# cost most over clear TCP, and the likely callers of SAMPLE_CALLERS. The guest boots
# with tsc=reliable: under TCG it otherwise reads the clock from the HPET, MMIO that
# waits for QEMU's big lock, which every monitor command holds, so the sampler itself
# would make clock reads look expensive. (Without the sampler the two clocks gave the
# same throughput within the spread: README, "Where the time goes, by function".)
#
# Env: KV (default newest 6.1.x; KV=6.12)   SAMPLE_T (20 s per cell)   SAMPLE_FAM (4)
#      SAMPLE_CELLS ("clear null gcm128 chacha")   SAMPLE_HZ (50 rounds a second)
#      SAMPLE_STACK_EVERY (4: stacks in every 4th round; they cost two commands each)
#      SAMPLE_CALLERS ("memset_erms clear_page_erms copy_user_enhanced_fast_string")
#      VMRUN (scripts/vmrun)   SAMPLE_TIMEOUT (1800 s for the VM run)
# scripts/sample.sh --report bench/out/sample-<run> [SYMBOL...]   redo the report (no VM),
#      with the likely callers of SYMBOL... instead of SAMPLE_CALLERS
# Raw data: bench/out/sample-<date>-<kver>/ (samples.CELL, kallsyms, cells.tsv,
# record.log with the rounds taken per cell, report.txt, guest.log).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
VMRUN=${VMRUN:-$ROOT/scripts/vmrun}
CALLERS=${SAMPLE_CALLERS:-memset_erms clear_page_erms copy_user_enhanced_fast_string}
say() { echo "sample: $*" >&2; }
# shellcheck source=hostlib.sh
. "$ROOT/scripts/hostlib.sh"

if [ "${1:-}" = --report ]; then
	DIR=$(readlink -f "${2:?usage: $0 --report DIR [SYMBOL...]}")
	shift 2
	[ $# -gt 0 ] && CALLERS=$*
	# shellcheck disable=SC2086
	exec python3 "$ROOT/scripts/sample.py" report "$DIR" $CALLERS
fi

prepare_vm_run sample
export MOD=$MODULE SAMPLE_T=${SAMPLE_T:-20} SAMPLE_FAM=${SAMPLE_FAM:-4} \
	SAMPLE_CELLS=${SAMPLE_CELLS:-clear null gcm128 chacha}
SOCKDIR=$(mktemp -d)	# a unix socket path must be short
trap 'rm -rf "$SOCKDIR"' EXIT
say "kernel $KV, ${SAMPLE_T} s per cell ($SAMPLE_CELLS); raw data in $OUT"
# shellcheck disable=SC2086
python3 "$ROOT/scripts/sample.py" record "$SOCKDIR/mon" "$OUT" $SAMPLE_CELLS \
	> "$OUT/record.log" 2>&1 &
REC=$!
KV=$KV TIMEOUT=${SAMPLE_TIMEOUT:-1800} VM_ENV="MOD SAMPLE_T SAMPLE_FAM SAMPLE_CELLS" VM_APPEND=tsc=reliable \
	QEMU_EXTRA="-monitor unix:$SOCKDIR/mon,server=on,wait=off" \
	"$VMRUN" "$ROOT/bench/guest-sample.sh" "$OUT" >"$OUT/vmrun.log" 2>&1
rc=$?
# the recorder ends with the last cell; after a failed boot it would wait forever
for _ in 1 2 3 4 5; do kill -0 $REC 2>/dev/null || break; sleep 1; done
kill $REC 2>/dev/null
wait $REC
if [ $rc -ne 0 ]; then
	# everything that says where it stopped: the guest script's output, the
	# recorder's log (did it connect, which cell, any failed round) and the console
	say "VM run failed (status $rc); see $OUT/vmrun.log"
	for f in vmrun.log guest.log record.log console.log; do
		echo "---- $f (last 10 lines)" >&2
		tail -10 "$OUT/$f" >&2 2>/dev/null
	done
	ls "$OUT" | tr '\n' ' ' >&2; echo >&2
fi
[ -s "$OUT/cells.tsv" ] || { say "no results in $OUT"; exit 1; }
# shellcheck disable=SC2086
python3 "$ROOT/scripts/sample.py" report "$OUT" $CALLERS | tee "$OUT/report.txt"
