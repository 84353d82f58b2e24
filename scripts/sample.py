#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sample.py - a sampling profiler for a guest under TCG, from the host (make sample).

perf inside the guest cannot see this workload (README, "Where the time goes"), so the
samples come from outside, through QEMU's human monitor. Each round stops the VM
("stop"), reads every vCPU's RIP, privilege level and halt state ("info registers -a"),
for a busy kernel-mode vCPU also 48 words from the top of its stack ("x /48gx RSP"),
and lets it run again ("cont"). Stopping matters: TCG writes a running vCPU's RIP back
only at some branches and exits, so a vCPU read while it runs shows a stale RIP; a
stopped one is at the start of a translated block, in the function that was running.
Kernel text addresses on the stack are the likely callers (a heuristic: stale return
addresses show up too). The guest clock stands still while the VM is stopped.

  sample.py record SOCKET OUT CELL...   sample while OUT/start.CELL exists and
                                        OUT/stop.CELL does not, for each CELL in turn,
                                        SAMPLE_HZ (50) times a second, with stacks in
                                        every SAMPLE_STACK_EVERY-th (4) round
  sample.py report OUT [SYMBOL...]      per cell: CPU-s/GB by category, leaf
                                        functions, what costs most over clear, and the
                                        likely callers of each SYMBOL
  sample.py selftest                    report() on a made-up run with a known answer

The guest (bench/guest-sample.sh) writes OUT/kallsyms and OUT/cells.tsv (cell, bytes,
bits/s, busy jiffies). A category's CPU-s/GB is its share of the busy samples times the
cell's CPU-s/GB from the guest's /proc/stat.
"""
import bisect
import collections
import os
import re
import socket
import sys
import time

STACK_WORDS = 48
MONITOR_TIMEOUT = 60	# s; a monitor command takes well under one


def monitor(path):
    """a command function for QEMU's human monitor at the unix socket path"""
    for _ in range(600):
        if os.path.exists(path):
            break
        time.sleep(0.1)
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    # A stuck monitor must not keep the VM stopped until the run's timeout.
    s.settimeout(MONITOR_TIMEOUT)

    def read_prompt():
        buf = b""
        while not buf.endswith(b"(qemu) "):
            d = s.recv(65536)
            if not d:
                raise EOFError("monitor closed")
            buf += d
        return buf.decode(errors="replace")

    def cmd(c):
        s.sendall(c.encode() + b"\n")
        return read_prompt()
    # The banner ends with the first prompt. Reading it before the first command
    # keeps one prompt per command: sending a command first could leave the banner
    # and that command's prompt to two reads and every later answer one behind.
    read_prompt()
    cmd.close = s.close	# QEMU serves one monitor connection at a time
    return cmd


RIP_RE = re.compile(r"RIP=([0-9a-f]{16})")
RSP_RE = re.compile(r"RSP=([0-9a-f]{16})")
CPL_RE = re.compile(r"CPL=(\d)")
HLT_RE = re.compile(r"HLT=(\d)")
WORD_RE = re.compile(r"0x([0-9a-f]{16})")


def sample_round(cmd, f, stacks):
    """one line per vCPU of the stopped VM: cpu rip cpl halted [stack words]"""
    r = cmd("info registers -a")
    rips, rsps = RIP_RE.findall(r), RSP_RE.findall(r)
    cpls, hlts = CPL_RE.findall(r), HLT_RE.findall(r)
    for i, rip in enumerate(rips):
        words = ""
        if stacks and cpls[i] == "0" and hlts[i] == "0":
            cmd("cpu %d" % i)
            m = cmd("x /%dgx 0x%s" % (STACK_WORDS, rsps[i]))
            words = " ".join(w for ln in m.splitlines() if ": " in ln
                             for w in WORD_RE.findall(ln.split(": ", 1)[1]))
        f.write("%d %s %s %s %s\n" % (i, rip, cpls[i], hlts[i], words))


def resume(sock):
    """a last "cont" over a fresh connection, after the recorder's own failed"""
    try:
        cmd = monitor(sock)
        cmd("cont")
        cmd.close()
    except (OSError, EOFError) as e:
        print("resume: %s" % e, flush=True)


def record(sock, out, cells, hz, stack_every):
    cmd = monitor(sock)
    print("monitor connected", flush=True)
    for cell in cells:
        start, stop = "%s/start.%s" % (out, cell), "%s/stop.%s" % (out, cell)
        while not os.path.exists(start):
            if os.path.exists(out + "/rc"):	# the guest script ended
                return
            time.sleep(0.05)
        rounds = 0
        t0 = time.monotonic()
        with open("%s/samples.%s" % (out, cell), "w") as f:
            try:
                while not os.path.exists(stop):
                    cmd("stop")
                    try:
                        sample_round(cmd, f, rounds % stack_every == 0)
                    finally:
                        cmd("cont")	# never leave the VM stopped
                    rounds += 1
                    time.sleep(1.0 / hz)
            except EOFError:	# the VM is gone
                return
            except (OSError, IndexError) as e:
                # never leave the VM stopped, nor the run without a report of why
                print("%s: round %d failed: %r; resuming the VM and stopping the "
                      "recording" % (cell, rounds, e), flush=True)
                cmd.close()
                resume(sock)
                return
        print("%s: %d rounds in %.1f s" % (cell, rounds, time.monotonic() - t0),
              flush=True)


class Symbols:
    def __init__(self, path):
        syms = []
        for line in open(path):
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW":
                mod = p[3].strip("[]") if len(p) > 3 else ""
                syms.append((int(p[0], 16), p[2], mod))
        syms.sort()
        self.syms = syms
        self.addrs = [a for a, _, _ in syms]
        self.lo, self.hi = self.addrs[0], self.addrs[-1] + 0x10000

    def lookup(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.syms[i][1:] if i >= 0 else ("?", "")

    def is_text(self, addr):
        return self.lo <= addr <= self.hi


CIPHER_MODS = ("aesni_intel", "ghash_clmulni_intel", "chacha_x86_64",
               "poly1305_x86_64", "libchacha", "libpoly1305", "crypto_simd")
CATEGORIES = (
    # this module's ChaCha20-Poly1305 (chacha_*.c) is the cipher too
    ("cipher", lambda n, m: m in CIPHER_MODS or "chacha" in n or "poly1305" in n or
     (m == "esp_swoffload" and n.startswith("cc_"))),
    ("user space", lambda n, m: n == "[user]"),
    # 6.1 and 6.12 name them differently
    ("copies (rep movsb)", lambda n, m: n in (
        "copy_user_enhanced_fast_string", "copy_user_generic_string",
        "copy_user_generic_unrolled", "rep_movs_alternative", "memcpy_erms",
        "memcpy_orig", "memmove", "__memmove", "memcpy", "__memcpy")),
    ("zeroing (rep stosb)", lambda n, m: n in (
        "memset_erms", "memset_orig", "memset", "__memset", "clear_page_erms",
        "clear_page_rep", "clear_page_orig", "rep_stos_alternative")),
    ("checksums", lambda n, m: n.startswith("csum_") or n == "do_csum"),
    ("MMIO: APIC, HPET, virtio", lambda n, m: n in (
        "__default_send_IPI_dest_field", "default_send_IPI_single_phys",
        "default_send_IPI_mask_sequence_phys", "native_apic_mem_write",
        "native_apic_mem_read", "read_hpet", "iowrite16", "ioread8", "iowrite32",
        "ioread32")),
    ("esp_swoffload", lambda n, m: m == "esp_swoffload"),
    ("xfrm, esp4/6, seqiv", lambda n, m: m in ("esp4", "esp6", "seqiv") or
     n.startswith(("xfrm", "__xfrm", "esp_", "esp6_"))),
)


def category(name, mod):
    for cat, match in CATEGORIES:
        if match(name, mod):
            return cat
    return "rest of the kernel"


def cells_of(out):
    """(cell, bytes, bits/s, busy jiffies at USER_HZ 100) from OUT/cells.tsv"""
    cells = []
    for line in open(out + "/cells.tsv"):
        p = line.split()
        if len(p) == 4 and p[0] != "cell":
            cells.append((p[0], int(p[1]), int(p[2]), int(p[3])))
    return cells


def load_cell(out, syms, cell, callers_of):
    """leaf counts, likely callers of callers_of, samples, busy samples"""
    leaf = collections.Counter()
    callers = collections.defaultdict(collections.Counter)
    total = busy = 0
    for line in open("%s/samples.%s" % (out, cell)):
        p = line.split()
        total += 1
        if p[3] == "1":
            continue
        busy += 1
        if p[2] != "0":
            leaf[("[user]", "")] += 1
            continue
        name, mod = syms.lookup(int(p[1], 16))
        leaf[(name, mod)] += 1
        if name in callers_of:
            seen = []
            for w in p[4:]:
                a = int(w, 16)
                if syms.is_text(a):
                    f = syms.lookup(a)[0]
                    if f != name and f not in seen:
                        seen.append(f)
            for f in seen[:6]:
                callers[name][f] += 1
    return leaf, callers, total, busy


def label(key):
    name, mod = key
    return name + (" [%s]" % mod if mod else "")


def report(out, callers_of):
    syms = Symbols(out + "/kallsyms")
    cells = {}
    for cell, nbytes, bps, jiffies in cells_of(out):
        leaf, callers, total, busy = load_cell(out, syms, cell, callers_of)
        cpu_per_gb = jiffies / 100.0 / (nbytes / 1e9)
        # what one busy sample stands for, in guest CPU-s/GB
        cells[cell] = dict(leaf=leaf, callers=callers, total=total, busy=busy,
                           mbit=bps / 1e6, cpu=cpu_per_gb,
                           w=cpu_per_gb / max(busy, 1))

    print("Samples of the guest's vCPUs from the host (QEMU monitor), %s" % out)
    print("CPU-s/GB is the guest's own (/proc/stat); a category's part of it is its")
    print("share of the busy samples.\n")
    print("%-8s %9s %8s %6s %9s" % ("cell", "Mbit/s", "samples", "busy", "CPU-s/GB"))
    for cell, c in cells.items():
        print("%-8s %9.1f %8d %5.1f%% %9.1f" % (
            cell, c["mbit"], c["total"], 100.0 * c["busy"] / max(c["total"], 1),
            c["cpu"]))

    cats = [c for c, _ in CATEGORIES] + ["rest of the kernel"]
    print("\nGuest CPU-s/GB by category:")
    print("%-26s" % "category" + "".join("%10s" % c for c in cells))
    for cat in cats + ["total"]:
        row = []
        for c in cells.values():
            n = sum(v for k, v in c["leaf"].items()
                    if cat == "total" or category(*k) == cat)
            row.append(n * c["w"])
        print("%-26s" % cat + "".join("%10.2f" % v for v in row))

    base = cells.get("clear")
    for cell, c in cells.items():
        print("\n%s: leaf functions (share of busy samples, CPU-s/GB)" % cell)
        for k, n in c["leaf"].most_common(15):
            print("  %5.1f%% %6.2f %s" % (100.0 * n / max(c["busy"], 1),
                                         n * c["w"], label(k)))
        if base and c is not base:
            print("  most over clear (CPU-s/GB here, in clear, difference):")
            keys = set(c["leaf"]) | set(base["leaf"])
            diff = sorted(keys, key=lambda k: base["leaf"][k] * base["w"] -
                          c["leaf"][k] * c["w"])
            for k in diff[:12]:
                a, b = c["leaf"][k] * c["w"], base["leaf"][k] * base["w"]
                print("    %6.2f %6.2f %+6.2f %s" % (a, b, a - b, label(k)))
        for name in sorted(callers_of):
            if not c["callers"].get(name):
                continue
            print("  likely callers of %s (stacks read):" % name)
            for f, k in c["callers"][name].most_common(8):
                print("    %5d %s" % (k, f))


def selftest():
    """report() on a made-up run whose answer is known; exit status 1 if wrong"""
    import contextlib
    import io
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        with open(out + "/kallsyms", "w") as f:
            f.write("ffffffff81000000 T memset_erms\n"
                    "ffffffff81000100 T tcp_sendmsg\n"
                    "ffffffffc0000000 t _encrypt_by_8_new [aesni_intel]\n"
                    "ffffffffc0000400 t eso_gro_receive [esp_swoffload]\n"
                    "ffffffffc0000800 t cc_poly_blocks [esp_swoffload]\n")
        with open(out + "/cells.tsv", "w") as f:
            # 1 GB moved in 40 busy jiffies: 0.4 CPU-s/GB
            f.write("cell\tbytes\tbps\tbusy_jiffies\nx\t1000000000\t8000000\t40\n")
        with open(out + "/samples.x", "w") as f:
            f.write("0 ffffffffc0000010 0 0 ffffffff81000104\n"	# cipher
                    "1 ffffffffc0000810 0 0\n"			# cipher (cc_)
                    "0 ffffffff81000008 0 0 ffffffff81000120\n"	# zeroing
                    "1 ffffffffc0000404 0 0\n"			# the module
                    "0 00007f0000001000 3 0\n"			# user space
                    "1 ffffffff81000000 0 1\n")			# halted
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            report(out, {"memset_erms"})
        text = buf.getvalue()
    want = [r"^x\s+8\.0\s+6\s+83\.3%\s+0\.4$", r"^cipher\s+0\.16$",
            r"^zeroing \(rep stosb\)\s+0\.08$", r"^esp_swoffload\s+0\.08$",
            r"^user space\s+0\.08$", r"^total\s+0\.40$", r"^\s+1 tcp_sendmsg$"]
    # sample_round() on monitor output as QEMU 7.2 prints it
    regs = ("CPU#%d\nRAX=0000000000000000 RSP=ffffc9000000%04x RBP=0\n"
            "RIP=%s RFL=00000246 [---Z-P-] CPL=%d II=0 A20=1 SMM=0 HLT=%d\n")
    answers = {
        "info registers -a": regs % (0, 0x3e28, "ffffffffc0000010", 0, 0) +
                             regs % (1, 0x3f00, "ffffffff81000000", 0, 1),
        "x /%dgx 0xffffc90000003e28" % STACK_WORDS:
            "x /48gx 0xffffc90000003e28\r\n"
            "ffffc90000003e28: 0xffffffff81000104 0x0000000000000010\n",
    }
    asked = []

    def fake_cmd(c):
        asked.append(c)
        return answers.get(c, "") + "(qemu) "
    lines = io.StringIO()
    sample_round(fake_cmd, lines, True)
    got = lines.getvalue()
    want_lines = ("0 ffffffffc0000010 0 0 ffffffff81000104 0000000000000010\n"
                  "1 ffffffff81000000 0 1 \n")
    if got != want_lines or "cpu 1" in asked:
        text += "\nsample_round wrote %r, asked %r" % (got, asked)
        want.append("^sample_round ok$")
    bad = [w for w in want if not re.search(w, text, re.M)]
    for w in bad:
        print("sample.py selftest: no line matching %s in:\n%s" % (w, text))
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "selftest":
        selftest()
    elif len(sys.argv) >= 4 and sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3], sys.argv[4:],
               float(os.environ.get("SAMPLE_HZ", "50")),
               int(os.environ.get("SAMPLE_STACK_EVERY", "4")))
    elif len(sys.argv) >= 3 and sys.argv[1] == "report":
        report(sys.argv[2], set(sys.argv[3:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
