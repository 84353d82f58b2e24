#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read what bench/insn/insn-plugin.c wrote: instruction counts between markers.

The cost model ("native-equivalent instructions"): every instruction counts as
retired, but a rep-prefixed string instruction, which TCG runs one element per
execution, counts once per start plus one per REP_BYTES_PER_INSN bytes moved (an
ERMS/FSRM copy or fill moves about 32 bytes per cycle), and spin-wait
instructions (the plugin's pause blocks: a vCPU waiting for a lock whose holder's
vCPU thread the host did not run) are left out: they follow the host's
scheduling, not the code, and are reported apart ("spin"). "raw" counts what TCG
executed, spin-waits included. Both are kept.

  insn.py calib FILE TAG          check insn-calib's known counts (make check)
  insn.py interval FILE TAG0 TAG1 the counts between two markers, as JSON
  insn.py profile FILE KALLSYMS TAG0 TAG1 BYTES [--top N] [--segment B]
                                  kernel functions between two dump markers
  insn.py report DIR [--top N]    make profile's report of a run directory
                                  (runs.tsv, insn.txt, kallsyms.<mode>)
  insn.py lines DIR FUNC [--cell C] [--fam F] [--top N]
                                  one module function of a make profile run
                                  (cell null, first family by default) by source
                                  line, per 1448-byte segment
  insn.py selftest                the arithmetic on made-up snapshots
"""
import bisect
import json
import re
import sys

REP_BYTES_PER_INSN = 32
FIELDS = ("insn_k", "insn_u", "repx_k", "repx_u", "reps_k", "reps_u",
          "repb_k", "repb_u", "spin_k", "spin_u")


def read_snaps(path):
    """{tag: {vcpu: {field: value}}, "_marker_vcpu": {tag: vcpu}}; the last snapshot
    of a tag wins (a tag is used once per run)."""
    snaps, mvcpu = {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            p = line.split()
            if len(p) not in (12, 14) or p[0] != "snap":
                continue
            p += ["0", "0"] * (len(p) == 12)    # a plugin without spin counts
            tag, mv, v = int(p[1]), int(p[2]), int(p[3])
            snaps.setdefault(tag, {})[v] = dict(zip(FIELDS, map(int, p[4:])))
            mvcpu[tag] = mv
    return snaps, mvcpu


def cost(d):
    """Raw and native-equivalent instructions of a counter delta (one vCPU or all)."""
    raw = d["insn_k"] + d["insn_u"]
    repx = d["repx_k"] + d["repx_u"]
    reps = d["reps_k"] + d["reps_u"]
    repb = d["repb_k"] + d["repb_u"]
    spin = d["spin_k"] + d["spin_u"]
    native = raw - repx + reps + repb / REP_BYTES_PER_INSN - spin
    kern = d["insn_k"] - d["repx_k"] + d["reps_k"] + d["repb_k"] / REP_BYTES_PER_INSN \
        - d["spin_k"]
    return {"raw": raw, "native": native, "native_kernel": kern, "spin": spin,
            "native_user": native - kern, "rep_execs": repx, "rep_starts": reps,
            "rep_bytes": repb}


def interval(snaps, t0, t1, vcpus=None):
    """Counter deltas from tag t0 to tag t1, summed over vcpus (default: all)."""
    a, b = snaps[t0], snaps[t1]
    vs = sorted(b) if vcpus is None else vcpus
    d = {k: sum(b[v][k] - a[v][k] for v in vs) for k in FIELDS}
    d.update(cost(d))
    d["per_vcpu"] = {v: cost({k: b[v][k] - a[v][k] for k in FIELDS})["native"] for v in vs}
    return d


def calib(path, tag):
    """insn-calib TAG: loop of 2e8 user instructions between TAG and TAG+1 on vCPU 0,
    64 MiB rep movsb between TAG+2 and TAG+3, a spin-wait loop of 3e6 instructions
    between TAG+5 and TAG+6. Returns a list of failures."""
    snaps, _ = read_snaps(path)
    bad = []
    for t in range(tag, tag + 4):
        if t not in snaps:
            return ["no snapshot for marker %d in %s" % (t, path)]
    loop = interval(snaps, tag, tag + 1, [0])
    want = 200000000
    # the markers' own code on either side: a few dozen instructions
    err = (loop["insn_u"] - want) / want
    print("calib: loop: %d user instructions counted, %d expected (%+.5f %%)"
          % (loop["insn_u"], want, 100 * err))
    if not 0 <= loop["insn_u"] - want < want * 0.001:
        bad.append("loop: %d user instructions, want %d within 0.1 %%" % (loop["insn_u"], want))
    copy = interval(snaps, tag + 2, tag + 3, [0])
    print("calib: rep movsb: %d bytes, %d starts, %d executions counted; %d bytes expected"
          % (copy["repb_u"], copy["reps_u"], copy["repx_u"], 64 << 20))
    if copy["repb_u"] != 64 << 20:
        bad.append("rep movsb: %d bytes, want %d exactly" % (copy["repb_u"], 64 << 20))
    if copy["reps_u"] != 1:
        bad.append("rep movsb: %d starts, want 1" % copy["reps_u"])
    if tag + 6 not in snaps or tag + 5 not in snaps:
        return bad + ["no snapshot for the spin-wait markers %d, %d" % (tag + 5, tag + 6)]
    spin = interval(snaps, tag + 5, tag + 6, [0])
    want = 3 * 1000000
    print("calib: spin-wait: %d user instructions counted as spin, %d as work; %d spin "
          "expected" % (spin["spin_u"], spin["insn_u"] - spin["spin_u"], want))
    # the block that enters the loop (set-up and first pause) counts as spin too
    if not 0 <= spin["spin_u"] - want < 100:
        bad.append("spin-wait: %d spin instructions, want %d" % (spin["spin_u"], want))
    if spin["insn_u"] - spin["spin_u"] > 1000:
        bad.append("spin-wait: %d instructions of the loop counted as work"
                   % (spin["insn_u"] - spin["spin_u"]))
    return bad


def read_tbs(path, tag):
    """{vaddr: (raw, native)} instructions of each kernel block at dump tag
    (cumulative; native-equivalent as cost() prices them)."""
    tbs = {}
    with open(path, errors="replace") as f:
        for line in f:
            if not line.startswith("tb "):
                continue
            p = line.split()
            if len(p) not in (7, 8) or int(p[1]) != tag:
                continue
            raw, repx, reps, repb = map(int, p[3:7])
            spin = int(p[7]) if len(p) == 8 else 0
            tbs[int(p[2], 16)] = (raw, raw - repx + reps + repb / REP_BYTES_PER_INSN - spin)
    return tbs


def read_kallsyms(path):
    """Sorted (addresses, names) of text symbols; module ones as name [module]."""
    syms = []
    with open(path, errors="replace") as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            addr = int(p[0], 16)
            if not addr:
                continue
            name = p[2] + (" " + p[3] if len(p) > 3 else "")
            syms.append((addr, name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


# A block further than this from the symbol below it is in no function kallsyms knows
# (BPF, trampolines, a module's end).
MAX_FUNC_SPAN = 1 << 16


def functions(path, ksyms, t0, t1, raw=False):
    """{function: native-equivalent (raw=True: raw) instructions} executed in the
    kernel between dumps t0 and t1."""
    a, b = read_tbs(path, t0), read_tbs(path, t1)
    addrs, names = ksyms
    k = 0 if raw else 1
    out = {}
    for va, v in b.items():
        d = v[k] - a.get(va, (0, 0))[k]
        if not d:
            continue
        i = bisect.bisect_right(addrs, va) - 1
        name = names[i] if i >= 0 and va - addrs[i] < MAX_FUNC_SPAN else "(unknown)"
        out[name] = out.get(name, 0) + d
    return out


# Where a function's instructions go, for the profile's summary (first match wins).
CATEGORIES = [
    ("crypto", r"chacha|poly1305|aes|gcm|ghash|clmul|cc_|crypto_|aead|scatterwalk|skcipher|sg_"),
    ("esp_swoffload", r"\[esp_swoffload\]"),
    ("xfrm/esp", r"xfrm|esp|secpath|sec_path"),
    ("checksum", r"csum|checksum"),
    ("copy", r"memcpy|memmove|copy_|_copy|movs"),
    ("zeroing", r"memset|clear_page|stos"),
    ("alloc/free", r"kmem_cache|kmalloc|kfree|__slab|slab_|page_frag|alloc_pages|free_pages|"
                   r"__free|page_pool|skb_release|skb_free|__alloc_skb|build_skb|napi_alloc|"
                   r"kfree_skb|consume_skb|skb_attempt|_page_|rmqueue|folio"),
    ("gro", r"gro"),
    ("gso/segment", r"gso|segment|skb_segment"),
    ("tcp", r"tcp"),
    ("ip", r"^ip_|ip6|inet|ipv6|^ipv4|raw_|udp"),
    ("device/veth/qdisc", r"veth|dev_|netif|napi|qdisc|sch_|net_rx|net_tx|__netif|xmit|"
                          r"neigh|eth_|skb_"),
    ("scheduler/irq/idle", r"sched|schedule|irq|softirq|timer|hrtimer|tick|idle|cpu|rcu|"
                           r"ipi|apic|smp_|wake|lock|futex|poll|entry|syscall|exit_to"),
]


def category(name):
    for cat, rx in CATEGORIES:
        if re.search(rx, name):
            return cat
    return "other"


def profile(path, kallsyms, t0, t1, nbytes, top=30, segment=1448):
    ksyms = read_kallsyms(kallsyms)
    fn = functions(path, ksyms, t0, t1)
    snaps, _ = read_snaps(path)
    iv = interval(snaps, t0, t1)
    total_k = sum(fn.values())
    lines = ["kernel instructions between markers %d and %d: %d, %.3f per byte; "
             "all instructions: %.3f raw, %.3f native-equivalent per byte"
             % (t0, t1, total_k, total_k / nbytes, iv["raw"] / nbytes, iv["native"] / nbytes),
             "%8s %9s %10s  %s" % ("insn/B", "per %d B" % segment, "share", "function")]
    for name, n in sorted(fn.items(), key=lambda x: -x[1])[:top]:
        lines.append("%8.3f %9.0f %9.1f%%  %s" % (n / nbytes, n / nbytes * segment,
                                                100.0 * n / total_k, name))
    cats = {}
    for name, n in fn.items():
        c = category(name)
        cats[c] = cats.get(c, 0) + n
    lines.append("by kind (kernel instructions):")
    for c, n in sorted(cats.items(), key=lambda x: -x[1]):
        lines.append("%8.3f %9.0f %9.1f%%  %s" % (n / nbytes, n / nbytes * segment,
                                                100.0 * n / total_k, c))
    return "\n".join(lines), fn, cats


def report(d, top=30, segment=1448):
    """Per run: the top functions; per ESP run: what it costs over clear TCP."""
    import csv
    import os
    rows = list(csv.DictReader(open(os.path.join(d, "runs.tsv")), delimiter="\t"))
    path = os.path.join(d, "insn.txt")
    ks = {}
    out, fns = [], {}
    for r in rows:
        mode = r["mode"]
        var = r.get("variant", "-")
        label = mode if var in ("-", None, "") else "%s %s" % (mode, var)
        if mode not in ks:
            ks[mode] = read_kallsyms(os.path.join(d, "kallsyms." + mode))
        n = int(r["bytes"])
        if n <= 0:
            continue
        t0, t1 = int(r["tag0"]), int(r["tag1"])
        fn = functions(path, ks[mode], t0, t1)
        fns[(label, r["fam"], r["cell"])] = (fn, n)
        snaps, _ = read_snaps(path)
        iv = interval(snaps, t0, t1)
        total_k = sum(fn.values())
        out.append("== %s v%s %s: %.0f MB, retransmits %s; %.3f native-equivalent insn/B "
                   "(%.3f raw; kernel %.3f), %.0f per %d B"
                   % (label, r["fam"], r["cell"], n / 1e6, r["retrans"], iv["native"] / n,
                      iv["raw"] / n, total_k / n, iv["native"] / n * segment, segment))
        out.append("%8s %9s %7s  %s" % ("insn/B", "per %dB" % segment, "share", "function"))
        for name, v in sorted(fn.items(), key=lambda x: -x[1])[:top]:
            out.append("%8.3f %9.0f %6.1f%%  %s" % (v / n, v / n * segment, 100.0 * v / total_k, name))
        out.append("")
    for (mode, fam, cell), (fn, n) in sorted(fns.items()):
        base = [v for k, v in fns.items() if k[1] == fam and k[2] == "clear"]
        if cell == "clear" or not base:
            continue
        bfn, bn = base[0]
        names = set(fn) | set(bfn)
        delta = {k: fn.get(k, 0) / n - bfn.get(k, 0) / bn for k in names}
        tot = sum(delta.values())
        out.append("== %s v%s %s over clear TCP: %+.3f kernel insn/B, %+.0f per %d B"
                   % (mode, fam, cell, tot, tot * segment, segment))
        cats = {}
        for k, v in delta.items():
            c = category(k)
            cats[c] = cats.get(c, 0) + v
        out.append("  by kind, per %d B:" % segment)
        for c, v in sorted(cats.items(), key=lambda x: -abs(x[1])):
            if abs(v * segment) >= 1:
                out.append("    %+8.0f  %s" % (v * segment, c))
        out.append("  largest differences, per %d B:" % segment)
        for k, v in sorted(delta.items(), key=lambda x: -abs(x[1]))[:top]:
            out.append("    %+8.0f  %s" % (v * segment, k))
        out.append("")
    return "\n".join(out)


def selftest():
    import os
    import tempfile
    d = tempfile.mkdtemp()
    p = os.path.join(d, "snap.txt")
    # vCPU 0: 2e8 + 40 user insns in the loop; 64 MiB + 1 execution, 1 start, 64 MiB
    rows = [(100, 0, 0, 10, 1000, 5, 7, 1, 1, 4, 100),
            (100, 0, 1, 20, 0, 0, 0, 0, 0, 0, 0),
            (101, 0, 0, 12, 1000 + 200000040, 5, 7, 1, 1, 4, 100),
            (101, 0, 1, 25, 0, 0, 0, 0, 0, 0, 0),
            (102, 0, 0, 12, 200001100, 5, 7, 1, 1, 4, 100),
            (102, 0, 1, 25, 0, 0, 0, 0, 0, 0, 0),
            (103, 0, 0, 12, 200001200 + (64 << 20) + 1, 5, 7 + (64 << 20) + 1, 1, 2, 4,
             100 + (64 << 20)),
            (103, 0, 1, 25, 0, 0, 0, 0, 0, 0, 0),
            # the spin-wait loop: 3e6 + 20 counted as spin, 30 as work
            (105, 0, 0, 12, 400000000, 0, 0, 0, 0, 0, 0, 0, 1000),
            (105, 0, 1, 25, 0, 0, 0, 0, 0, 0, 0, 0, 0),
            (106, 0, 0, 12, 403000050, 0, 0, 0, 0, 0, 0, 0, 3001020),
            (106, 0, 1, 25, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    with open(p, "w") as f:
        for r in rows:
            f.write("snap " + " ".join(map(str, r)) + "\n")
        f.write("tb 32770 ffffffff81000010 0 0 0 0\n")
        f.write("tb 32771 ffffffff81000010 700 0 0 0\n")
        f.write("tb 32771 ffffffff81000100 300 0 0 0\n")
        f.write("tb 32771 ffffffff81000200 65 64 1 64\n")
    bad = calib(p, 100)
    snaps, _ = read_snaps(p)
    iv = interval(snaps, 102, 103)
    # 100 raw + 64Mi+1 rep executions of which 1 start, 64Mi bytes / 32
    want = 100 + 1 + (64 << 20) / 32
    if abs(iv["native"] - want) > 1e-6 or iv["raw"] != 100 + (64 << 20) + 1:
        bad.append("interval: native %r raw %r, want %r %r" % (iv["native"], iv["raw"],
                                                              want, 100 + (64 << 20) + 1))
    iv = interval(snaps, 105, 106)
    if iv["native"] != 30 or iv["spin"] != 3000020 or iv["raw"] != 3000050:
        bad.append("interval: spin-wait not taken out of the work: %r" % iv)
    ks = os.path.join(d, "kallsyms")
    with open(ks, "w") as f:
        f.write("ffffffff81000000 T alpha\nffffffff81000080 t beta\t[esp_swoffload]\n")
    fn = functions(p, read_kallsyms(ks), 32770, 32771)
    # the rep block: 65 raw of which 64 rep executions, 1 start, 64 bytes: 1 + 1 + 2
    if fn != {"alpha": 700, "beta [esp_swoffload]": 304}:
        bad.append("functions: %r" % fn)
    rows[6] = (103, 0, 0, 12, 200001200 + (64 << 20), 5, 7 + (64 << 20), 1, 2, 4,
               99 + (64 << 20))
    with open(p, "w") as f:
        for r in rows:
            f.write("snap " + " ".join(map(str, r)) + "\n")
    if not calib(p, 100):
        bad.append("calib accepted a copy one byte short")
    rows[6] = (103, 0, 0, 12, 200001200 + (64 << 20) + 1, 5, 7 + (64 << 20) + 1, 1, 2, 4,
               100 + (64 << 20))
    rows[10] = (106, 0, 0, 12, 403000050, 0, 0, 0, 0, 0, 0, 0, 1000)
    with open(p, "w") as f:
        for r in rows:
            f.write("snap " + " ".join(map(str, r)) + "\n")
    if not calib(p, 100):
        bad.append("calib accepted a spin-wait counted as work")
    print("\n".join(bad) or "insn.py selftest: ok")
    return 1 if bad else 0


def lines(d, func, cell="null", fam=None, top=40, segment=1448):
    """A module function's native-equivalent instructions by source line: each
    translation block's count goes to the line of its first instruction (a block
    spans a few lines, so neighbouring lines blur), through addr2line on the run's
    build of the module."""
    import csv
    import os
    import subprocess
    rows = [r for r in csv.DictReader(open(os.path.join(d, "runs.tsv")), delimiter="\t")
            if r["cell"] == cell and (fam is None or r["fam"] == fam)
            and r.get("variant", "-") in ("-", "")]
    if not rows:
        return "no run of cell %s%s in %s" % (cell, "" if fam is None else " v" + fam, d)
    r = rows[0]
    ko = os.path.join(d, "build", "esp_swoffload.ko")
    addrs, names = read_kallsyms(os.path.join(d, "kallsyms." + r["mode"]))
    base = next((a for a, n in zip(addrs, names) if n == func + " [esp_swoffload]"), None)
    nm = subprocess.run(["nm", "-S", ko], capture_output=True, text=True).stdout
    sym = [p for p in (x.split() for x in nm.splitlines()) if len(p) == 4 and p[3] == func]
    if base is None or not sym:
        return "%s: not a function of the module in this run" % func
    koaddr, size = int(sym[0][0], 16), int(sym[0][1], 16)
    t0, t1, nbytes = int(r["tag0"]), int(r["tag1"]), int(r["bytes"])
    b0, b1 = read_tbs(os.path.join(d, "insn.txt"), t0), read_tbs(os.path.join(d, "insn.txt"), t1)
    cnt = {a: v[1] - b0.get(a, (0, 0))[1] for a, v in b1.items() if base <= a < base + size}
    addrs = sorted(a for a in cnt if cnt[a] > 0)
    where = subprocess.run(["addr2line", "-e", ko] + ["0x%x" % (a - base + koaddr) for a in addrs],
                           capture_output=True, text=True).stdout.splitlines()
    by = {}
    for a, w in zip(addrs, where):
        w = w.split("/")[-1]
        by[w] = by.get(w, 0) + cnt[a]
    per = nbytes / segment
    out = ["%s, %s v%s %s: %.0f native-equivalent instructions per %d B"
           % (func, r["mode"], r["fam"], cell, sum(by.values()) / per, segment)]
    for w, v in sorted(by.items(), key=lambda x: -x[1])[:top]:
        out.append("%8.1f  %s" % (v / per, w))
    return "\n".join(out)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "calib":
        bad = calib(argv[2], int(argv[3]))
        for b in bad:
            print("calib: FAIL: " + b)
        return 1 if bad else 0
    if cmd == "interval":
        snaps, _ = read_snaps(argv[2])
        print(json.dumps(interval(snaps, int(argv[3]), int(argv[4]))))
        return 0
    if cmd == "profile":
        top, seg = 30, 1448
        args = argv[2:]
        if "--top" in args:
            i = args.index("--top"); top = int(args[i + 1]); del args[i:i + 2]
        if "--segment" in args:
            i = args.index("--segment"); seg = int(args[i + 1]); del args[i:i + 2]
        text, _, _ = profile(args[0], args[1], int(args[2]), int(args[3]), int(args[4]), top, seg)
        print(text)
        return 0
    if cmd == "report":
        top = 30
        if "--top" in argv:
            top = int(argv[argv.index("--top") + 1])
        print(report(argv[2], top))
        return 0
    if cmd == "lines":
        args, opt = argv[2:], {"--cell": "null", "--fam": None, "--top": "40"}
        for k in list(opt):
            if k in args:
                i = args.index(k); opt[k] = args[i + 1]; del args[i:i + 2]
        print(lines(args[0], args[1], opt["--cell"], opt["--fam"], int(opt["--top"])))
        return 0
    if cmd == "selftest":
        return selftest()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
