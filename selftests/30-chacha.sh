# SPDX-License-Identifier: GPL-2.0
# 30-chacha: the module's own rfc7539esp(chacha20,poly1305) (chacha_simd.c).
# Reloads the module with its defaults: the load line says which level it took and that
# its known-answer test passed, and debugfs chacha_level reads the best level this
# CPU's features allow (avx512: avx512f + avx512vl; avx2: avx + avx2 + bmi2; ssse3;
# generic).
# Then for every level of this CPU: chacha_level takes the level (its known answers
# first), and writing CHACHA_ITERS to chacha_selftest runs the self-test there: the
# RFC 8439 vectors and a differential test against the kernel's
# rfc7539esp(chacha20-generic,poly1305-generic) (random lengths 0..65535, random sg
# splits, in/out of place, forgeries, batch API, at most 4 KiB of data per FPU
# section); the write fails if anything differs. A level the CPU lacks and an unknown
# name are refused; with chacha_kat_fault set the known answers fail and the level
# stays. /proc/crypto lists the driver with "selftest : passed" and a priority above
# the stock template.
# Sourced by selftests/run.sh after lib.sh; also runnable alone: bash 30-chacha.sh [ko]
if ! declare -F t_ok >/dev/null; then
	_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	if [ -r "$_here/lib.sh" ]; then
		. "$_here/lib.sh"
	else
		_tn=0
		t_ok() { _tn=$((_tn + 1)); echo "ok $_tn - $1"; }
		t_fail() {
			_tn=$((_tn + 1)); echo "not ok $_tn - $1"; shift
			printf '%s\n' "$*" | sed 's/^/# /'
		}
		t_skip() { _tn=$((_tn + 1)); echo "ok $_tn - $1 # SKIP ${2:-}"; }
		t_diag() { printf '%s\n' "$*" | sed 's/^/# /'; }
	fi
fi
# run directly (not sourced by run.sh): an optional argument names the module
[ "${BASH_SOURCE[0]}" = "$0" ] && [ -n "${1:-}" ] && ESP_MODULE=$1
CHACHA_DRIVER=rfc7539esp-chacha20poly1305-espsw
CHACHA_ITERS=${CHACHA_ITERS:-200}

# the best level of this CPU by its features, as chacha_simd.c chooses
_chacha_best() {
	local best=generic
	grep -qw ssse3 /proc/cpuinfo && best=ssse3
	grep -qw ssse3 /proc/cpuinfo && grep -qw avx /proc/cpuinfo &&
		grep -qw avx2 /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo && best=avx2
	[ $best = avx2 ] && grep -qw avx512f /proc/cpuinfo &&
		grep -qw avx512vl /proc/cpuinfo && best=avx512
	echo $best
}

_chacha_main() {
	local levels="" lvl l best out n0 rc prio stockprio log cur
	if [ -z "${ESP_MODULE:-}" ] || [ ! -r "$ESP_MODULE" ]; then
		t_skip "chacha selftest" "no module (ESP_MODULE)"
		return 0
	fi
	best=$(_chacha_best)
	for l in generic ssse3 avx2 avx512; do
		levels="$levels $l"
		[ $l = "$best" ] && break
	done
	t_diag "chacha levels on this CPU:$levels"
	modprobe -a esp4 esp6 2>/dev/null
	# the reference and the stock template for the comparison
	modprobe -q -a chacha20poly1305 chacha_generic poly1305_generic 2>/dev/null
	modprobe -q -a chacha_x86_64 poly1305_x86_64 2>/dev/null

	# a fresh load: the level by CPU features, known answers passed
	if ! _chacha_unload; then
		t_fail "chacha: module reloaded" \
			"cannot rmmod esp_swoffload: $(lsmod | grep esp_swoffload)"
		return 0
	fi
	n0=$(dmesg | wc -l)
	if out=$(insmod "$ESP_MODULE" 2>&1); then
		t_ok "chacha: module reloaded"
	else
		t_fail "chacha: module reloaded" "$out" "$(dmesg | tail -n +"$((n0 + 1))")"
		return 0
	fi
	# insmod returns only once the crypto manager has tested the AEADs
	# (6.12 tests asynchronously): no "unknown" self-test, no reference
	# left behind by the test
	st=$(awk '$1 == "driver" { d = $3 } $1 == "selftest" && d ~ /-espsw$/ {
		print d "=" $3 }' /proc/crypto | sort | tr '\n' ' ')
	refs=$(cat /sys/module/esp_swoffload/refcnt)
	if [ "$refs" = 0 ] && echo "$st" | grep -q "$CHACHA_DRIVER=passed" &&
	   ! echo "$st" | tr ' ' '\n' | grep -v '^$' | grep -qv '=passed$'; then
		t_ok "chacha: AEADs tested when insmod returns ($st)"
	else
		t_fail "chacha: AEADs tested when insmod returns" "self-tests: $st; refcnt $refs"
	fi
	log=$(dmesg | tail -n +"$((n0 + 1))" | grep -o 'chacha: [a-z0-9]* ChaCha20-Poly1305.*')
	t_diag "$log"
	cur=$(cat "$KNOBS/chacha_level" 2>&1)
	if [ "$cur" = "$best" ] &&
	   echo "$log" | grep -q "^chacha: $best ChaCha20-Poly1305 (best level of this CPU), [1-9][0-9]* known answers passed"; then
		t_ok "chacha level at load is the best of this CPU ($best)"
	else
		t_fail "chacha level at load is the best of this CPU ($best)" \
			"chacha_level: $cur" "load line: ${log:-none}"
	fi

	for lvl in $levels; do
		n0=$(dmesg | wc -l)
		if ! out=$(echo "$lvl" 2>&1 > "$KNOBS/chacha_level") ||
		   [ "$(cat "$KNOBS/chacha_level")" != "$lvl" ]; then
			t_fail "chacha_level takes $lvl" "$out" "reads $(cat "$KNOBS/chacha_level")"
			continue
		fi
		t_ok "chacha_level takes $lvl"
		out=$(echo "$CHACHA_ITERS" 2>&1 > "$KNOBS/chacha_selftest")
		rc=$?
		log=$(dmesg | tail -n +"$((n0 + 1))")
		if [ $rc -eq 0 ] &&
		   echo "$log" | grep -q "chacha selftest $lvl: passed [0-9]* cases"; then
			t_ok "chacha selftest $lvl"
			t_diag "$(echo "$log" | grep -o "chacha selftest: FPU sections.*")"
			t_diag "$(echo "$log" | grep -o "chacha selftest $lvl: passed.*")"
		else
			t_fail "chacha selftest $lvl" "write rc=$rc $out" \
				"$(echo "$log" | grep -i chacha | tail -20)"
		fi
	done

	# refused: an unknown name, a level beyond this CPU's, failing known answers
	if echo nosuch 2>/dev/null > "$KNOBS/chacha_level"; then
		t_fail "chacha_level refuses an unknown level"
	else
		t_ok "chacha_level refuses an unknown level"
	fi
	if [ "$best" != avx512 ]; then
		if out=$(echo avx512 2>&1 > "$KNOBS/chacha_level") ||
		   [ "$(cat "$KNOBS/chacha_level")" != "$best" ]; then
			t_fail "chacha_level refuses avx512 on this CPU" "$out"
		else
			t_ok "chacha_level refuses avx512 on this CPU (${out##*: })"
		fi
	fi
	# AVX2 without BMI2 (VM_CPU=max,-bmi2 in make check): the AVX2 level is not this CPU's
	if [ "$best" = ssse3 ] && grep -qw avx2 /proc/cpuinfo; then
		if out=$(echo avx2 2>&1 > "$KNOBS/chacha_level") ||
		   [ "$(cat "$KNOBS/chacha_level")" != "$best" ]; then
			t_fail "chacha_level refuses avx2 on a CPU without BMI2" "$out"
		else
			t_ok "chacha_level refuses avx2 on a CPU without BMI2 (${out##*: })"
		fi
	fi
	n0=$(dmesg | wc -l)
	echo 1 > "$KNOBS/chacha_kat_fault"
	out=$(echo generic 2>&1 > "$KNOBS/chacha_level")
	rc=$?
	echo 0 > "$KNOBS/chacha_kat_fault"
	log=$(dmesg | tail -n +"$((n0 + 1))" | grep -o 'chacha: generic known-answer test FAILED.*')
	if [ $rc -ne 0 ] && [ -n "$log" ] && [ "$(cat "$KNOBS/chacha_level")" = "$best" ]; then
		t_ok "chacha: failing known answers refuse the level ($log)"
	else
		t_fail "chacha: failing known answers refuse the level" \
			"write rc=$rc; level $(cat "$KNOBS/chacha_level"); log: ${log:-none}"
	fi

	if awk -v d="$CHACHA_DRIVER" '$1 == "driver" { cur = $3 }
		cur == d && $1 == "selftest" && $3 == "passed" { ok = 1 }
		END { exit !ok }' /proc/crypto; then
		t_ok "chacha /proc/crypto: $CHACHA_DRIVER selftest passed"
	else
		t_fail "chacha /proc/crypto: $CHACHA_DRIVER selftest passed" \
			"$(grep -A8 "$CHACHA_DRIVER" /proc/crypto)"
	fi

	# the generic name must resolve to us: highest priority of all implementations
	prio=$(awk -v d="$CHACHA_DRIVER" '$1 == "driver" { cur = $3 }
		cur == d && $1 == "priority" { print $3; exit }' /proc/crypto)
	stockprio=$(awk '$1 == "name" { n = $3 } $1 == "driver" { cur = $3 }
		n == "rfc7539esp(chacha20,poly1305)" && $1 == "priority" && cur != d { print $3 }' \
		d="$CHACHA_DRIVER" /proc/crypto | sort -n | tail -1)
	t_diag "priority: ours ${prio:-?}, best other rfc7539esp ${stockprio:-none instantiated}"
	if [ -n "$prio" ] && [ "$prio" -gt "${stockprio:-300}" ] && [ "$prio" -gt 300 ]; then
		t_ok "chacha priority above the stock template"
	else
		t_fail "chacha priority above the stock template" \
			"ours ${prio:-?}, stock ${stockprio:-300}"
	fi

	# leave the module as a fresh load has it, as selftests/run.sh had it
	echo "$best" > "$KNOBS/chacha_level"
}

_chacha_unload() {
	grep -q '^esp_swoffload ' /proc/modules || return 0
	unload_module 40
}

_chacha_main
