# SPDX-License-Identifier: GPL-2.0
# 31-gcm: the module's own rfc4106(gcm(aes)) (gcm_simd.c, driver rfc4106-gcm-aes-espsw).
# Level choice: from /proc/cpuinfo the test works out which levels this CPU has
# (aesni, aesni-avx, vaes-avx2, vaes-avx512, each with the features of the ones below
# it) and checks that the module used the best of them whose known answers passed: a
# level the CPU lacks must be named in dmesg with what it lacks, one that failed its
# known-answer test (an emulator may advertise VAES and compute it wrongly) with a
# warning naming the level fallen back to; each VAES level's case is reported as what
# happened (not offered, refused, in use). debugfs gcm_level must read the level in
# use; with gcm_kat_fault naming that level, "best" must fall back to the next one
# (and the level itself be refused), and come back once the fault is cleared.
# Then that /proc/crypto lists the driver with "selftest : passed" and a priority
# above every other rfc4106(gcm(aes)), and that an ESP SA's seqiv() wraps it. Then runs
# the module's self-test (echo N > $KNOBS/gcm_selftest, N random cases per level): at
# every level this CPU can use, the kernel's GCM known answers through the core and
# through the AEAD, a differential test against the kernel's
# rfc4106(gcm_base(ctr(aes-generic),ghash-generic)) (random AES-128/192/256 keys, tags
# of 8/12/16 bytes, lengths 0..9000, random AD with and without ESN, random sg splits,
# in and out of place, single-bit forgeries refused with -EBADMSG), the batch entry
# point, at most 4 KiB of data per FPU section; then the fallback to the stock driver,
# also from inside an FPU section, where it completes asynchronously. The write fails
# if any case does; the test also asks dmesg for every usable level's "passed" and
# every other level's "skipped" with its reason.
# Sourced by selftests/run.sh after lib.sh; also runnable alone: bash 31-gcm.sh [ko]
if ! declare -F t_ok >/dev/null; then
	_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	. "$_here/lib.sh"
fi
[ "${BASH_SOURCE[0]}" = "$0" ] && [ -n "${1:-}" ] && ESP_MODULE=$1
GCM_DRIVER=rfc4106-gcm-aes-espsw
GCM_ITERS=${GCM_ITERS:-200}

GCM_LEVELS="aesni aesni-avx vaes-avx2 vaes-avx512"

# _gcm_lacks LEVEL: the /proc/cpuinfo flags LEVEL needs and this CPU lacks, in the
# order gcm_simd.c names them (each level needs the flags of the ones below it)
_gcm_lacks() {
	local flags need="aes pclmulqdq sse4_1" f out=""
	flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
	case $1 in
	aesni-avx) need="$need avx" ;;
	vaes-avx2) need="$need avx avx2 vaes vpclmulqdq" ;;
	vaes-avx512) need="$need avx avx2 vaes vpclmulqdq avx512f avx512vl avx512bw" ;;
	esac
	for f in $need; do
		case $flags in *" $f "*) ;; *) out="$out $f" ;; esac
	done
	echo "${out# }"
}

# Intel models whose clock drops with 512-bit vectors (gcm_simd.c: eg_zmm_slow)
_gcm_zmm_slow() {
	local v fam model
	v=$(grep -m1 '^vendor_id' /proc/cpuinfo | awk '{ print $3 }')
	fam=$(grep -m1 '^cpu family' /proc/cpuinfo | awk '{ print $4 }')
	model=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | awk '{ print $3 }')
	[ "$v" = GenuineIntel ] && [ "$fam" = 6 ] &&
		case $model in 85|106|108|125|126|157|140|141) true ;; *) false ;; esac
}

# _gcm_choice LOG: check the level choice that dmesg LOG (a fresh load) reports
_gcm_choice() {
	local log=$1 lvl lacks line chosen="" expect="" refused="" n
	chosen=$(echo "$log" | sed -n 's/.*gcm: using \([a-z0-9-]*\) AES-GCM (best level of this CPU, [0-9]* known answers passed.*/\1/p')
	t_diag "$(echo "$log" | grep -E 'gcm: (using|.* not (available|chosen)|.* known-answer test)')"
	for lvl in $GCM_LEVELS; do
		lacks=$(_gcm_lacks "$lvl")
		if [ -n "$lacks" ]; then
			# not offered (so neither is any level above it): dmesg must say why
			line=$(echo "$log" | grep -o "gcm: $lvl not available: this CPU lacks .*")
			if [ "$line" = "gcm: $lvl not available: this CPU lacks $lacks" ] ||
			   [ "${line#"gcm: $lvl not available: this CPU lacks $lacks "}" != "$line" ]; then
				t_ok "gcm $lvl: not offered by this CPU (lacks $lacks), and dmesg says so"
			else
				t_fail "gcm $lvl: not offered by this CPU (lacks $lacks), and dmesg says so" \
					"dmesg: ${line:-nothing about $lvl}"
			fi
			continue
		fi
		if [ "$lvl" = vaes-avx512 ] && _gcm_zmm_slow; then
			t_check "gcm $lvl: not chosen on this CPU model (512-bit vectors slow it)" \
				grep -q "gcm: $lvl not chosen: this CPU model" <<< "$log"
			continue
		fi
		line=$(echo "$log" | grep -o "gcm: $lvl known-answer test FAILED at case [0-9]* of [0-9]*: falling back to .*")
		if [ -n "$line" ]; then
			refused="$refused $lvl"
			t_ok "gcm $lvl: offered by this CPU and REFUSED by its known-answer test (dmesg: ${line#gcm: })"
		else
			expect=$lvl
		fi
	done
	# the chosen level: the best one offered whose answers passed, named in dmesg
	t_expect_str "gcm: the level in use is the best one offered that passed its known answers" \
		"$chosen" "$expect"
	for lvl in $refused; do
		# a refused level sits above the one in use, and the fallback line names it
		n=$(echo "$log" | grep -c "gcm: $lvl known-answer test FAILED .*: falling back to ")
		t_expect "gcm $lvl: refused once, at load" "$n" -eq 1
	done
	case $expect in
	vaes-*) t_ok "gcm $expect: offered by this CPU, passed its known answers, in use" ;;
	esac
	if [ -r "$KNOBS/gcm_level" ]; then
		t_expect_str "gcm: debugfs gcm_level reads the level in use" \
			"$(cat "$KNOBS/gcm_level")" "$expect"
	else
		t_fail "gcm: debugfs gcm_level reads the level in use" "no $KNOBS/gcm_level"
	fi
	GCM_BEST=$expect GCM_REFUSED=$refused
}

# The fallback path itself: the level in use made to fail its known answers
_gcm_fault() {
	local best=$GCM_BEST next="" lvl n0 log rc
	for lvl in $GCM_LEVELS; do
		[ "$lvl" = "$best" ] && break
		[ -z "$(_gcm_lacks "$lvl")" ] && next=$lvl
	done
	n0=$(dmesg | wc -l)
	echo "$best" > "$KNOBS/gcm_kat_fault"
	t_expect_str "gcm: debugfs gcm_kat_fault names $best" "$(cat "$KNOBS/gcm_kat_fault")" "$best"
	echo best > "$KNOBS/gcm_level" 2>/dev/null
	rc=$?
	log=$(dmesg | tail -n +"$((n0 + 1))")
	if [ -n "$next" ]; then
		t_expect "gcm: with $best's known answers wrong, 'best' succeeds" "$rc" -eq 0
		t_expect_str "gcm: ... and falls back to $next" "$(cat "$KNOBS/gcm_level")" "$next"
		t_check "gcm: ... saying so in dmesg (warning naming both levels)" \
			grep -q "gcm: $best known-answer test FAILED at case 1 of [0-9]*: falling back to $next" <<< "$log"
	else
		t_expect "gcm: with $best's (the only level's) known answers wrong, 'best' fails" "$rc" -ne 0
		t_expect_str "gcm: ... and $best stays in use" "$(cat "$KNOBS/gcm_level")" "$best"
	fi
	echo "$best" > "$KNOBS/gcm_level" 2>/dev/null
	rc=$?
	t_expect "gcm: forcing $best while its known answers are wrong is refused" "$rc" -ne 0
	echo none > "$KNOBS/gcm_kat_fault"
	echo best > "$KNOBS/gcm_level"
	t_expect_str "gcm: fault cleared, 'best' is $best again" "$(cat "$KNOBS/gcm_level")" "$best"
	# a level the CPU lacks cannot be forced
	for lvl in $GCM_LEVELS; do
		[ -z "$(_gcm_lacks "$lvl")" ] && continue
		echo "$lvl" > "$KNOBS/gcm_level" 2>/dev/null
		rc=$?
		t_expect "gcm: forcing $lvl, which this CPU lacks, is refused" "$rc" -ne 0
		t_expect_str "gcm: ... and $best stays in use" "$(cat "$KNOBS/gcm_level")" "$best"
		break
	done
}

_gcm_main() {
	local levels="" lvl out rc log n0 prio stockprio drv want
	if [ -z "${ESP_MODULE:-}" ] || [ ! -r "$ESP_MODULE" ]; then
		t_skip "gcm selftest" "no module (ESP_MODULE)"
		return 0
	fi
	for lvl in $GCM_LEVELS; do
		[ -z "$(_gcm_lacks "$lvl")" ] && levels="$levels $lvl"
	done
	levels=${levels# }
	if [ -z "$levels" ]; then
		t_skip "gcm selftest" "no AES-NI/PCLMULQDQ/SSE4.1: the module does not register its AES-GCM"
		return 0
	fi
	t_diag "gcm levels this CPU offers: $levels"
	# qemu 7.2's TCG: VAES (computed wrongly at 256 bits), no VPCLMULQDQ
	[ -z "$(_gcm_lacks vaes-avx2 | grep -vw vpclmulqdq)" ] && [ -n "$(_gcm_lacks vaes-avx2)" ] &&
		t_diag "gcm: this CPU has VAES but not VPCLMULQDQ: the VAES levels need both, so their known answers do not run here"
	load_simd_crypto
	modprobe -q -a gcm ghash_generic aes_generic ctr 2>/dev/null

	# a fresh load: its dmesg lines, the crypto manager's self-test of the new driver
	n0=$(dmesg | wc -l)
	if grep -q '^esp_swoffload ' /proc/modules && ! unload_module 40; then
		t_fail "gcm: reload the module" "cannot rmmod esp_swoffload: $(lsmod | grep esp_swoffload)"
		return 0
	fi
	if ! out=$(insmod "$ESP_MODULE" 2>&1); then
		t_fail "gcm: reload the module" "$out"
		return 0
	fi
	log=$(dmesg | tail -n +"$((n0 + 1))")
	_gcm_choice "$log"
	[ -n "$GCM_BEST" ] && _gcm_fault

	if awk -v d="$GCM_DRIVER" '$1 == "driver" { cur = $3 }
		cur == d && $1 == "selftest" && $3 == "passed" { ok = 1 }
		END { exit !ok }' /proc/crypto; then
		t_ok "gcm /proc/crypto: $GCM_DRIVER selftest passed"
	else
		t_fail "gcm /proc/crypto: $GCM_DRIVER selftest passed" \
			"$(grep -A8 "$GCM_DRIVER" /proc/crypto)"
	fi
	# the generic name must resolve to ours: above every other implementation
	prio=$(awk -v d="$GCM_DRIVER" '$1 == "driver" { cur = $3 }
		cur == d && $1 == "priority" { print $3; exit }' /proc/crypto)
	stockprio=$(awk -v d="$GCM_DRIVER" '$1 == "name" { n = $3 } $1 == "driver" { cur = $3 }
		n == "rfc4106(gcm(aes))" && $1 == "priority" && cur != d { print $3 }' \
		/proc/crypto | sort -n | tail -1)
	t_diag "priority: ours ${prio:-?}, best other rfc4106(gcm(aes)) ${stockprio:-none}"
	# 6.12's best stock one is rfc4106-gcm-vaes-avx10_512 at 800 where it registers
	if [ -n "$prio" ] && [ -n "$stockprio" ] && [ "$prio" -gt "$stockprio" ] &&
	   [ "$prio" -gt 800 ]; then
		t_ok "gcm priority above every stock rfc4106(gcm(aes))"
	else
		t_fail "gcm priority above every stock rfc4106(gcm(aes))" \
			"ours ${prio:-?}, others' best ${stockprio:-none}"
	fi
	# what esp4 allocates for an AES-GCM SA
	ns_setup && xfrm_setup gcm128 transport 4
	drv=$(seqiv_driver 'rfc4106(gcm(aes))')
	t_expect_str "gcm: an ESP SA's AEAD is seqiv over ours ($drv)" "$drv" "seqiv($GCM_DRIVER)"
	xfrm_flush
	ns_cleanup

	n0=$(dmesg | wc -l)
	out=$(echo "$GCM_ITERS" 2>&1 > "$KNOBS/gcm_selftest")
	rc=$?
	log=$(dmesg | tail -n +"$((n0 + 1))")
	if [ $rc -eq 0 ]; then
		t_ok "gcm selftest ($GCM_ITERS random cases per level)"
	else
		t_fail "gcm selftest ($GCM_ITERS random cases per level)" "write rc=$rc $out" \
			"$(echo "$log" | grep -i gcm | tail -20)"
	fi
	for lvl in $GCM_LEVELS; do
		case " $levels " in
		*" $lvl "*)
			case " $GCM_REFUSED " in
			*" $lvl "*) want="gcm selftest $lvl: skipped: refused by its known-answer test" ;;
			*) want="gcm selftest $lvl: passed [0-9]* cases" ;;
			esac ;;
		*) want="gcm selftest $lvl: skipped: this CPU lacks its features" ;;
		esac
		if echo "$log" | grep -q "$want"; then
			t_ok "gcm selftest $lvl ($(echo "${want#gcm selftest $lvl: }" | sed 's/ \[0-9\]\* cases//'))"
			t_diag "$(echo "$log" | grep -o "gcm selftest $lvl: .*")"
		else
			t_fail "gcm selftest $lvl" "want '$want'" \
				"$(echo "$log" | grep -i 'gcm selftest' | tail -5)"
		fi
	done
	t_diag "$(echo "$log" | grep -o 'gcm selftest: FPU sections.*' | head -1)"
	if echo "$log" | grep -q "gcm selftest fallback: passed [0-9]* cases"; then
		t_ok "gcm selftest fallback (stock driver, also from an FPU section)"
		t_diag "$(echo "$log" | grep -o 'gcm selftest fallback: passed.*')"
	else
		t_fail "gcm selftest fallback (stock driver, also from an FPU section)" \
			"$(echo "$log" | grep -i 'gcm selftest' | tail -5)"
	fi
	kernel_log_check "gcm selftest: kernel log"
}

# t_expect_str NAME GOT WANT
t_expect_str() {
	if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1" "got '$2', want '$3'"; fi
}

_gcm_main
