#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-allocs.sh - runs INSIDE a VM: which allocations one TCP stream makes per
# 1448-byte segment, by call site, for clear TCP and ESP (AES-GCM-128,
# ChaCha20-Poly1305, transport, IPv4) with the module. Debian's kernels zero every
# allocation (CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y), so bytes allocated are bytes that
# memset_orig (slab) or clear_page_erms (pages) writes: this is what puts `make
# profile`'s memset_orig on its callers. The kmem tracepoints give call site and size;
# "pages" is mm_page_alloc (no call site), page_pool refills among them.
#
#   ESP_MODULE=$PWD/esp_swoffload.ko KV=6.12.95+deb12-amd64 \
#       scripts/vmrun bench/guest-allocs.sh /tmp/allocs
#
# Env: ALLOCS_MB (8) per cell, ALLOCS_CELLS ("clear gcm128 chacha").
# Output: per cell, the top call sites: bytes and allocations per segment.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
cd "$(dirname "$0")/../selftests" || exit 1
export T_RESULTS=/tmp/t_results T_TMP=/tmp/t_tmp
mkdir -p "$T_TMP"; : > "$T_RESULTS"
# shellcheck source=../selftests/lib.sh
. ./lib.sh
MB=${ALLOCS_MB:-8}
T=/sys/kernel/tracing
EVENTS="kmalloc kmem_cache_alloc mm_page_alloc"

load_simd_crypto
modprobe -a esp4 xfrm_user veth || exit 1
if [ -n "${ESP_MODULE:-}" ]; then insmod "$ESP_MODULE" || exit 1; fi
[ -d $T/events ] || mount -t tracefs none $T || exit 1

# trace_allocs ON|OFF
trace_allocs() {
	local e v=0
	[ "$1" = on ] && v=1
	for e in $EVENTS; do echo $v > $T/events/kmem/$e/enable; done
	echo $v > $T/tracing_on
}

# per_segment SEGMENTS: the trace, summed per call site, divided by SEGMENTS
per_segment() {
	awk -v segs="$1" '
	/ kmalloc: | kmem_cache_alloc: / {
		cs = ""; b = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^call_site=/) cs = substr($i, 11)
			if ($i ~ /^bytes_alloc=/) b = substr($i, 13) + 0
		}
		sub(/\+.*/, "", cs)
		k = (/ kmalloc: / ? "kmalloc " : "cache ") cs; n[k]++; s[k] += b
	}
	/ mm_page_alloc: / {
		for (i = 1; i <= NF; i++) if ($i ~ /^order=/) o = substr($i, 7) + 0
		n["pages"]++; s["pages"] += 4096 * 2 ^ o
	}
	END { for (k in s) printf "%9.1f B %6.2f  %s\n", s[k] / segs, n[k] / segs, k }' \
		$T/trace | sort -rn | head -"${ALLOCS_TOP:-14}"
}

cell() {
	local algo=$1
	ns_setup tso-off || { echo "FATAL: ns_setup"; exit 1; }
	if [ "$algo" = clear ]; then ADDR_B=$IP4_B
	else xfrm_setup "$algo" transport 4 || { echo "FATAL: xfrm $algo"; exit 1; }; fi
	xfer a b "$ADDR_B" 1 > /dev/null	# warm: page pools, caches, routes
	echo 0 > $T/tracing_on; echo > $T/trace; echo 131072 > $T/buffer_size_kb
	trace_allocs on
	xfer a b "$ADDR_B" "$MB" || echo "WARNING: $algo: $XFER_WHY"
	trace_allocs off
	echo "== $algo: bytes and allocations per 1448-byte segment ($MB MiB)"
	per_segment $((MB * 1048576 / 1448))
	grep -h overrun $T/per_cpu/cpu*/stats | grep -v ': 0$' | sed 's/^/WARNING: trace /'
	xfrm_flush; ns_cleanup
}

for c in ${ALLOCS_CELLS:-clear gcm128 chacha}; do cell "$c"; done
