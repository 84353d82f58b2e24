#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/run.sh [MODULE.ko] - run every selftests/NN-*.sh inside the VM (as root).
#
# Loads the crypto drivers (no udev in the guest), esp4/esp6/xfrm_user, then the module
# given as argument or in $ESP_MODULE (when set, the module must load and the tests
# assert that its fast path carried the traffic). Without a module the tests run on the
# stock kernel ESP path and skip the module-specific assertions.
# Output: TAP ("ok N - name", "not ok N - name", "# diagnostics"), then "1..N".
# Exit status: 0 if nothing failed.
# Env: SELFTESTS="10 20" runs only those numbers; T_FILE_TIMEOUT per file (900 s).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] && [ -n "$1" ] && ESP_MODULE=$1
export ESP_MODULE=${ESP_MODULE:-}
export T_RESULTS=/tmp/selftests.results T_TMP=/tmp/selftests.tmp
rm -rf "$T_RESULTS" "$T_TMP"; : > "$T_RESULTS"; mkdir -p "$T_TMP"
. "$HERE/lib.sh"

t_diag "kernel $(uname -r), $(nproc) CPUs, module: ${ESP_MODULE:-none (stock ESP path)}"
for m in aesni_intel ghash_clmulni_intel chacha_x86_64 poly1305_x86_64 sha256_ssse3 \
	 aes_generic gcm chacha20poly1305 cbc hmac sha256_generic; do
	modprobe -q "$m" 2>/dev/null
done
# esp6 cannot load where IPv6 is off (ipv6.disable=1: 15-ipv4only.sh)
esp=esp4; ipv6_up && esp="esp4 esp6"
if modprobe -a $esp xfrm_user; then t_ok "load $esp xfrm_user"
else t_fail "load $esp xfrm_user" "modprobe failed"; fi
modprobe -q veth
hold_nf_keys || t_diag "hold_nf_keys: nft failed; insmod and rmmod will patch LOCAL_OUT"
if [ -n "$ESP_MODULE" ]; then
	if [ ! -r "$ESP_MODULE" ]; then
		t_fail "insmod $(basename "$ESP_MODULE")" "no such file: $ESP_MODULE"
	elif out=$(insmod "$ESP_MODULE" 2>&1) && [ -r /proc/net/esp_swoffload ]; then
		t_ok "insmod $(basename "$ESP_MODULE")"
	else
		t_fail "insmod $(basename "$ESP_MODULE")" "$out" \
			"$( [ -r /proc/net/esp_swoffload ] || echo 'no /proc/net/esp_swoffload')" \
			"$(dmesg | tail -15)"
	fi
fi
t_diag "crypto: $(awk '/^driver/ {print $3}' /proc/crypto | grep -E 'aesni|clmul|chacha|poly|ssse3|avx' | sort -u | tr '\n' ' ')"

for f in "$HERE"/[0-9][0-9]-*.sh; do
	[ -e "$f" ] || continue
	b=$(basename "$f")
	if [ -n "${SELFTESTS:-}" ] && ! echo " $SELFTESTS " | grep -q " ${b%%-*} "; then continue; fi
	t_diag "---- $b"
	before=$(grep -c '^fail' "$T_RESULTS")
	start=$(date +%s)
	timeout -k 10 "${T_FILE_TIMEOUT:-900}" bash -c '. "$1"; . "$2"' _ "$HERE/lib.sh" "$f"
	rc=$?
	after=$(grep -c '^fail' "$T_RESULTS")
	t_diag "$b: rc=$rc, $(( $(date +%s) - start )) s (guest clock)"
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		t_fail "$b finished" "timed out after ${T_FILE_TIMEOUT:-900}s"
	elif [ $rc -ne 0 ] && [ "$after" = "$before" ]; then
		t_fail "$b finished" "exited with status $rc without reporting a failure"
	fi
	. "$HERE/lib.sh"; ns_cleanup
	kernel_log_check "$b: kernel log clean"
done

# kmemleak (make check-debug's kernel): leaks whose allocation went through the module,
# or through code no longer loaded (the module reloaded: its frames stay unresolved)
KML=/sys/kernel/debug/kmemleak
if [ -w "$KML" ]; then
	# an object is reported once it went unreferenced through a scan 5 s after allocation
	if echo scan 2> /dev/null > "$KML"; then t_ok "kmemleak: on, scanning"
	else t_fail "kmemleak: on, scanning" "$(dmesg | grep -i kmemleak | tail -3)"; fi
	sleep 6; echo scan 2> /dev/null > "$KML"
	cat "$KML" > "$T_TMP/kmemleak"
	all=$(grep -c '^unreferenced object' "$T_TMP/kmemleak")
	awk -v ours="$T_MODULE_CODE|[]] 0xffffffffc" 'BEGIN {RS = "unreferenced object"}
		NR > 1 && $0 ~ ours {print "unreferenced object" $0}' "$T_TMP/kmemleak" > "$T_TMP/kmemleak.ours"
	ours=$(grep -c '^unreferenced object' "$T_TMP/kmemleak.ours")
	t_diag "kmemleak: $all unreferenced objects in all"
	if [ "$ours" -eq 0 ]; then t_ok "kmemleak: no leak allocated through esp_swoffload"
	else t_fail "kmemleak: no leak allocated through esp_swoffload" "$ours such objects" \
		"$(head -60 "$T_TMP/kmemleak.ours")"; fi
fi

n=$(wc -l < "$T_RESULTS")
nfail=$(grep -c '^fail' "$T_RESULTS")
nskip=$(grep -c '^skip' "$T_RESULTS")
echo "1..$n"
t_diag "selftests: $((n - nfail - nskip)) passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
