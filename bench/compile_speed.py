#!/usr/bin/env python3
"""Compile-speed figures of `pypto` on real programs (opt-in, nothing here is a test), beside the
speed issue's targets:

  1. `pypto build --emit-only` of every reference example entry point that builds (typed as
     bench/corpus.py types it): median and worst wall time (best of 3 runs each), and the peak RSS
     (target: <= 10 ms each, RSS < 100 MB);
  2. `pypto check` of every pypto-lib DSL file (the files bench/corpus.py reads; `check` runs the
     front end and the type checker, which is how far most of them get today): the whole corpus,
     the largest file (target for its build: <= 30 ms; corpus < 5 s) and the peak RSS.
  3. scaling: the largest pypto-lib file's source repeated 1x / 2x / 4x / 10x (renamed copies of
     its functions) under `pypto check` (target: 10x the source -> <= 11x the time).

With --anchor OTHER_PYPTO (another build of pypto, e.g. of an earlier commit) every command is
also run with it, alternating with this build's runs, and its figures are printed beside: on a
machine whose speed drifts (a shared VM), only figures from one interleaved run compare.

Usage: bench/compile_speed.py BUILD_DIR --ref PYPTO_CHECKOUT --lib PYPTO_LIB_CHECKOUT [--anchor BIN]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402  (example_commands, lib_files)


def timed(cmd, runs=3):
    """Best wall time (ms) of `runs` runs, the peak RSS (MB) and the last exit status."""
    best, rss, rc = None, 0.0, 0
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        ms = (time.perf_counter() - t0) * 1e3
        rc = os.waitstatus_to_exitcode(status)
        best = ms if best is None else min(best, ms)
        rss = max(rss, ru.ru_maxrss / 1024.0)
    return best, rss, rc


def timed_pair(bins, args, runs=3):
    """timed() for each binary of `bins` on the same arguments, runs interleaved."""
    out = [None] * len(bins)
    for _ in range(runs):
        for i, b in enumerate(bins):
            ms, rss, rc = timed([b] + args, runs=1)
            if out[i] is None:
                out[i] = [ms, rss, rc]
            else:
                out[i] = [min(out[i][0], ms), max(out[i][1], rss), rc]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--ref", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--anchor", help="another pypto binary, measured in the same run and printed beside")
    a = ap.parse_args()
    bins = [os.path.join(os.path.abspath(a.build), "pypto")]
    if a.anchor:
        bins.append(os.path.abspath(a.anchor))
    n = len(bins)
    cols = "{:>10} {:>10}".format("measured", "anchor") if n == 2 else "{:>10}".format("measured")

    def row(label, values, unit, target, fmt="{:>8.1f}"):
        cells = " ".join((fmt + unit).format(v) for v in values)
        print("{:<34} {} {:>10}".format(label, cells, target))

    with tempfile.TemporaryDirectory() as tmp:
        times = [[] for _ in bins]
        peak = [0.0] * n
        worst = [("", 0.0)] * n
        for label, src, flags, _ in corpus.example_commands(a.ref):
            res = timed_pair(bins, ["build", src, "--emit-only", "-o", os.path.join(tmp, "o")] + flags)
            if res[0][2] != 0:
                continue
            for i, (ms, rss, _) in enumerate(res):
                times[i].append(ms)
                peak[i] = max(peak[i], rss)
                if ms > worst[i][1]:
                    worst[i] = (label, ms)
        print("== 1. reference examples: pypto build --emit-only (best of 3 per entry)")
        print("{:<34} {} {:>10}".format("", cols, "target"))
        print("{:<34} {} {:>10}".format("entry points that build", " ".join("{:>10}".format(len(t)) for t in times), "-"))
        if times[0]:
            row("median", [statistics.median(t) for t in times], "ms", "<= 10 ms")
            row("worst", [w[1] for w in worst], "ms", "<= 10 ms")
            print("   (worst: {})".format(worst[0][0]))
        row("peak RSS", peak, "MB", "< 100 MB")

        lib_root = ["-I", os.path.abspath(a.lib)]
        files = corpus.lib_files(a.lib)
        largest = max(files, key=os.path.getsize)
        total, peak = [0.0] * n, [0.0] * n
        largest_ms = [0.0] * n
        for f in files:
            res = timed_pair(bins, ["check", f] + lib_root, runs=1)
            for i, (ms, rss, _) in enumerate(res):
                total[i] += ms
                peak[i] = max(peak[i], rss)
            if f == largest:
                largest_ms = [r[0] for r in timed_pair(bins, ["check", f] + lib_root)]
        print()
        print("== 2. pypto-lib: pypto check of every DSL file")
        print("{:<34} {} {:>10}".format("", cols, "target"))
        print("{:<34} {} {:>10}".format("files", " ".join("{:>10}".format(len(files)) for _ in bins), "-"))
        row("whole corpus", [t / 1e3 for t in total], "s", "< 5 s", "{:>9.2f}")
        with open(largest) as fh:
            lines = fh.read().count("\n")
        row("largest file ({} lines)".format(lines), largest_ms, "ms", "<= 30 ms")
        print("   ({})".format(os.path.relpath(largest, a.lib)))
        row("peak RSS", peak, "MB", "< 100 MB")

        # 3. scaling: the largest file's functions copied k times under new names.
        with open(largest) as fh:
            text = fh.read()
        names = sorted(set(re.findall(r"^\s*def\s+(\w+)", text, re.M)) | set(re.findall(r"^class\s+(\w+)", text, re.M)))
        print()
        print("== 3. scaling: the largest pypto-lib file repeated (pypto check, best of 3; this build)")
        base = None
        for k in (1, 2, 4, 10):
            parts = [text]
            for i in range(1, k):
                t = text
                for nm in names:
                    t = re.sub(r"\b{}\b".format(re.escape(nm)), "{}_c{}".format(nm, i), t)
                parts.append("\n".join(l for l in t.splitlines() if not l.startswith(("import ", "from "))))
            path = os.path.join(tmp, "scaled_{}x.py".format(k))
            with open(path, "w") as fh:
                fh.write("\n".join(parts))
            ms, rss, _ = timed([bins[0], "check", path] + lib_root + ["-I", os.path.dirname(largest)])
            base = base or ms
            print("{:>3}x source {:>9.1f} ms  ({:.2f}x the time; target <= {:.1f}x)  RSS {:.1f} MB".format(
                k, ms, ms / base, 1.1 * k, rss))


if __name__ == "__main__":
    main()
