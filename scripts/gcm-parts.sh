#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host side, argument [KVER]:
#   How fast could any AES-GCM run in this VM? Builds bench/gcm-parts.c (user space),
#   boots a VM of kernel KVER (default 6.1: newest installed 6.1.x) and, in that one
#   boot, prints 3 repetitions of AES-128-CTR (AES-NI one block at a time, four
#   interleaved, VAES two per instruction) and GHASH (PCLMULQDQ, and constant-time
#   integer multiplications) over 1408-byte buffers, and before and after them the
#   kernel's own rfc4106(gcm(aes)) at 1420 bytes (tcrypt mode=211). Last line: the
#   best CTR and the best GHASH combined (1 / (1/ctr + 1/ghash): AES-GCM is one pass
#   of each) against the best of the kernel's four samples (encryption and
#   decryption, before and after). Guest time is emulated (qemu TCG): only ratios
#   within one run mean anything.
# Env: SMP (default 1), OUT (output dir).
# Inside the guest this script runs again with arguments: --guest BINARY
if [ "${1:-}" = --guest ]; then
	modprobe -q aesni_intel; modprobe -q ghash_clmulni_intel
	# the kernel's AES-GCM before and after the parts: its best run counts
	kernel_gcm() {
		dmesg -C
		modprobe tcrypt mode=211 sec=1 2>/dev/null	# always "fails": it only measures
		dmesg | awk '/testing speed of rfc4106/ {
				what = ($NF == "encryption" ? "enc" : "dec"); drv = $(NF - 1) }
			/1420 byte blocks/ && what { sub(/^.*\(/, "", $0);
				printf "kernel %s %s %.1f MB/s\n", drv, what, $1 / 1e6; what = "" }'
	}
	kernel_gcm
	"$2" || exit 1
	kernel_gcm
	exit 0
fi
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /var/tmp/gcm-parts.XXXXXX)}
mkdir -p "$OUT"
# shellcheck source=hostlib.sh
. "$ROOT/scripts/hostlib.sh"
KVER=$(pick_kv "${1:-6.1}")
[ -n "$KVER" ] || { echo "gcm-parts: no kernel ${1:-6.1} installed (scripts/install-deps.sh)" >&2; exit 1; }
gcc -O2 -Wall -o "$OUT/gcm-parts" "$ROOT/bench/gcm-parts.c" || exit 1
echo "gcm-parts: kernel $KVER, output in $OUT"
KV=$KVER SMP=${SMP:-1} VMRUN_QUIET=1 "$ROOT/scripts/vmrun" "$(readlink -f "$0")" \
	"$OUT" --guest "$OUT/gcm-parts"
rc=$?
cat "$OUT/guest.log" 2>/dev/null
[ $rc = 0 ] || exit $rc
# medians over the 3 repetitions (the first also warms qemu's translation cache)
awk '/MB\/s/ && $1 != "kernel" { name = $1 " " $2 (NF == 5 ? " " $3 : "");
		v[name] = v[name] " " $(NF - 1) }
	$1 == "kernel" { if ($4 > kern) kern = $4; if (!kmin || $4 < kmin) kmin = $4 }
	function med(s,   a, n, i, j, t) { n = split(s, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return a[int((n + 1) / 2)] }
	END {
		for (name in v) { m = med(v[name]);
			if (name ~ /^ctr/ && m > ctr) { ctr = m; cn = name }
			if (name ~ /^ghash/ && m > gh) { gh = m; gn = name } }
		comb = 1 / (1 / ctr + 1 / gh)
		printf "best parts: %s %.1f + %s %.1f MB/s -> AES-GCM at most %.1f MB/s; kernel rfc4106 %.1f-%.1f MB/s: %.2fx its best\n",
			cn, ctr, gn, gh, comb, kmin, kern, (kern ? comb / kern : 0)
	}' "$OUT/guest.log"
