#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - `make demo`: install what is missing, build esp_swoffload.ko, boot one VM and
# print iperf3 throughput (IPv4, one TCP stream over veth between two netns, ESP transport
# mode) for clear, esp-null, AES-GCM and ChaCha20-Poly1305, on the stock kernel and with
# the module loaded, plus the ratio module/stock per row.
#
# Env: KV      kernel (default: newest 6.1.x under /lib/modules; KV=6.12 picks 6.12.x)
#      DEMO_T  seconds per iperf3 run (5)      DEMO_REPS repetitions, median shown (1)
#      VMRUN   VM runner (default scripts/vmrun)
# Raw data (iperf3 JSON, guest log) goes to bench/out/demo-<date>-<kver>/.
# scripts/demo.sh --analyze DIR   print the table again from a run's raw data (no VM)
# scripts/demo.sh --swan          `make demo-swan`: the same, but the SAs are negotiated
#   by two strongSwan charons (IKEv2, PSK; bench/guest-swan.sh): aes128gcm16 and
#   chacha20poly1305 transport-mode child SAs, stock kernel vs module.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ANALYZE= SWAN=
if [ "${1:-}" = --analyze ]; then
	ANALYZE=$(readlink -f "${2:?usage: $0 --analyze DIR}")
elif [ "${1:-}" = --swan ]; then
	SWAN=1
fi
cd "$ROOT" || exit 1
T=${DEMO_T:-5}
REPS=${DEMO_REPS:-1}
VMRUN=${VMRUN:-$ROOT/scripts/vmrun}
say() { echo "demo: $*" >&2; }

# shellcheck source=hostlib.sh
. "$ROOT/scripts/hostlib.sh"

if [ -n "$ANALYZE" ]; then
	# shellcheck disable=SC1091
	. "$ANALYZE/config.sh" || exit 1
	OUT=$ANALYZE VRC=$(cat "$OUT/vmrc" 2>/dev/null || echo 0) SECS="?"
else
# ---- dependencies
ensure_deps "qemu-system-x86_64 busybox iperf3 ethtool ip python3 cpio modprobe make gcc ${SWAN:+swanctl jq}" \
	"qemu-system-x86 busybox-static iperf3 ethtool iproute2 kmod python3 cpio xz-utils make gcc ${SWAN:+strongswan-charon strongswan-swanctl jq}" ||
	exit 1
KV=$(pick_kv "${KV:-}")
[ -n "$KV" ] || { say "no kernel found under /lib/modules"; exit 1; }
[ -x "$VMRUN" ] || { say "no VM runner at $VMRUN"; exit 1; }
OUT=$ROOT/bench/out/demo${SWAN:+-swan}-$(date +%Y%m%d-%H%M%S)-$KV
mkdir -p "$OUT"

# ---- build
MODULE='' MODNOTE=''
say "building esp_swoffload.ko for $KV"
if [ -x scripts/build.sh ]; then
	# a private build dir: no race with a concurrent `make check` building the same kernel
	MODULE=$(BUILD_DIR="$OUT/build" scripts/build.sh "$KV" 2>"$OUT/build.log" | tail -1)
else
	make KVER="$KV" >"$OUT/build.log" 2>&1 && MODULE=$ROOT/esp_swoffload.ko
fi
if [ -z "$MODULE" ] || [ ! -r "$MODULE" ]; then
	MODNOTE="build failed (see $OUT/build.log)"; MODULE=
	tail -5 "$OUT/build.log" | sed 's/^/    /' >&2
elif [ "$(modinfo -F vermagic "$MODULE" 2>/dev/null | awk '{print $1}')" != "$KV" ]; then
	MODNOTE="$MODULE was not built for $KV"; MODULE=
fi
[ -n "$MODNOTE" ] && say "WARNING: module $MODNOTE; showing the stock kernel only"

if [ -n "$SWAN" ]; then
	printf 'T=%s\nREPS=%s\nMODULE="%s"\n' "$T" "$REPS" "$MODULE" > "$OUT/config.sh"
	say "booting a 2-vCPU VM ($KV, emulated): strongSwan IKEv2, 4 iperf3 runs of ${T}s x $REPS"
	START=$(date +%s)
	KV=$KV SMP=2 TIMEOUT=$((300 + 4 * REPS * (T + 60))) VMRUN_QUIET=1 \
		"$VMRUN" "$ROOT/bench/guest-swan.sh" "$OUT" > "$OUT/vmrun.log" 2>&1 &
	VPID=$!
	tail -n +1 -F --pid=$VPID "$OUT/guest.log" 2>/dev/null | sed -u 's/^/  vm /' >&2 &
	TPID=$!
	wait $VPID
	VRC=$?
	sleep 1; kill $TPID 2>/dev/null; wait $TPID 2>/dev/null
	[ -s "$OUT/swan.tsv" ] || { say "no results (VM status $VRC); see $OUT"; exit 1; }
	python3 - "$OUT" "$KV" "$T" "$REPS" "$(( $(date +%s) - START ))" <<'PYEOF'
import statistics, sys
out, kv, T, reps, secs = sys.argv[1:6]
res = {}
for line in open(out + "/swan.tsv"):
    phase, alg, rep, bps, retr, dtx, drx, spi = line.rstrip("\n").split("\t")
    e = res.setdefault((alg, phase), {"mbps": [], "retr": 0, "fast": 0, "spis": []})
    e["mbps"].append(int(bps) / 1e6)
    e["retr"] += int(retr)
    e["fast"] += int(dtx) > 0 and int(drx) > 0
    e["spis"].append(spi)
print()
print("esp_swoffload demo, strongSwan: kernel %s, 2-vCPU emulated VM, IPv4, one TCP stream,"
      " iperf3 -t %s%s" % (kv, T, "" if reps == "1" else ", median of %s" % reps))
print("two charon instances (IKEv2, PSK) negotiate an ESP transport-mode child SA per row;")
print("fast path = runs in which the module's tx_segments and rx_gro_packets both grew")
print()
print("  %-20s %15s %19s %14s %8s %10s" % ("", "stock kernel", "with esp_swoffload",
                                           "module/stock", "retr", "fast path"))
ok = True
for alg, lab in (("gcm", "aes128gcm16"), ("chacha", "chacha20poly1305")):
    s, m = res.get((alg, "stock")), res.get((alg, "module"))
    sv = statistics.median(s["mbps"]) if s else None
    mv = statistics.median(m["mbps"]) if m else None
    fs = lambda v: "%8.1f Mbit/s" % v if v is not None else "n/a"
    print("  %-20s %15s %19s %14s %8s %10s" % (
        lab, fs(sv), fs(mv), "%.2fx" % (mv / sv) if sv and mv else "-",
        "%s/%s" % (s["retr"] if s else "-", m["retr"] if m else "-"),
        "%d/%d" % (m["fast"], len(m["mbps"])) if m else "-"))
    ok = ok and bool(m) and m["fast"] == len(m["mbps"])
print("  (retr = TCP retransmits, stock/module; each run negotiated its own SA)")
print("  (VM run %s s; raw data in %s)" % (secs, out))
sys.exit(0 if ok else 1)
PYEOF
	exit $?
fi

# ---- one VM: stock first, then with the module
cat >"$OUT/config.sh" <<EOF
T=$T
REPS=$REPS
FAMS="4"
PHASES="stock:clear_gso,null,gcm,chacha module:clear_gso,null,gcm,chacha"
MODULE="$MODULE"
TCRYPT=0
KV="$KV"
MODNOTE="$MODNOTE"
EOF
say "booting a 2-vCPU VM ($KV, emulated) for 8 iperf3 runs of ${T}s x $REPS; about $(( (40 + 8 * REPS * (T + 6)) / 60 + 1 )) min"
START=$(date +%s)
KV=$KV SMP=2 TIMEOUT=$((300 + 8 * REPS * (T + 40))) "$VMRUN" "$ROOT/bench/guest-bench.sh" "$OUT" >"$OUT/vmrun.log" 2>&1 &
VPID=$!
tail -n +1 -F --pid=$VPID "$OUT/guest.log" 2>/dev/null | sed -u 's/^/  vm /' >&2 &
TPID=$!
wait $VPID
VRC=$?
SECS=$(( $(date +%s) - START ))
echo $VRC >"$OUT/vmrc"
sleep 1; kill $TPID 2>/dev/null; wait $TPID 2>/dev/null
[ $VRC -eq 0 ] || { say "VM run ended with status $VRC; tail of $OUT/vmrun.log:"; tail -10 "$OUT/vmrun.log" >&2; }
fi # not --analyze
[ -s "$OUT/runs.tsv" ] || { say "no results in $OUT"; exit 1; }

python3 - "$OUT" "$KV" "$T" "$REPS" "$MODNOTE" "$SECS" <<'PYEOF'
import csv, json, os, statistics, sys
out, kv, T, reps, modnote, secs = sys.argv[1:7]
rows = [("clear_gso", "clear (no IPsec)"), ("null", "esp-null"),
        ("gcm", "aes-gcm-128 (rfc4106)"), ("chacha", "chacha20-poly1305")]
res = {}
for r in csv.DictReader(open(os.path.join(out, "runs.tsv")), delimiter="\t"):
    k = (r["cell"], r["mode"])
    e = res.setdefault(k, {"mbps": [], "retr": 0, "fast": True, "note": ""})
    if r["status"] != "ok":
        e["note"] = r["note"]
        continue
    try:
        d = json.load(open(os.path.join(out, "raw", r["json"])))["end"]
    except Exception as ex:  # noqa: BLE001
        e["note"] = "bad iperf3 output: %s" % ex
        continue
    e["mbps"].append(d["sum_received"]["bits_per_second"] / 1e6)
    e["retr"] += d["sum_sent"].get("retransmits", 0)
    if r["mode"] == "module" and not r["cell"].startswith("clear"):
        e["fast"] = e["fast"] and int(r["tx_segments"]) > 0 and int(r["rx_gro_packets"]) > 0
med = lambda e: statistics.median(e["mbps"]) if e and e["mbps"] else None
print()
print("esp_swoffload demo: kernel %s, 2-vCPU emulated VM, IPv4, one TCP stream, iperf3 -t %s%s"
      % (kv, T, "" if reps == "1" else ", median of %s" % reps))
print("ESP in transport mode between two network namespaces over veth (VM time is emulated:")
print("compare the ratios, not the absolute numbers)")
print()
print("  %-24s %15s %19s %14s %8s" % ("", "stock kernel", "with esp_swoffload", "module/stock", "retr"))
notes = []
for cell, lab in rows:
    s, m = res.get((cell, "stock")), res.get((cell, "module"))
    sv, mv = med(s), med(m)
    ratio = "%.2fx" % (mv / sv) if sv and mv else "-"
    fs = lambda v: "%8.1f Mbit/s" % v if v is not None else "n/a"
    retr = "%s/%s" % (s["retr"] if s and s["mbps"] else "-", m["retr"] if m and m["mbps"] else "-")
    print("  %-24s %15s %19s %14s %8s" % (lab, fs(sv), fs(mv), ratio, retr))
    if m and not cell.startswith("clear") and m["mbps"] and not m["fast"]:
        notes.append("%s: the module's counters did not grow (traffic took the stock path)" % lab)
    for e, w in ((s, "stock"), (m, "module")):
        if e and e["note"] and not e["mbps"]:
            notes.append("%s: %s" % (w if e["note"].startswith("module not built") else "%s, %s" % (lab, w),
                                     e["note"][:100]))
print("  (retr = TCP retransmits, stock/module)")
for n in dict.fromkeys(notes):
    print("  note: " + n)
if modnote:
    print("  note: module " + modnote)
print("  (VM run %s s; raw data in %s)" % (secs, os.path.relpath(out)))
PYEOF
[ $VRC -eq 0 ] && [ -z "$MODNOTE" ] || exit 1
exit 0
