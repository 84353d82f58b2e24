#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The analysis of a `make bench` run (scripts/bench.sh): medians, goals, JSON, chart data.

  bench_analyze.py RUN_DIR RESULTS_DIR   table on stdout, RESULTS_DIR/results.json,
                                         RUN_DIR/plot-*.dat and table.txt
  bench_analyze.py --compare RUN_A RUN_B  each cell's median insn/B in two runs, their
                                         difference, and how many cells agree within 3 %
  bench_analyze.py --selftest            a made-up run with known answers

The measure is guest instructions per payload byte (bench/insn/insn-plugin.c, both
vCPUs, the whole guest: both ends of the connection), "native-equivalent" as
scripts/insn.py prices rep-string instructions; raw counts are kept next to them.
Mbit/s and CPU-s/GB are TCG time, secondary. Native timings of the crypto code on the
host (bench/native, RUN_DIR/native.log) are added when present.
"""
import csv
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import insn  # noqa: E402

CELLS = [("clear_tso", "clear, TSO on"), ("clear_gso", "clear, TSO off + GSO/GRO"),
         ("null", "esp-null"), ("gcm", "rfc4106(gcm(aes)) 128"),
         ("chacha", "rfc7539esp(chacha20,poly1305)")]
MODES = [("stock", "stock esp"), ("offload", "+esp_offload"), ("module", "+esp_swoffload")]
PLABEL = {"clear_tso": "clear, TSO on", "clear_gso": "clear, TSO off", "null": "esp-null",
          "gcm": "AES-GCM-128", "chacha": "ChaCha20-Poly1305"}

# (name, numerator (cell, mode), denominator (cell, mode), op, target): issues #26, #27
GOALS = [
    ("esp-null module / clear (TSO off)", ("null", "module"), ("clear_gso", "stock"), "<=", 1.4),
    ("esp-null module / esp-null esp_offload", ("null", "module"), ("null", "offload"), "<=", 0.5),
    ("chacha module / chacha esp_offload", ("chacha", "module"), ("chacha", "offload"), "<=", 0.6),
    ("gcm module / esp-null module", ("gcm", "module"), ("null", "module"), "<=", 1.25),
    ("gcm module / gcm esp_offload", ("gcm", "module"), ("gcm", "offload"), "<=", 0.6),
]


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def counter_delta(out, json_name, key):
    """A counter's growth over a run, from guest-bench.sh's snapshots, or None."""
    base = os.path.join(out, "raw", json_name[:-len(".json")])
    vals = []
    for suffix in (".counters0", ".counters1"):
        try:
            with open(base + suffix) as f:
                v = [int(l.split()[2]) for l in f if l.split()[:2] == key.split()]
        except (OSError, ValueError, IndexError):
            return None
        if not v:
            return None
        vals.append(v[0])
    return vals[1] - vals[0]


def nstat_value(out, json_name, key):
    """A TCP counter of one end over a run (guest-bench.sh's raw/*.nstat: "a Name N ...").
    nstat leaves out counters that did not move: 0 then; None without the file."""
    path = os.path.join(out, "raw", json_name[:-len(".json")] + ".nstat")
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if p[:2] == key.split() and len(p) >= 3:
                    return int(p[2])
    except (OSError, ValueError):
        return None
    return 0


def load_runs(out):
    snaps = None
    ipath = os.path.join(out, "insn.txt")
    if os.path.exists(ipath):
        snaps, _ = insn.read_snaps(ipath)
    runs = []
    with open(os.path.join(out, "runs.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            r["fam"] = int(r["fam"])
            if r["status"] == "ok":
                try:
                    d = json.load(open(os.path.join(out, "raw", r["json"])))
                    if d.get("error"):
                        raise ValueError(d["error"])
                    e = d["end"]
                    r["mbps"] = e["sum_received"]["bits_per_second"] / 1e6
                    r["bytes"] = e["sum_received"]["bytes"]
                    r["retrans"] = e["sum_sent"].get("retransmits", 0)
                    # retransmits the receiver reported as duplicates (D-SACK): the
                    # originals arrived, out of order
                    r["dsack"] = nstat_value(out, r["json"], "a TcpExtTCPDSACKRecvSegs")
                    # the receiver's ACKs per MB: each wakes both ends, and their
                    # number follows TCG's timing (docs/performance.md, "Repeatability")
                    acks = nstat_value(out, r["json"], "b TcpOutSegs")
                    r["acks_per_mb"] = (acks / (r["bytes"] / 1e6)
                                        if acks is not None and r["bytes"] else None)
                    hz = int(r["hz"]) or 100
                    r["cpu_s"] = int(r["busy_jiffies"]) / hz
                    r["cpu_s_per_gb"] = r["cpu_s"] / (r["bytes"] / 1e9) if r["bytes"] else None
                    esp = int(r["esp_bytes"] or 0)
                    r["esp_ok"] = None if r["cell"].startswith("clear") else esp >= 0.9 * r["bytes"]
                    r["insn_native"] = r["insn_raw"] = None
                    # segments per GSO packet: what the per-packet costs spread over
                    gso = counter_delta(out, r["json"], "a tx_gso_skbs")
                    seg = counter_delta(out, r["json"], "a tx_segments")
                    r["segs_per_gso"] = seg / gso if gso and seg else None
                    t0, t1 = r.get("insn_t0", "-"), r.get("insn_t1", "-")
                    if snaps is not None and t0 not in ("-", None, ""):
                        # a window of the transfer (guest-bench.sh), with the payload
                        # bytes received in it; older runs marked the whole run
                        nb = r["bytes"]
                        if r.get("win_bytes") not in ("-", None, ""):
                            nb = int(r["win_bytes"])
                            # both readings inside the transfer: 0 < window <= run
                            if not 0 < nb <= r["bytes"]:
                                raise ValueError("the window's %d bytes are not within the "
                                                 "transfer's %d: a marker fell outside it"
                                                 % (nb, r["bytes"]))
                        r["insn_bytes"] = nb
                        iv = insn.interval(snaps, int(t0), int(t1))
                        r["insn_native"] = iv["native"] / nb
                        r["insn_raw"] = iv["raw"] / nb
                        r["insn_kernel"] = iv["native_kernel"] / nb
                        r["rep_bytes_per_B"] = iv["rep_bytes"] / nb
                        # spin-waits: left out of insn_native, kept here
                        r["insn_spin"] = iv["spin"] / nb
                    w0, w1 = r.get("whole_t0", "-"), r.get("whole_t1", "-")
                    if snaps is not None and w0 not in ("-", None, ""):
                        # the whole run, start-up and teardown included: for comparison
                        r["insn_native_whole"] = \
                            insn.interval(snaps, int(w0), int(w1))["native"] / r["bytes"]
                except Exception as ex:  # noqa: BLE001 - report, do not invent
                    r["status"] = "fail"
                    r["note"] = "run data: %s" % ex
            runs.append(r)
    return runs


def build_cells(runs):
    cells = {}
    for r in runs:
        k = (r["fam"], r["cell"], r["mode"])
        c = cells.setdefault(k, {"family": "IPv%d" % r["fam"], "cell": r["cell"],
                                 "mode": r["mode"], "runs": [], "skipped": [], "failed": []})
        if r["status"] == "ok":
            run = {x: r.get(x) for x in ("mbps", "bytes", "retrans", "cpu_s", "cpu_s_per_gb",
                                         "esp_ok", "insn_native", "insn_raw", "insn_kernel",
                                         "rep_bytes_per_B", "insn_spin", "segs_per_gso",
                                         "insn_bytes", "insn_native_whole", "dsack",
                                         "acks_per_mb")}
            # "1", or "1.2" for a cell's second run in repetition 1 (clear_tso)
            run["rep"] = r["rep"] or ""
            for x in ("esp_bytes", "tx_segments", "rx_gro_packets", "fallback_drop"):
                run[x] = int(r[x] or 0)
            c["runs"].append(run)
        elif r["status"] == "skip":
            c["skipped"].append(r["note"])
        else:
            c["failed"].append(r["note"])
    for c in cells.values():
        rs = c["runs"]
        c["n"] = len(rs)
        for key in ("mbps", "cpu_s_per_gb", "insn_native", "insn_raw", "insn_spin", "retrans",
                    "segs_per_gso", "insn_native_whole", "acks_per_mb"):
            vals = [x[key] for x in rs if x[key] is not None]
            c[key + "_median"] = med(vals)
            c[key + "_min"] = min(vals) if vals else None
            c[key + "_max"] = max(vals) if vals else None
        m = c["insn_native_median"]
        c["insn_native_spread"] = ((c["insn_native_max"] - c["insn_native_min"]) / m
                                   if m else None)
        w = c["insn_native_whole_median"]
        c["insn_native_whole_spread"] = ((c["insn_native_whole_max"] - c["insn_native_whole_min"])
                                         / w if w else None)
        c["retrans_total"] = sum(x["retrans"] for x in rs) if rs else None
        c["dsack_total"] = (sum(x["dsack"] for x in rs)
                            if rs and all(x["dsack"] is not None for x in rs) else None)
        c["esp_verified"] = (None if c["cell"].startswith("clear") else
                             (all(x["esp_ok"] for x in rs) if rs else None))
        if c["mode"] == "module":
            # every ESP segment the receiver's GRO took was sent by the module's TX;
            # one that xfrm sent by the stock path (xfrm_output_gso(), esp4/esp6
            # one by one) was not
            c["tx_bypass_max"] = (max(1 - x["tx_segments"] / x["rx_gro_packets"]
                                      for x in rs) if rs and all(x["rx_gro_packets"] > 0
                                                                 for x in rs) else None)
            c["fastpath_verified"] = (all(x["tx_segments"] > 0 and x["rx_gro_packets"] > 0
                                          for x in rs) and c["tx_bypass_max"] < 0.001
                                      if rs else None)
    return cells


def native_goals(native):
    """Issue #26: the ChaCha AEAD at most 1.0x OpenSSL's cycles per byte at 1420
    bytes on its AVX2 and AVX-512 levels; issue #27: AES-128-GCM at least 0.9x
    OpenSSL's throughput there, on each level."""
    goals = []
    at = {(r["aead"], r["impl"]): r["cycles_per_byte"] for r in native if r["bytes"] == 1420}
    for (aead, impl), cpb in sorted(at.items()):
        ossl = at.get((aead, "openssl"))
        if impl == "openssl" or not ossl:
            continue
        if aead.startswith("chacha") and impl in ("avx2", "avx512"):
            goals.append({"goal": "native %s %s / OpenSSL (c/B at 1420 B)" % (aead, impl),
                          "family": "host", "value": cpb / ossl, "op": "<=", "target": 1.0,
                          "status": "PASS" if cpb / ossl <= 1.0 else "MISS"})
        if aead == "aes-128-gcm encrypt":
            goals.append({"goal": "native %s %s throughput / OpenSSL's at 1420 B" % (aead, impl),
                          "family": "host", "value": ossl / cpb, "op": ">=", "target": 0.9,
                          "status": "PASS" if ossl / cpb >= 0.9 else "MISS"})
    return goals


def goals_of(cells, fams):
    goals = []
    for fam in fams:
        for name, num, den, op, target in GOALS:
            a, b = cells.get((fam,) + num), cells.get((fam,) + den)
            av = a["insn_native_median"] if a else None
            bv = b["insn_native_median"] if b else None
            v = av / bv if av is not None and bv else None
            st = "n/a" if v is None else ("PASS" if v <= target else "MISS")
            if v is None and a and a["failed"] and not a["n"]:
                st = "MISS"
            goals.append({"goal": name + " (native insn/B)", "family": "IPv%d" % fam,
                          "value": v, "op": op, "target": target, "status": st})
        for cell, lab in (("null", "esp-null"), ("gcm", "gcm"), ("chacha", "chacha")):
            c = cells.get((fam, cell, "module"))
            tot = c["retrans_total"] if c and c["n"] else None
            st = "n/a" if tot is None else ("PASS" if tot == 0 and not c["failed"] else "MISS")
            goals.append({"goal": "retransmits %s module (all reps)" % lab,
                          "family": "IPv%d" % fam, "value": tot, "op": "==", "target": 0,
                          "status": st})
    return goals


def read_native(out):
    """The tables bench/native's bench targets print (RUN_DIR/native.log): per AEAD,
    direction and key, cycles per byte per implementation (the module's levels and
    OpenSSL) per message length."""
    path = os.path.join(out, "native.log")
    rows = []
    if not os.path.exists(path):
        return rows
    cols, aead = None, None
    for line in open(path, errors="replace"):
        p = line.split()
        if not p:
            continue
        if p[0] == "bytes" and "openssl" in p:          # chacha's header
            cols, aead = p[1:], "chacha20poly1305 encrypt"
            continue
        if len(p) > 3 and p[0].startswith("AES-") and p[2] == "bytes":   # gcm's header
            cols, aead = p[3:], "%s %s" % (p[0].lower(), p[1])
            continue
        if cols and p[0].isdigit() and len(p) >= len(cols) + 1:
            for impl, v in zip(cols, p[1:]):
                if impl == "best/ossl":
                    continue
                try:
                    rows.append({"aead": aead, "impl": impl, "bytes": int(p[0]),
                                 "cycles_per_byte": float(v)})
                except ValueError:
                    pass            # "-": not on this CPU
            continue
        cols = None
    return rows


def f(v, fmt):
    return "-" if v is None else fmt % v


def table(cells, goals, fams, meta, native):
    kv, T, reps = meta["kernel"], meta["T"], meta["reps"]
    L = ["esp_swoffload benchmark: kernel %s, 2 vCPU (qemu TCG), iperf3 single stream, -t %s, "
         "%s rep(s), medians" % (kv, T, reps),
         "insn/B: guest instructions per payload byte, both ends, native-equivalent "
         "(rep strings at 1 + bytes/%d, spin-waits apart); raw in ()" % insn.REP_BYTES_PER_INSN,
         "%-5s %-30s %-15s %8s %8s %7s %6s %6s %9s %6s %8s %7s %6s  %s" % (
             "fam", "cell", "kernel", "insn/B", "(raw)", "spread", "whole", "spin", "Mbit/s",
             "CPU/GB",
             "retrans", "seg/GSO", "ACK/MB", "check")]
    for fam in fams:
        for cell, clab in CELLS:
            for mode, mlab in MODES:
                c = cells.get((fam, cell, mode))
                if not c:
                    continue
                if cell.startswith("clear"):
                    mlab = "-"
                chk = []
                if c["esp_verified"] is True:
                    chk.append("ESP ok")
                if c["esp_verified"] is False:
                    chk.append("NOT ESP?!")
                if c.get("fastpath_verified") is True:
                    chk.append("fast path ok")
                if c.get("fastpath_verified") is False:
                    chk.append("FAST PATH NOT USED" if c.get("tx_bypass_max") is None else
                               "%.1f%% of segments by-passed the module"
                               % (100 * c["tx_bypass_max"]))
                if c["retrans_total"] and c["dsack_total"] is not None:
                    chk.append("%d of %d retransmitted segments duplicates (reordering)"
                               % (c["dsack_total"], c["retrans_total"]))
                if c["skipped"]:
                    chk.append("skipped: " + c["skipped"][0])
                if c["failed"]:
                    chk.append("%d failed: %s" % (len(c["failed"]), c["failed"][0][:60]))
                rt = ("-" if c["retrans_median"] is None else
                      "%d/%d" % (c["retrans_median"], c["retrans_total"]))
                L.append("v%-4d %-30s %-15s %8s %8s %7s %6s %6s %9s %6s %8s %7s %6s  %s" % (
                    fam, clab, mlab, f(c["insn_native_median"], "%.2f"),
                    f(c["insn_raw_median"], "(%.2f)"),
                    f(c["insn_native_spread"] and 100 * c["insn_native_spread"], "%.1f%%"),
                    f(c["insn_native_whole_median"], "%.2f"),
                    f(c["insn_spin_median"], "%.2f"), f(c["mbps_median"], "%.1f"), f(c["cpu_s_per_gb_median"], "%.0f"), rt,
                    f(c["segs_per_gso_median"], "%.1f"), f(c["acks_per_mb_median"], "%.1f"),
                    ", ".join(chk)))
        L.append("")
    L.append("insn/B over a window of each transfer (from 1 s after its start to 1 s before "
             "its end); whole = the same over the whole iperf3 run, start-up and teardown "
             "included (for comparison)")
    L.append("spread = (max - min) / median of insn/B over the reps; spin = spin-wait "
             "instructions per byte (median; not in insn/B); retrans = median/total; "
             "CPU/GB = guest CPU-seconds per GB received (TCG time); seg/GSO = the module's "
             "segments per GSO packet; ACK/MB = the receiver's TCP segments sent (ACKs) per MB "
             "received, median (each wakes both ends; the receiver's routes in quickack); "
             "clear, TSO on: three runs per rep, the sender paced by TCP at 200 Mbit/s; "
             "stock esp: sender and receiver on vCPU 0; module: three runs per rep "
             "(docs/performance.md, \"Repeatability\")")
    if native:
        L.append("")
        L.append("native crypto on the host CPU (bench/native), cycles per byte:")
        for r in native:
            L.append("  %-28s %-10s %5d B  %6.2f c/B" % (r["aead"], r["impl"], r["bytes"],
                                                       r["cycles_per_byte"]))
    L.append("")
    L.append("goals (each ratio from this one run):")
    for g in goals:
        v = g["value"]
        vs = "-" if v is None else ("%d" % v if g["op"] == "==" else "%.2f" % v)
        L.append("  %-4s %-56s %-5s %8s  (goal %s %s)" % (g["status"], g["goal"], g["family"],
                                                         vs, g["op"], g["target"]))
    if meta.get("modnote"):
        L += ["", "NOTE: " + meta["modnote"] + "; module cells were not measured."]
    if str(meta.get("vrc", "0")) != "0":
        L.append("NOTE: the VM run ended with status %s; results may be partial." % meta["vrc"])
    return "\n".join(L)


def write_plot_data(out, cells):
    for key, fn in (("insn_native_median", "plot-insn-v%d.dat"), ("mbps_median", "plot-mbps-v%d.dat")):
        for fam in (4, 6):
            with open(os.path.join(out, fn % fam), "w") as pf:
                pf.write("# cell stock offload module\n")
                for cell, _ in CELLS:
                    vals = []
                    for m, _ in MODES:
                        c = cells.get((fam, cell, m))
                        vals.append(c.get(key) if c else None)
                    pf.write('"%s" %s\n' % (PLABEL[cell], " ".join(
                        "-" if v is None else "%.3f" % v for v in vals)))


def analyze(out, resdir, meta):
    runs = load_runs(out)
    cells = build_cells(runs)
    fams = sorted({r["fam"] for r in runs})
    native = read_native(out)
    goals = goals_of(cells, fams) + native_goals(native)
    text = table(cells, goals, fams, meta, native)
    res = {"kernel": meta["kernel"], "analyzed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "vcpus": 2, "iperf3_seconds": int(meta["T"]), "repetitions": int(meta["reps"]),
           "module": meta.get("module") or None, "module_note": meta.get("modnote") or None,
           "vm_status": int(meta.get("vrc", 0)), "raw_dir": meta.get("raw_dir"),
           "cost_model": "native-equivalent instructions: every instruction as retired, but "
                         "a rep-prefixed string instruction once per start plus one per %d bytes "
                         "it moves; raw: as TCG executed them" % insn.REP_BYTES_PER_INSN,
           "cells": sorted(cells.values(), key=lambda c: (c["family"], c["cell"], c["mode"])),
           "native_crypto": native, "goals": goals}
    json.dump(res, open(os.path.join(resdir, "results.json"), "w"), indent=1)
    open(os.path.join(out, "table.txt"), "w").write(text + "\n")
    write_plot_data(out, cells)
    return text, res


# two runs agree on a cell when their medians differ by at most this (issue #25)
AGREE = 0.03


def compare(dir_a, dir_b):
    """Lines comparing two runs' median native insn/B per cell; (lines, agree, total)."""
    ca, cb = build_cells(load_runs(dir_a)), build_cells(load_runs(dir_b))
    modes = [m for m, _ in MODES]
    cells = [c for c, _ in CELLS]
    keys = sorted(set(ca) & set(cb), key=lambda k: (k[0], cells.index(k[1]),
                                                    modes.index(k[2])))
    lines = ["%-4s %-10s %-8s %9s %9s %8s" % ("fam", "cell", "mode", "A", "B", "B/A-1")]
    agree = total = 0
    for k in keys:
        a, b = ca[k]["insn_native_median"], cb[k]["insn_native_median"]
        if a is None or b is None:
            lines.append("v%-3d %-10s %-8s %9s %9s  no runs" % (k + (f(a, "%.2f"),
                                                                   f(b, "%.2f"))))
            continue
        d = b / a - 1
        total += 1
        agree += abs(d) <= AGREE
        lines.append("v%-3d %-10s %-8s %9.2f %9.2f %+7.1f%%%s" % (
            k + (a, b, 100 * d, "" if abs(d) <= AGREE else "  outside")))
    lines.append("%d of %d cells within %d %%" % (agree, total, round(100 * AGREE)))
    return lines, agree, total


def selftest():
    import tempfile
    d = tempfile.mkdtemp()
    os.makedirs(os.path.join(d, "raw"))
    hdr = ("mode cell fam rep status busy_jiffies hz esp_bytes tx_segments rx_gro_packets "
           "fallback_drop json note insn_t0 insn_t1 win_bytes whole_t0 whole_t1").split()
    # cell: (mode, cell, native insns per byte, Mbit/s); 1 GB each run, a quarter of it
    # in the counted window; the whole run costs one instruction per byte more
    made = [("stock", "clear_gso", 3.0, 800), ("offload", "null", 8.0, 300),
            ("module", "null", 4.0, 600), ("offload", "gcm", 14.0, 100),
            ("module", "gcm", 5.6, 250), ("offload", "chacha", 27.0, 90),
            ("module", "chacha", 18.0, 300), ("stock", "clear_tso", 0.8, 900)]
    nbytes = 10 ** 9
    nb = nbytes // 4
    rows, snap = [], []
    for i, (mode, cell, ipb, mbps) in enumerate(made):
        t0, t1, w0, w1 = 4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4
        js = "%s-%s-v4-r1.json" % (mode, cell)
        json.dump({"end": {"sum_received": {"bits_per_second": mbps * 1e6, "bytes": nbytes},
                           "sum_sent": {"retransmits": 5 if i == 0 else 0}}},
                  open(os.path.join(d, "raw", js), "w"))
        if i == 0:
            # 3 of clear's 5 retransmits were duplicates; b's counter is not a's
            open(os.path.join(d, "raw", js[:-len(".json")] + ".nstat"), "w").write(
                "a TcpRetransSegs 5 0.0\na TcpExtTCPDSACKRecvSegs 3 0.0\n"
                "b TcpExtTCPDSACKRecvSegs 9 0.0\nb TcpOutSegs 20 0.0\na TcpOutSegs 99 0.0\n")
        rows.append([mode, cell, "4", "1", "ok", "1000", "100", str(nbytes), "10", "10", "0",
                     js, "", str(t0), str(t1), str(nb), str(w0), str(w1)])
        # all of it on vCPU 0 in the kernel; half of it as one rep movsb of 64 bytes per
        # 32 bytes of payload would be: execs 64/B, starts 0, bytes 64/B -> 2/B native
        base = 10 ** 12 * i
        k = int(ipb * nb) - 2 * nb + 64 * nb
        before, after = int(ipb * (nbytes - nb)), nbytes
        snap.append("snap %d 0 0 %d 0 0 0 0 0 0 0" % (w0, base - before))
        snap.append("snap %d 0 1 0 0 0 0 0 0 0 0" % w0)
        snap.append("snap %d 0 0 %d 0 0 0 0 0 0 0" % (t0, base))
        snap.append("snap %d 0 1 0 0 0 0 0 0 0 0" % t0)
        snap.append("snap %d 0 0 %d 0 %d 0 0 0 %d 0" % (t1, base + k, 64 * nb, 64 * nb))
        snap.append("snap %d 0 1 0 0 0 0 0 0 0 0" % t1)
        snap.append("snap %d 0 0 %d 0 %d 0 0 0 %d 0" % (w1, base + k + after, 64 * nb, 64 * nb))
        snap.append("snap %d 0 1 0 0 0 0 0 0 0 0" % w1)
    # clear_tso runs more than once per repetition (TSO_RUNS): "1.2", the same counts
    rows.append(rows[-1][:3] + ["1.2"] + rows[-1][4:11] + ["stock-clear_tso-v4-r1.2.json"] +
                rows[-1][12:])
    json.dump({"end": {"sum_received": {"bits_per_second": 900e6, "bytes": nbytes},
                       "sum_sent": {"retransmits": 0}}},
              open(os.path.join(d, "raw", "stock-clear_tso-v4-r1.2.json"), "w"))
    # a second run of module esp-null whose window ended after its transfer: fewer
    # bytes received by the window's end than by its start
    rows.append(["module", "null", "4", "2", "ok", "1000", "100", str(nbytes), "10", "10", "0",
                 "module-null-v4-r1.json", "", "901", "902", "-7", "903", "904"])
    snap += ["snap %d 0 %d 0 0 0 0 0 0 0 0" % (t, v) for t in range(901, 905) for v in (0, 1)]
    with open(os.path.join(d, "runs.tsv"), "w") as fo:
        fo.write("\t".join(hdr) + "\n")
        for r in rows:
            fo.write("\t".join(r) + "\n")
    open(os.path.join(d, "insn.txt"), "w").write("\n".join(snap) + "\n")
    open(os.path.join(d, "native.log"), "w").write(
        " bytes  generic    ssse3     avx2   avx512  openssl  best/ossl\n"
        "  1420     7.28     3.52     2.88        -     3.83       0.75\n"
        "chacha native bench avx512: skipped: no AVX-512VL\n"
        "AES-128-GCM encrypt  bytes      aesni  aesni-avx    openssl\n"
        "                      1420      0.754      0.749      1.524\n")
    meta = {"kernel": "made-up", "T": 5, "reps": 1}
    _, res = analyze(d, d, meta)
    g = {x["goal"].replace(" (native insn/B)", ""): x for x in res["goals"]}
    want = {"esp-null module / clear (TSO off)": (4 / 3, "PASS"),
            "esp-null module / esp-null esp_offload": (0.5, "PASS"),
            "chacha module / chacha esp_offload": (18 / 27, "MISS"),
            "gcm module / esp-null module": (1.4, "MISS"),
            "gcm module / gcm esp_offload": (0.4, "PASS")}
    bad = []
    for k, (v, st) in want.items():
        if abs(g[k]["value"] - v) > 1e-6 or g[k]["status"] != st:
            bad.append("%s: %r %s, want %r %s" % (k, g[k]["value"], g[k]["status"], v, st))
    for c in res["cells"]:
        ipb = [m[2] for m in made if (m[0], m[1]) == (c["mode"], c["cell"])][0]
        if (abs(c["insn_native_median"] - ipb) > 1e-6 or
                abs(c["insn_native_whole_median"] - ipb - 1) > 1e-6):
            bad.append("%s %s: insn/B %r, whole %r; want %r, %r" % (
                c["mode"], c["cell"], c["insn_native_median"], c["insn_native_whole_median"],
                ipb, ipb + 1))
    ct = [c for c in res["cells"] if (c["mode"], c["cell"]) == ("stock", "clear_tso")][0]
    if ct["n"] != 2 or ct["failed"]:
        bad.append("clear_tso: %d runs, failed %r; want 2 (reps 1 and 1.2)" % (ct["n"],
                                                                          ct["failed"]))
    mn = [c for c in res["cells"] if (c["mode"], c["cell"]) == ("module", "null")][0]
    if mn["n"] != 1 or len(mn["failed"]) != 1 or "outside" not in mn["failed"][0]:
        bad.append("module null: %d runs, failed %r; want 1 and one window outside the "
                   "transfer" % (mn["n"], mn["failed"]))
    acks = {(c["mode"], c["cell"]): c["acks_per_mb_median"] for c in res["cells"]}
    if (abs(acks.pop(("stock", "clear_gso")) - 20 / (nbytes / 1e6)) > 1e-9 or
            any(v is not None for v in acks.values())):
        bad.append("receiver ACKs per MB: %r" % acks)
    dup = {(c["mode"], c["cell"]): c["dsack_total"] for c in res["cells"]}
    if dup != {("stock", "clear_gso"): 3, **{(m[0], m[1]): None for m in made[1:]}}:
        bad.append("duplicate retransmits: %r" % dup)
    # a module cell some of whose segments xfrm sent by the stock path
    fake = [{"fam": 6, "cell": "null", "mode": "module", "status": "ok", "rep": "1",
             "esp_bytes": "1", "tx_segments": str(tx), "rx_gro_packets": "100",
             "fallback_drop": "0", "mbps": 1.0, "retrans": 0, "esp_ok": True}
            for tx in (100, 75)]
    fc = build_cells(fake)[(6, "null", "module")]
    if fc["fastpath_verified"] is not False or abs(fc["tx_bypass_max"] - 0.25) > 1e-9:
        bad.append("by-pass: %r %r" % (fc["fastpath_verified"], fc["tx_bypass_max"]))
    if len(res["native_crypto"]) != 7:
        bad.append("native rows: %r" % res["native_crypto"])
    ng = {x["goal"]: x for x in res["goals"] if x["family"] == "host"}
    for k, (v, st) in {"native chacha20poly1305 encrypt avx2 / OpenSSL (c/B at 1420 B)": (2.88 / 3.83, "PASS"),
                       "native aes-128-gcm encrypt aesni throughput / OpenSSL's at 1420 B": (1.524 / 0.754, "PASS")}.items():
        if k not in ng or abs(ng[k]["value"] - v) > 1e-6 or ng[k]["status"] != st:
            bad.append("%s: %r" % (k, ng.get(k)))
    _, agree, total = compare(d, d)
    if (agree, total) != (len(made), len(made)):
        bad.append("compare with itself: %d of %d agree, want %d" % (agree, total, len(made)))
    print("\n".join(bad) or "bench_analyze selftest: ok")
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--selftest":
        return selftest()
    if len(argv) == 4 and argv[1] == "--compare":
        lines, agree, total = compare(argv[2], argv[3])
        print("\n".join(lines))
        return 0
    out, resdir = argv[1], argv[2]
    meta = {"kernel": os.environ.get("KV", "?"), "T": os.environ.get("T", "0"),
            "reps": os.environ.get("REPS", "0"), "module": os.environ.get("MODULE", ""),
            "modnote": os.environ.get("MODNOTE", ""), "vrc": os.environ.get("VRC", "0"),
            "raw_dir": os.environ.get("RAW_DIR", out)}
    text, _ = analyze(out, resdir, meta)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
