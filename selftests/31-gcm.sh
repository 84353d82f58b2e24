# SPDX-License-Identifier: GPL-2.0
# 31-gcm: the module's own rfc4106(gcm(aes)) (gcm_simd.c, driver rfc4106-gcm-aes-espsw).
# Checks that the module chose the best level the CPU's features allow (aesni-avx with
# AVX, else aesni) and said so without timing anything; that /proc/crypto lists the
# driver with "selftest : passed" and a priority above every other rfc4106(gcm(aes)),
# and that an ESP SA's seqiv() wraps it. Then runs the module's self-test (echo N >
# $KNOBS/gcm_selftest, N random cases per level): at every level this CPU supports the
# kernel's GCM known answers through the core and through the AEAD, a differential test
# against the kernel's rfc4106(gcm_base(ctr(aes-generic),ghash-generic)) (random
# AES-128/192/256 keys, tags of 8/12/16 bytes, lengths 0..9000, random AD with and without
# ESN, random sg splits, in and out of place, single-bit forgeries refused with -EBADMSG),
# the batch entry point, at most 4 KiB of data per FPU section; then the fallback to the
# stock driver, also from inside an FPU section, where it completes asynchronously. The
# write fails if any case does; the test also asks dmesg for every level's "passed".
# Sourced by selftests/run.sh after lib.sh; also runnable alone: bash 31-gcm.sh [ko]
if ! declare -F t_ok >/dev/null; then
	_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	. "$_here/lib.sh"
fi
[ "${BASH_SOURCE[0]}" = "$0" ] && [ -n "${1:-}" ] && ESP_MODULE=$1
GCM_DRIVER=rfc4106-gcm-aes-espsw
GCM_ITERS=${GCM_ITERS:-200}

_gcm_main() {
	local levels="" best lvl out rc log n0 prio stockprio drv
	if [ -z "${ESP_MODULE:-}" ] || [ ! -r "$ESP_MODULE" ]; then
		t_skip "gcm selftest" "no module (ESP_MODULE)"
		return 0
	fi
	if grep -qw aes /proc/cpuinfo && grep -qw pclmulqdq /proc/cpuinfo &&
	   grep -qw sse4_1 /proc/cpuinfo; then
		levels=aesni
		grep -qw avx /proc/cpuinfo && levels="$levels aesni-avx"
	fi
	if [ -z "$levels" ]; then
		t_skip "gcm selftest" "no AES-NI/PCLMULQDQ/SSE4.1: the module does not register its AES-GCM"
		return 0
	fi
	best=${levels##* }
	t_diag "gcm levels on this CPU: $levels"
	load_simd_crypto
	modprobe -q -a gcm ghash_generic aes_generic ctr 2>/dev/null

	# a fresh load: its dmesg line, the crypto manager's self-test of the new driver
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
	t_diag "$(echo "$log" | grep -o 'gcm: using.*')"
	if echo "$log" | grep -q "gcm: using $best AES-GCM (chosen by CPU features; driver $GCM_DRIVER"; then
		t_ok "gcm: the best level this CPU has ($best), by its features"
	else
		t_fail "gcm: the best level this CPU has ($best), by its features" \
			"$(echo "$log" | grep 'gcm:')"
	fi

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
	for lvl in $levels; do
		if echo "$log" | grep -q "gcm selftest $lvl: passed [0-9]* cases"; then
			t_ok "gcm selftest $lvl"
			t_diag "$(echo "$log" | grep -o "gcm selftest $lvl: passed.*")"
		else
			t_fail "gcm selftest $lvl" "$(echo "$log" | grep -i 'gcm selftest' | tail -5)"
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
