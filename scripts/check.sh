#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check.sh - the project's test suite (make check):
#   install-deps; build for the newest 6.1.x and 6.12.x kernel; lint (one test);
#   per kernel one VM running selftests/run.sh with that kernel's module; make bench's
#   analysis and the instruction counter's arithmetic on made-up runs, the
#   counter's calibration in a VM (bench/insn), and the module's crypto code as host
#   programs against OpenSSL (bench/native);
#   the two-VM wire-compatibility test (module vs stock) per kernel in CHECK_PAIR_KERNELS.
# Output: TAP-style "ok N - <kver> <test>" / "not ok N - ...", "# " diagnostics, and
# last line exactly "N passed, N failed". Exit status 1 if anything failed.
# Logs: build/check/ (per VM: guest.log, console.log, dmesg.log).
# Env: CHECK_KERNELS ("6.1 6.12"), CHECK_PAIR_KERNELS ("6.1 6.12"; pairs after the first
#      are skipped once CHECK_BUDGET seconds (2100) have elapsed), CHECK_LINT (1),
#      CHECK_DEPS (1), CHECK_INSN (1: calibrate the instruction counter), CHECK_VERBOSE (1: pass every
#      "# " line from the guests through),
#      CHECK_VM_TIMEOUT (2400 s per selftests VM), CHECK_PAIR_TIMEOUT (600 s).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
LOG=$ROOT/build/check
rm -rf "$LOG"; mkdir -p "$LOG"
N=0 PASS=0 FAIL=0 SKIP=0
T0=$(date +%s)

tap() { # tap ok|fail|skip NAME [DIAG...]
	local st=$1 name=$2; shift 2
	N=$((N + 1))
	case $st in
	ok) PASS=$((PASS + 1)); echo "ok $N - $name" ;;
	skip) SKIP=$((SKIP + 1)); echo "ok $N - $name # SKIP $*"; return ;;
	*) FAIL=$((FAIL + 1)); echo "not ok $N - $name" ;;
	esac
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
	return 0
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
elapsed() { echo $(( $(date +%s) - T0 )); }

# relay_tap PREFIX: re-number the guest's TAP lines read on stdin
relay_tap() {
	local prefix=$1 line last=
	GUEST_TESTS=0 GUEST_FAILS=0
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*" - "*"# SKIP"*)
			line=${line#ok * - }
			tap skip "$prefix ${line%% # SKIP*}" "${line#* # SKIP }"; GUEST_TESTS=$((GUEST_TESTS + 1)); last=ok ;;
		"ok "[0-9]*" - "*)
			tap ok "$prefix ${line#ok * - }"; GUEST_TESTS=$((GUEST_TESTS + 1)); last=ok ;;
		"not ok "[0-9]*" - "*)
			tap fail "$prefix ${line#not ok * - }"; GUEST_TESTS=$((GUEST_TESTS + 1))
			GUEST_FAILS=$((GUEST_FAILS + 1)); last=fail ;;
		"# "*)
			if [ "$last" = fail ] || [ "${CHECK_VERBOSE:-1}" = 1 ]; then echo "$line"; fi ;;
		*) [ "$last" = fail ] && echo "# $line" ;;
		esac
	done
}

# shellcheck source=kver.sh
. "$ROOT/scripts/kver.sh"

# ---- dependencies
if [ "${CHECK_DEPS:-1}" = 1 ]; then
	if ! "$ROOT/scripts/install-deps.sh" > "$LOG/deps.log" 2>&1; then
		tap fail "host install-deps" "$(tail -15 "$LOG/deps.log")"
	fi
	diag "$(tail -1 "$LOG/deps.log")"
fi

# ---- builds
declare -A KO
KVERS=()
for want in ${CHECK_KERNELS:-6.1 6.12}; do
	k=$(kver_pick "$want" boot)
	if [ -z "$k" ]; then tap fail "$want kernel installed" "no /boot/vmlinuz + headers for $want"; continue; fi
	KVERS+=("$k")
	if ko=$("$ROOT/scripts/build.sh" "$k" 2> "$LOG/build-$k.log" | tail -1) && [ -r "$ko" ]; then
		KO[$k]=$ko
		tap ok "$k build"
	else
		tap fail "$k build" "$(grep -E 'error|warning' "$LOG/build-$k.log" | head -20)" "$(tail -5 "$LOG/build-$k.log")"
	fi
done
diag "builds done at $(elapsed) s"

# ---- lint (one test)
if [ "${CHECK_LINT:-1}" = 1 ]; then
	if "$ROOT/scripts/lint.sh" > "$LOG/lint.log" 2>&1; then
		tap ok "${KVERS[0]:-6.1} lint (checkpatch --strict, W=1, sparse)"
	else
		tap fail "${KVERS[0]:-6.1} lint (checkpatch --strict, W=1, sparse)" "$(grep -E '^(lint:|# )' "$LOG/lint.log" | head -40)"
	fi
	diag "lint done at $(elapsed) s"
fi

# console_oops LOG: the first kernel report (selftests/lib.sh's T_KERNEL_BAD) or panic
# of a guest's console, 60 lines from its header (vmrun's tail of the log ends after
# the call trace)
T_KERNEL_BAD=$(sed -n "s/^T_KERNEL_BAD='\(.*\)'\$/\1/p" "$ROOT/selftests/lib.sh")
console_oops() {
	[ -r "$1" ] || return 0
	awk -v bad="${T_KERNEL_BAD:-Oops}|Kernel panic" '!n && $0 ~ bad { n = 1 }
		n && n++ <= 60' "$1"
}

# ---- selftests, one VM per kernel
# vm_selftests LABEL OUTDIR TIMEOUT [VAR=VALUE...]: selftests/run.sh in a VM of kernel
# $k with module ${KO[$k]} (SMP=2, MEM=2G unless VAR=VALUE says otherwise), relayed as
# TAP with LABEL before each name
vm_selftests() {
	local label=$1 out=$2 tmo=$3 t rc; shift 3
	mkdir -p "$out"
	t=$(date +%s)
	relay_tap "$label" < <(env KV="$k" SMP=2 MEM=2G TIMEOUT="$tmo" ESP_MODULE="${KO[$k]}" "$@" \
		"$ROOT/scripts/vmrun" "$ROOT/selftests/run.sh" "$out" 2> "$out/vmrun.err"; echo "$?" > "$out/vmrun.rc")
	rc=$(cat "$out/vmrun.rc" 2>/dev/null || echo 125)
	diag "$label VM: exit $rc, $GUEST_TESTS tests, $(( $(date +%s) - t )) s wall"
	if [ "$rc" -ne 0 ] && { [ "$GUEST_FAILS" -eq 0 ] || [ "$rc" -ge 124 ]; }; then
		tap fail "$label VM completed" "vmrun exit status $rc" "$(tail -5 "$out/vmrun.err")" \
			"$(console_oops "$out/console.log")"
	fi
	[ "$GUEST_TESTS" -gt 0 ] || tap fail "$label reported results" "no TAP output; see $out"
}

for k in "${KVERS[@]}"; do
	if [ -z "${KO[$k]:-}" ]; then tap fail "$k selftests" "module did not build"; continue; fi
	# 90-dkms compiles the module inside the emulated guest (~10 min per
	# kernel): only "make check-dkms" (DKMS_SELFTEST=1) runs it.
	vm_selftests "$k" "$LOG/vm-$k" "${CHECK_VM_TIMEOUT:-2400}" \
		DKMS_SELFTEST="${DKMS_SELFTEST:-0}" VM_ENV="DKMS_SELFTEST"
	# a host without IPv6: the module must load and carry IPv4 (15-ipv4only.sh),
	# every algorithm and mode of 10-traffic with 1 MiB each (4 in the main VM)
	vm_selftests "$k ipv4-only" "$LOG/vm-$k-ipv4only" 600 \
		SELFTESTS="10 15" TRAFFIC_MB=1 VM_ENV="SELFTESTS TRAFFIC_MB" VM_APPEND="ipv6.disable=1"
	# CPU hotplug with more than one CPU to hand an offline CPU's SAs to;
	# four senders into one SA's TX order section
	vm_selftests "$k 4 CPUs" "$LOG/vm-$k-smp4" 600 \
		SELFTESTS="24 29" VM_ENV="SELFTESTS" SMP=4
	# where the RX homes go: CPU 3 possible but not online (maxcpus=), CPU 1 isolated
	vm_selftests "$k homes" "$LOG/vm-$k-homes" 600 \
		SELFTESTS="23" VM_ENV="SELFTESTS" SMP=4 VM_APPEND="maxcpus=3 isolcpus=1"
	# a CPU with AVX2 but without BMI2 (a hypervisor's mask): ChaCha takes SSSE3
	vm_selftests "$k no BMI2" "$LOG/vm-$k-nobmi2" 600 \
		SELFTESTS="30" VM_ENV="SELFTESTS" VM_CPU="max,-bmi2"
done

# ---- make bench: the analysis (medians, ceiling, goal ratios) of a made-up run
if out=$("$ROOT/scripts/bench.sh" --selftest 2>&1); then
	tap ok "host bench.sh analysis (a made-up run)"
else
	tap fail "host bench.sh analysis (a made-up run)" "$out"
fi

# ---- the module's crypto code as host programs, against OpenSSL (bench/native)
if out=$(make -s -C "$ROOT/bench/native" test OUT="$LOG/native" 2>&1); then
	tap ok "host native crypto differential tests (bench/native)" "$(printf '%s\n' "$out" | grep -iE 'pass|ok|skip' | tail -20)"
else
	tap fail "host native crypto differential tests (bench/native)" "$(printf '%s\n' "$out" | tail -30)"
fi

# ---- the instruction counter (bench/insn): its arithmetic, then its calibration in a VM:
# a loop of a known instruction count within 0.1 %, a known rep movsb byte for byte, a
# spin-wait loop counted as spin-wait
if out=$(python3 "$ROOT/scripts/insn.py" selftest 2>&1); then
	tap ok "host insn.py arithmetic (made-up snapshots)"
else
	tap fail "host insn.py arithmetic (made-up snapshots)" "$out"
fi
if [ "${CHECK_INSN:-1}" = 1 ] && [ -n "${KVERS[0]:-}" ]; then
	k=${KVERS[0]} out=$LOG/insn-calib
	mkdir -p "$out"
	if make -s -C "$ROOT/bench/insn" OUT="$out/bin" > "$out/build.log" 2>&1; then
		printf '#!/bin/bash\n%q 100\n' "$out/bin/insn-calib" > "$out/guest.sh"
		chmod +x "$out/guest.sh"
		rm -f "$out/insn.txt"
		KV=$k TIMEOUT=600 VMRUN_QUIET=1 \
			QEMU_EXTRA="-plugin $out/bin/insn-plugin.so,out=$out/insn.txt" \
			"$ROOT/scripts/vmrun" "$out/guest.sh" "$out/vm" > "$out/vmrun.log" 2>&1
		if res=$(python3 "$ROOT/scripts/insn.py" calib "$out/insn.txt" 100 2>&1); then
			tap ok "$k insn-plugin calibration (known loop within 0.1 %, known rep movsb exact, spin-wait apart)" "$res"
		else
			tap fail "$k insn-plugin calibration (known loop within 0.1 %, known rep movsb exact, spin-wait apart)" \
				"$res" "$(tail -5 "$out/vmrun.log")"
		fi
	else
		tap fail "host insn-plugin build" "$(tail -10 "$out/build.log")"
	fi
	diag "insn calibration done at $(elapsed) s"
fi

# ---- wire compatibility, two VMs (module <-> stock) per kernel
first=1
for want in ${CHECK_PAIR_KERNELS:-6.1 6.12}; do
	k=$(kver_pick "$want" boot)
	[ -n "$k" ] || continue
	# the first pair always runs; further ones only while within the time budget
	if [ $first = 0 ] && [ "$(elapsed)" -gt "${CHECK_BUDGET:-2100}" ]; then
		tap skip "$k wirecompat (module <-> stock, two VMs)" "over the time budget (CHECK_BUDGET=${CHECK_BUDGET:-2100} s) after $(elapsed) s"
		continue
	fi
	first=0
	if [ -z "${KO[$k]:-}" ]; then tap fail "$k wirecompat" "module did not build"; continue; fi
	out=$LOG/pair-$k; mkdir -p "$out"
	t=$(date +%s)
	relay_tap "$k" < <(KV=$k TIMEOUT=${CHECK_PAIR_TIMEOUT:-600} A_ENV="ESP_MODULE=${KO[$k]}" \
		"$ROOT/selftests/wirecompat-pair.sh" "$out" 2> "$out/vmpair.err"; echo "$?" > "$out/vmpair.rc")
	rc=$(cat "$out/vmpair.rc" 2>/dev/null || echo 125)
	diag "$k wirecompat VM pair: exit $rc, $GUEST_TESTS tests, $(( $(date +%s) - t )) s wall"
	if [ "$rc" -ne 0 ] && { [ "$GUEST_FAILS" -eq 0 ] || [ "$rc" -ge 124 ]; }; then
		tap fail "$k wirecompat VM pair completed" "vmpair exit status $rc" "$(tail -5 "$out/vmpair.err")"
	fi
	[ "$GUEST_TESTS" -gt 0 ] || tap fail "$k wirecompat reported results" "no TAP output; see $out"
done

diag "total wall time $(elapsed) s; logs in $LOG"
[ $SKIP -gt 0 ] && diag "$SKIP skipped"
echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
