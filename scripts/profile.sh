#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# profile.sh - `make profile`: where the CPU goes, per GB, in the module's cells.
#
# Boots one VM and runs bench/guest-profile.sh: iperf3 over veth (TSO off, GSO + GRO),
# clear, esp-null, AES-GCM-128 and ChaCha20-Poly1305 in transport mode, with
# esp_swoffload.ko's stage timing on (module parameter stage_timing=1). Prints, per
# cell, the medians of guest CPU-s/GB in total and in each of the module's stages:
#   tx_segment  eso_gso_segment(): segmentation with its copy+checksum, numbering, and
#               for ChaCha the batch encryption
#   tx_xmit     eso_xmit(): per segment esp_output_head/tail and the AEAD (gcm, null)
#   rx_gro      the GRO callback: SA lookup, checks, hand-off to the SA's home CPU
#   rx_input    the home CPU's NAPI: ChaCha batch decryption and xfrm_input() (replay,
#               decryption, decapsulation, queueing on gro_cells)
#   rest        the rest of the kernel and iperf3: TCP, veth, GRO of the inner
#               packets, the inner checksum check, copies to and from user space
# and what the timing costs (gcm with stage_timing=0), and how much of each vCPU an
# idle soaker found free during each cell (perf cannot see this workload under TCG).
#
# Env: KV (default newest 6.1.x; KV=6.12)   PROFILE_T (5 s)   PROFILE_REPS (3)
#      PROFILE_FAMS ("4"; "4 6" for both)   PROFILE_CELLS ("clear null gcm128 chacha")
#      PROFILE_AB=<module parameter>: also run every ESP cell with it =N, alternating
#      with =Y (a before/after in one boot)   PROFILE_SOAK (1; 0: no soaker)
#      VMRUN (scripts/vmrun)
# scripts/profile.sh --analyze bench/out/profile-<run>   redo the table (no VM)
# Raw data: bench/out/profile-<date>-<kver>/ (runs.tsv, soak.tsv, guest.log).
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
	prepare_vm_run profile
	MOD=$MODULE
	export MOD PROFILE_T=${PROFILE_T:-5} PROFILE_REPS=${PROFILE_REPS:-3} PROFILE_FAMS=${PROFILE_FAMS:-4} \
		PROFILE_CELLS=${PROFILE_CELLS:-clear null gcm128 chacha} PROFILE_AB=${PROFILE_AB:-} \
		PROFILE_SOAK=${PROFILE_SOAK:-1}
	say "kernel $KV, ${PROFILE_REPS} reps of ${PROFILE_T} s per cell; raw data in $OUT"
	KV=$KV TIMEOUT=1800 VM_ENV="MOD PROFILE_T PROFILE_REPS PROFILE_FAMS PROFILE_CELLS PROFILE_AB PROFILE_SOAK" \
		"$VMRUN" "$ROOT/bench/guest-profile.sh" "$OUT" >"$OUT/vmrun.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { say "VM run failed (status $rc); see $OUT/vmrun.log"; tail -5 "$OUT/vmrun.log" >&2; }
fi
[ -s "$OUT/runs.tsv" ] || { say "no results in $OUT"; exit 1; }

python3 - "$OUT" <<'PYEOF'
import csv, os, statistics, sys
out = sys.argv[1]
meta = dict(l.split(None, 1) for l in open(os.path.join(out, "meta")) if l.strip())
hz = int(meta["hz"])
names = [s[3:] for s in meta["stages"].split()]  # ns_tx_segment -> tx_segment
rows = list(csv.DictReader(open(os.path.join(out, "runs.tsv")), delimiter="\t"))
med = lambda v: statistics.median(v) if v else float("nan")
cells = {}
for r in rows:
    gb = int(r["bytes"]) / 1e9
    if gb <= 0:
        continue
    s0 = [int(x) for x in r["stages0"].split()]
    s1 = [int(x) for x in r["stages1"].split()]
    st = [(b - a) / 1e9 / gb for a, b in zip(s0, s1)]
    tot = int(r["busy_jiffies"]) / hz / gb
    key = (r["fam"], r["cell"], r["variant"])
    cells.setdefault(key, []).append((int(r["bps"]) / 1e6, tot, st, int(r["retrans"])))

print("Guest CPU-seconds per GB (medians over repetitions), stage_timing=1:")
hdr = ["cell", "Mbit/s", "total"] + names + ["rest", "retr"]
print("%-22s" % hdr[0] + "".join("%11s" % h for h in hdr[1:]))
order = {"clear": 0, "null": 1, "gcm128": 2, "chacha": 3}
for key in sorted(cells, key=lambda k: (k[0], order.get(k[1], 9), k[1], k[2])):
    fam, c, variant = key
    if variant == "stage_timing=0":
        continue
    v = cells[key]
    mb = med([x[0] for x in v]); tot = med([x[1] for x in v])
    st = [med([x[2][i] for x in v]) for i in range(len(names))]
    rest = med([x[1] - sum(x[2]) for x in v])
    retr = sum(x[3] for x in v)
    label = "v%s %s" % (fam, c) + ("" if variant == "-" else " " + variant)
    print("%-22s" % label + "%11.1f%11.1f" % (mb, tot) +
          "".join("%11.1f" % s for s in st) + "%11.1f%11d" % (rest, retr))
for fam in sorted({k[0] for k in cells}):
    u = cells.get((fam, "gcm128", "stage_timing=0")); t = cells.get((fam, "gcm128", "-"))
    if u and t:
        print("v%s gcm128 with stage_timing=0: %.1f Mbit/s, %.1f CPU-s/GB (timed: %.1f, %.1f)" %
              (fam, med([x[0] for x in u]), med([x[1] for x in u]),
               med([x[0] for x in t]), med([x[1] for x in t])))

sp = os.path.join(out, "soak.tsv")
if os.path.exists(sp):
    soak = list(csv.DictReader(open(sp), delimiter="\t"))
    idle = [sum(int(b) for b in r["bytes_per_cpu"].split()) / max(len(r["bytes_per_cpu"].split()), 1)
            for r in soak if r["cell"] == "idle" and r["bytes_per_cpu"].strip()]
    if idle:
        base = med(idle)
        print("\nvCPU time left free during each stream (SCHED_IDLE soaker, v4, vs. %d MB per vCPU idle):" %
              (base / 1e6))
        for r in soak:
            if r["cell"] == "idle" or not r["bytes_per_cpu"].strip():
                continue
            free = ["%.0f%%" % (100 * int(b) / base) for b in r["bytes_per_cpu"].split()]
            print("  %-8s free per vCPU: %s" % (r["cell"], " ".join(free)))
PYEOF
