#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak.sh - `make soak`: install what is missing, build esp_swoffload.ko, boot one VM and
# run selftests/99-soak.sh for SOAK_MIN minutes (rounds of iperf3 over every algorithm,
# mode and family, with forged-packet floods, pcrypt async crypto and module reloads in
# between; see that file). Prints TAP and ends with "N passed, N failed" like make check.
#
# Env: KV        kernel (default: newest 6.1.x; KV=6.12 picks 6.12.x)
#      SOAK_MIN  minutes (10)     SOAK_STEP seconds per iperf3 round (20)
#      SOAK_FLOOD forged packets per flood round (2000)
#      VMRUN     VM runner (default scripts/vmrun)
# Raw output: bench/out/soak-<date>-<kver>/ (guest.log, console.log).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
VMRUN=${VMRUN:-$ROOT/scripts/vmrun}
export SOAK_MIN=${SOAK_MIN:-10} SOAK_STEP=${SOAK_STEP:-20} SOAK_FLOOD=${SOAK_FLOOD:-2000}
say() { echo "soak: $*" >&2; }
# shellcheck source=hostlib.sh
. "$ROOT/scripts/hostlib.sh"

prepare_vm_run soak

say "$SOAK_MIN minutes on $KV; output in $OUT"
export SELFTESTS=99 T_FILE_TIMEOUT=$((SOAK_MIN * 60 + 600))
TIMEOUT=$((SOAK_MIN * 60 + 900)) KV=$KV \
	VM_ENV="SELFTESTS T_FILE_TIMEOUT SOAK_MIN SOAK_STEP SOAK_FLOOD" \
	"$VMRUN" "$ROOT/selftests/run.sh" "$OUT" "$MODULE"
rc=$?
pass=$(grep '^ok' "$OUT/guest.log" | grep -vc '# SKIP') fail=$(grep -c '^not ok' "$OUT/guest.log")
[ $rc -eq 0 ] || { [ "$fail" -gt 0 ] || fail=1; say "VM exit status $rc"; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
