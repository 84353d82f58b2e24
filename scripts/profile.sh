#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# profile.sh - `make profile`: where the guest's instructions go, by kernel function.
#
# Boots one VM under bench/insn's plugin (profile=on) and runs bench/guest-profile.sh:
# one iperf3 stream over veth (TSO off, GSO + GRO) per cell, clear and ESP transport
# mode, with esp_swoffload.ko (and, with PROFILE_MODES, esp4/6_offload or the stock
# path). Prints per run the top kernel functions in instructions per payload byte and
# per 1448-byte segment (both ends: the whole guest), and per ESP run what it costs
# over clear TCP, by kind (crypto, xfrm, the module, checksums, copies, allocation,
# GRO, segmentation, ...) and by function. Counts are native-equivalent
# (scripts/insn.py): a rep-string instruction once per start plus its bytes / 32.
#
# Env: KV (default newest 6.1.x; KV=6.12)   PROFILE_T (5 s)   PROFILE_FAMS ("4")
#      PROFILE_CELLS ("clear null gcm128 chacha"; also clear_tso: clear with TSO on;
#      a cell named twice runs twice)   PROFILE_MODES ("module"; e.g.
#      "module offload")   PROFILE_AB (module switches, e.g. "tx_recycle=0 rx_decap=0":
#      the module's ESP cells again with each set)   PROFILE_TOP (30)   VMRUN (scripts/vmrun)
# scripts/profile.sh --analyze bench/out/profile-<run>   the report again (no VM)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
VMRUN=${VMRUN:-$ROOT/scripts/vmrun}
say() { echo "profile: $*" >&2; }
# shellcheck source=hostlib.sh
. "$ROOT/scripts/hostlib.sh"

if [ "${1:-}" = --analyze ]; then
	OUT=$(readlink -f "${2:?usage: $0 --analyze DIR}")
else
	# an unknown cell would run as clear TCP under its name (no SA); the
	# algorithms are the ones selftests/lib.sh's xfrm_setup knows
	cells="clear clear_tso $(sed -n 's/^ALGOS="\(.*\)"$/\1/p' selftests/lib.sh)"
	for c in ${PROFILE_CELLS:-}; do
		case " $cells " in
		*" $c "*) ;;
		*) say "unknown cell '$c': $cells"; exit 2 ;;
		esac
	done
	prepare_vm_run profile
	make -s -C bench/insn OUT="$OUT/insn-bin" >"$OUT/insn-build.log" 2>&1 ||
		{ tail -5 "$OUT/insn-build.log" >&2; say "plugin build failed"; exit 1; }
	MOD=$MODULE MARK=$OUT/insn-bin/insn-mark
	export MOD MARK PROFILE_T=${PROFILE_T:-5} PROFILE_FAMS=${PROFILE_FAMS:-4} \
		PROFILE_CELLS=${PROFILE_CELLS:-clear null gcm128 chacha} \
		PROFILE_MODES=${PROFILE_MODES:-module} PROFILE_AB=${PROFILE_AB:-}
	say "kernel $KV, cells '$PROFILE_CELLS', modes '$PROFILE_MODES', ${PROFILE_T} s each; raw data in $OUT"
	KV=$KV TIMEOUT=${PROFILE_TIMEOUT:-1800} \
		VM_ENV="MOD MARK PROFILE_T PROFILE_FAMS PROFILE_CELLS PROFILE_MODES PROFILE_AB" \
		QEMU_EXTRA="${QEMU_EXTRA:-} -plugin $OUT/insn-bin/insn-plugin.so,out=$OUT/insn.txt,profile=on" \
		"$VMRUN" "$ROOT/bench/guest-profile.sh" "$OUT" >"$OUT/vmrun.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { say "VM run failed (status $rc); see $OUT/vmrun.log"; tail -5 "$OUT/vmrun.log" >&2; }
fi
[ -s "$OUT/runs.tsv" ] || { say "no results in $OUT"; exit 1; }
python3 "$ROOT/scripts/insn.py" report "$OUT" --top "${PROFILE_TOP:-30}" | tee "$OUT/report.txt"
