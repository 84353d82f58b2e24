# SPDX-License-Identifier: GPL-2.0
# 30-chacha: the module's own rfc7539esp(chacha20,poly1305) (chacha_simd.c).
# For every ChaCha20 level this CPU supports (generic, ssse3, avx2, avx512), reload the
# module with chacha_impl=<level> chacha_selftest=1: at load it runs the RFC 8439 vectors
# and a differential test against the kernel's rfc7539esp(chacha20-generic,
# poly1305-generic) (random lengths 0..65535, random sg splits, in/out of place,
# forgeries, batch API, at most 4 KiB of data per FPU section) and fails to load if
# anything differs. Checks dmesg for "chacha selftest <level>: passed N cases", that a
# forced level skips the measurement, and that /proc/crypto lists the driver with
# "selftest : passed" and a priority above the stock template. Reloads the module with
# default parameters (chacha_impl=auto) at the end and checks its selection line:
# "chacha: measured MB/s: generic=N ssse3=N ...; using <level> ChaCha20 (fastest; ...)"
# names every level of this CPU and the chosen one has the highest rate.
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

_chacha_main() {
	local levels=generic lvl out n0 rc prio stockprio
	if [ -z "${ESP_MODULE:-}" ] || [ ! -r "$ESP_MODULE" ]; then
		t_skip "chacha selftest" "no module (ESP_MODULE)"
		return 0
	fi
	grep -qw ssse3 /proc/cpuinfo && levels="$levels ssse3"
	grep -qw avx2 /proc/cpuinfo && levels="$levels avx2"
	grep -qw avx512vl /proc/cpuinfo && grep -qw avx512f /proc/cpuinfo &&
		levels="$levels avx512"
	t_diag "chacha levels on this CPU: $levels"
	modprobe -a esp4 esp6 2>/dev/null
	# the reference and the stock template for the comparison
	modprobe -q -a chacha20poly1305 chacha_generic poly1305_generic 2>/dev/null
	modprobe -q -a chacha_x86_64 poly1305_x86_64 2>/dev/null

	for lvl in $levels; do
		if ! _chacha_unload; then
			t_fail "chacha selftest $lvl" \
				"cannot rmmod esp_swoffload: $(lsmod | grep esp_swoffload)"
			return 0
		fi
		n0=$(dmesg | wc -l)
		out=$(insmod "$ESP_MODULE" chacha_impl="$lvl" chacha_selftest=1 \
			chacha_selftest_iters="$CHACHA_ITERS" 2>&1)
		rc=$?
		log=$(dmesg | tail -n +"$((n0 + 1))")
		if [ $rc -eq 0 ] &&
		   echo "$log" | grep -q "chacha selftest $lvl: passed [0-9]* cases"; then
			t_ok "chacha selftest $lvl"
			t_diag "$(echo "$log" | grep -o "chacha selftest: FPU sections.*")"
			t_diag "$(echo "$log" | grep -o "chacha selftest $lvl: passed.*")"
			if echo "$log" | grep -q "using $lvl ChaCha20 (chacha_impl=$lvl" &&
			   ! echo "$log" | grep -q "chacha: measured"; then
				t_ok "chacha_impl=$lvl forced, not measured"
			else
				t_fail "chacha_impl=$lvl forced, not measured" \
					"$(echo "$log" | grep 'chacha:')"
			fi
		else
			t_fail "chacha selftest $lvl" "insmod rc=$rc $out" \
				"$(echo "$log" | grep -i chacha | tail -20)"
			continue
		fi
		if awk -v d="$CHACHA_DRIVER" '$1 == "driver" { cur = $3 }
			cur == d && $1 == "selftest" && $3 == "passed" { ok = 1 }
			END { exit !ok }' /proc/crypto; then
			t_ok "chacha /proc/crypto $lvl: $CHACHA_DRIVER selftest passed"
		else
			t_fail "chacha /proc/crypto $lvl: $CHACHA_DRIVER selftest passed" \
				"$(grep -A8 "$CHACHA_DRIVER" /proc/crypto)"
		fi
	done

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

	# leave the module loaded with its defaults, as selftests/run.sh had it; the
	# default chacha_impl=auto times every level and binds the fastest
	_chacha_unload
	n0=$(dmesg | wc -l)
	t0=$(date +%s%N)
	if out=$(insmod "$ESP_MODULE" 2>&1); then
		t_ok "chacha: module reloaded with defaults"
	else
		t_fail "chacha: module reloaded with defaults" "$out"
		return 0
	fi
	t_diag "insmod took $((($(date +%s%N) - t0) / 1000000)) ms (guest clock, TCG)"
	log=$(dmesg | tail -n +"$((n0 + 1))" | grep -o 'chacha: measured MB/s:.*')
	t_diag "$log"
	_chacha_check_auto "$log" "$levels"
}

# _chacha_check_auto LINE LEVELS: LINE names every level of LEVELS with an integer
# rate, and the level it says it uses has the highest one.
_chacha_check_auto() {
	local line=$1 levels=$2 lvl rate best="" bestrate=-1 used miss=""
	used=$(echo "$line" | sed -n 's/.*; using \([a-z0-9]*\) ChaCha20 (fastest.*/\1/p')
	for lvl in $levels; do
		rate=$(echo "$line" | grep -o " $lvl=[0-9]*" | cut -d= -f2)
		if [ -z "$rate" ]; then
			miss="$miss $lvl"
			continue
		fi
		if [ "$rate" -gt "$bestrate" ]; then
			bestrate=$rate
			best=$lvl
		fi
	done
	if [ -n "$line" ] && [ -z "$miss" ] && [ -n "$used" ] && [ "$used" = "$best" ]; then
		t_ok "chacha_impl=auto picked the fastest measured level ($used)"
	else
		t_fail "chacha_impl=auto picked the fastest measured level" \
			"line: ${line:-none}" "missing:${miss:- none}; used ${used:-?}, fastest ${best:-?}"
	fi
}

_chacha_unload() {
	grep -q '^esp_swoffload ' /proc/modules || return 0
	unload_module 40
}

_chacha_main
