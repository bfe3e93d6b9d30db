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

Usage: bench/compile_speed.py BUILD_DIR --ref PYPTO_CHECKOUT --lib PYPTO_LIB_CHECKOUT
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--ref", required=True)
    ap.add_argument("--lib", required=True)
    a = ap.parse_args()
    pypto = os.path.join(os.path.abspath(a.build), "pypto")
    with tempfile.TemporaryDirectory() as tmp:
        times, peak = [], 0.0
        worst = ("", 0.0)
        for label, src, flags, _ in corpus.example_commands(a.ref):
            ms, rss, rc = timed([pypto, "build", src, "--emit-only", "-o", os.path.join(tmp, "o")] + flags)
            if rc != 0:
                continue
            times.append(ms)
            peak = max(peak, rss)
            if ms > worst[1]:
                worst = (label, ms)
        print("== 1. reference examples: pypto build --emit-only (best of 3 per entry)")
        print("{:<34} {:>10} {:>10}".format("", "measured", "target"))
        print("{:<34} {:>10} {:>10}".format("entry points that build", len(times), "-"))
        if times:
            print("{:<34} {:>8.1f}ms {:>10}".format("median", statistics.median(times), "<= 10 ms"))
            print("{:<34} {:>8.1f}ms {:>10}".format("worst", worst[1], "<= 10 ms"))
            print("   (worst: {})".format(worst[0]))
        print("{:<34} {:>8.1f}MB {:>10}".format("peak RSS", peak, "< 100 MB"))

        lib_root = ["-I", os.path.abspath(a.lib)]
        files = corpus.lib_files(a.lib)
        total, peak, largest = 0.0, 0.0, max(files, key=os.path.getsize)
        largest_ms = 0.0
        for f in files:
            ms, rss, _ = timed([pypto, "check", f] + lib_root, runs=1)
            total += ms
            peak = max(peak, rss)
            if f == largest:
                largest_ms, _, _ = timed([pypto, "check", f] + lib_root)
        print()
        print("== 2. pypto-lib: pypto check of every DSL file")
        print("{:<34} {:>10} {:>10}".format("files", len(files), "-"))
        print("{:<34} {:>9.2f}s {:>10}".format("whole corpus", total / 1e3, "< 5 s"))
        with open(largest) as fh:
            lines = fh.read().count("\n")
        print("{:<34} {:>8.1f}ms {:>10}".format("largest file ({} lines)".format(lines), largest_ms, "<= 30 ms"))
        print("   ({})".format(os.path.relpath(largest, a.lib)))
        print("{:<34} {:>8.1f}MB {:>10}".format("peak RSS", peak, "< 100 MB"))

        # 3. scaling: the largest file's functions copied k times under new names.
        with open(largest) as fh:
            text = fh.read()
        names = sorted(set(re.findall(r"^\s*def\s+(\w+)", text, re.M)) | set(re.findall(r"^class\s+(\w+)", text, re.M)))
        print()
        print("== 3. scaling: the largest pypto-lib file repeated (pypto check, best of 3)")
        base = None
        for k in (1, 2, 4, 10):
            parts = [text]
            for i in range(1, k):
                t = text
                for n in names:
                    t = re.sub(r"\b{}\b".format(re.escape(n)), "{}_c{}".format(n, i), t)
                parts.append("\n".join(l for l in t.splitlines() if not l.startswith(("import ", "from "))))
            path = os.path.join(tmp, "scaled_{}x.py".format(k))
            with open(path, "w") as fh:
                fh.write("\n".join(parts))
            ms, rss, _ = timed([pypto, "check", path] + lib_root + ["-I", os.path.dirname(largest)])
            base = base or ms
            print("{:>3}x source {:>9.1f} ms  ({:.2f}x the time; target <= {:.1f}x)  RSS {:.1f} MB".format(
                k, ms, ms / base, 1.1 * k, rss))


if __name__ == "__main__":
    main()
