#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host side, argument [KVER]:
#   Build esp_swoffload.ko for KVER (default 6.1: newest installed 6.1.x), boot a VM and
#   print the chacha_simd micro-benchmark (insmod esp_swoffload.ko chacha_bench=1):
#   first the load-time selection line (chacha_impl=auto times every level and binds
#   the fastest), then rfc7539esp encryption MB/s at 64/576/1420/8192 bytes for every
#   ChaCha20 level the guest CPU has (generic, ssse3, avx2, avx512), for 16 requests
#   per esp_chacha_batch() at the selected level and for the stock template
#   rfc7539esp(chacha20-simd,poly1305-simd); then the raw ChaCha20 keystream per level
#   against the kernel's chacha20-simd. Guest time is emulated (qemu TCG): only the
#   ratios within one run mean anything.
# Env: SMP (default 1: fewer threads competing for the host), OUT (output dir).
# Inside the guest this script runs again with arguments: --guest MODULE.ko
if [ "${1:-}" = --guest ]; then
	modprobe -a esp4 esp6 2>/dev/null
	for m in chacha_x86_64 poly1305_x86_64 chacha20poly1305 chacha_generic poly1305_generic; do
		modprobe -q "$m" 2>/dev/null
	done
	rmmod esp_swoffload 2>/dev/null
	n0=$(dmesg | wc -l)
	if ! insmod "$2" chacha_bench=1; then
		dmesg | tail -20
		exit 1
	fi
	dmesg | tail -n +"$((n0 + 1))" | grep 'chacha' | sed 's/^\[[^]]*\] //'
	rmmod esp_swoffload
	exit 0
fi
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /var/tmp/chacha-bench.XXXXXX)}
mkdir -p "$OUT"
# build.sh takes a version or a prefix (6.1, 6.12); its last stdout line is the .ko
KO=$("$ROOT/scripts/build.sh" "${1:-6.1}" 2> "$OUT/build.log" | tail -1)
if [ ! -r "$KO" ]; then
	echo "chacha-bench: build failed, see $OUT/build.log" >&2
	tail -20 "$OUT/build.log" >&2
	exit 1
fi
KVER=$(basename "$(dirname "$KO")")
echo "chacha-bench: kernel $KVER, module $KO, output in $OUT"
KV=$KVER SMP=${SMP:-1} VMRUN_QUIET=1 "$ROOT/scripts/vmrun" "$(readlink -f "$0")" \
	"$OUT" --guest "$KO"
rc=$?
cat "$OUT/guest.log" 2>/dev/null
exit $rc
