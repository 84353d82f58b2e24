# SPDX-License-Identifier: GPL-2.0
# 16-linger: SAs that outlive their deletion in skbs parked on a CPU's deferred-free
# list (see flush_defer_lists in lib.sh and docs/design.md, "Loading and unloading"). Each round
# sends 2 MiB over an AES-GCM and a ChaCha20-Poly1305 SA, flushes the SAs and deletes
# the namespaces, and watches esp4's use count, which every live ESP SA adds to. A
# round whose count stays up for 8 s left an SA behind; flush_defer_lists must then
# release it. Opt-in, as it takes 5-10 s per round under emulation:
#   SELFTESTS=16 SA_LINGER_ROUNDS=24 VM_ENV="SELFTESTS SA_LINGER_ROUNDS" \
#   KV=6.1.0-57-amd64 ESP_MODULE=$PWD/esp_swoffload.ko scripts/vmrun selftests/run.sh OUT
# Without ESP_MODULE, the stock path; add SA_LINGER_STOCK_OFFLOAD=1 (and the variable
# to VM_ENV) for stock esp4_offload.
rounds=${SA_LINGER_ROUNDS:-0}
if [ "$rounds" -eq 0 ]; then
	t_skip "SAs left behind after deletion" "opt-in: SA_LINGER_ROUNDS=N"
	return 0 2>/dev/null || exit 0
fi
if [ "${SA_LINGER_STOCK_OFFLOAD:-0}" = 1 ] && ! have_module; then
	t_check "stock esp4_offload loaded" modprobe esp4_offload
fi
t_diag "ESP offload: $(grep -oE '^(esp_swoffload|esp4_offload) ' /proc/modules || echo none)"

esp4_refs() { awk '$1 == "esp4" {print $3}' /proc/modules; }

left=0 base0=$(esp4_refs)
for r in $(seq 1 "$rounds"); do
	base=$(esp4_refs)
	ns_setup tso-off || { t_fail "round $r: netns setup"; break; }
	for algo in gcm128 chacha; do
		xfrm_setup $algo transport 4 && xfer a b "$ADDR_B" 2 ||
			t_diag "round $r $algo: transfer failed: $XFER_WHY"
	done
	sleep 1
	xfrm_flush
	ns_cleanup
	for i in 1 2 3 4 5 6 7 8; do
		[ "$(esp4_refs)" -le "$base" ] && break
		sleep 1
	done
	[ "$(esp4_refs)" -le "$base" ] && continue
	left=$((left + 1))
	t_diag "round $r: esp4 used $(esp4_refs) times, $base before: an SA left behind"
	flush_defer_lists
	sleep 1
	t_expect "round $r: the SA left behind goes with flush_defer_lists (esp4 used $(esp4_refs), $base before)" \
		"$(esp4_refs)" -le "$base"
done
t_diag "SAs left behind after deletion: $left of $rounds rounds"
flush_defer_lists
sleep 1
t_expect "after $rounds rounds, no SA left (esp4 used $(esp4_refs), $base0 before)" \
	"$(esp4_refs)" -le "$base0"
