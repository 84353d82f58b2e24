#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-debug.sh - make check-debug: the selftests on a kernel with KASAN,
# kmemleak, lockdep and UBSAN (scripts/debug-kernel.sh builds it first, about 35
# minutes on 2 cores; later runs reuse it). One VM runs selftests/run.sh; its per-file kernel
# log check catches what the checkers report, and at the end kmemleak is asked for
# leaks whose allocation went through the module. The kernel runs several times
# slower: T_SLOW_KERNEL=1 turns the one control that needs two CPUs to race (25-order,
# tx_order=0) into a diagnostic.
# Output: TAP, last line "N passed, N failed". Logs: build/check-debug/.
# Env: SELFTESTS (default: all but 80 90 99), DEBUG_VM_TIMEOUT (7200 s), MEM (4G).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/build/debug-kernel
LOG=$ROOT/build/check-debug
rm -rf "$LOG"; mkdir -p "$LOG"
"$ROOT/scripts/debug-kernel.sh" || { echo "0 passed, 1 failed"; exit 1; }
rel=$(cat "$D/release")

# the module, against the debug tree
if ! ko=$(KDIR=$D/src BUILD_DIR=$ROOT/build/debug-module "$ROOT/scripts/build.sh" \
		2> "$LOG/build.log" | tail -1) || [ ! -r "$ko" ]; then
	tail -20 "$LOG/build.log"
	echo "not ok 1 - build against $rel"
	echo "0 passed, 1 failed"
	exit 1
fi

# Known reports of the kernel's own, left out of the kernel log checks (a report
# that names the module's code never is; selftests/lib.sh kernel_reports):
# - 6.1.192's padata_reorder() holds a padata_list lock (squeue->serial.lock) while
#   padata_find_next() takes another of the same lock class (reorder->lock): lockdep
#   says "possible recursive locking" once pcrypt (60-async) runs. One order, two
#   locks: no deadlock.
ALLOW=${T_KERNEL_ALLOW:-padata_do_serial}

tests=${SELFTESTS:-$(cd "$ROOT/selftests" && ls [0-9][0-9]-*.sh | cut -c1-2 |
	grep -vxE '80|90|99' | tr '\n' ' ')}
echo "# check-debug: $rel, selftests $tests"
KV=$rel VMLINUZ=$D/vmlinuz MEM=${MEM:-4G} TIMEOUT=${DEBUG_VM_TIMEOUT:-7200} \
	ESP_MODULE=$ko SELFTESTS="$tests" T_SLOW_KERNEL=1 \
	T_KERNEL_ALLOW="$ALLOW" VM_ENV="SELFTESTS T_SLOW_KERNEL T_KERNEL_ALLOW" VMRUN_QUIET=1 \
	"$ROOT/scripts/vmrun" "$ROOT/selftests/run.sh" "$LOG" > "$LOG/vmrun.out" 2>&1
rc=$?
grep -E '^(not )?ok |^# ' "$LOG/guest.log"
pass=$(grep -c '^ok ' "$LOG/guest.log")
fail=$(grep -c '^not ok ' "$LOG/guest.log")
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "not ok - the VM exited $rc ($(tail -3 "$LOG/vmrun.out" | tr '\n' ' '))"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
