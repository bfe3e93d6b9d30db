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
     its functions and classes, without its imports) under `pypto check` (target: 10x the source
     -> <= 11x the time); each row ends with the run's summary, the same outcome for every entry.
  4. the floors under those targets on this machine, measured in the same run: starting a process
     (/bin/true, `pypto --version`), and tree-sitter alone (`pypto_bench_frontend --raw`, built
     here if missing) parsing the largest pypto-lib file, the modules it imports, and the worst
     reference example's file -- the first parse of a fresh process and the best warm one.

With --anchor OTHER_PYPTO (another build of pypto, e.g. of an earlier commit) every command is
also run with it, alternating with this build's runs, and its figures are printed beside: on a
machine whose speed drifts (a shared VM), only figures from one interleaved run compare.

Usage: bench/compile_speed.py BUILD_DIR --ref PYPTO_CHECKOUT --lib PYPTO_LIB_CHECKOUT [--anchor BIN]
"""
import argparse
import ast
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
        sources = {}
        for label, src, flags, _ in corpus.example_commands(a.ref):
            sources[label] = src
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

        # 3. scaling: the largest file's functions copied k times under new names. A copy leaves
        # out the file's import statements (whole, however many lines: Python's own parser finds
        # them), which the first copy already ran; each run's summary line shows that every copy
        # got as far as the original (same entries, same outcome).
        with open(largest) as fh:
            text = fh.read()
        imports = set()
        for node in ast.parse(text).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.update(range(node.lineno - 1, node.end_lineno))
        body = "\n".join(l for i, l in enumerate(text.splitlines()) if i not in imports)
        names = sorted(set(re.findall(r"^\s*def\s+(\w+)", text, re.M)) | set(re.findall(r"^class\s+(\w+)", text, re.M)))
        print()
        print("== 3. scaling: the largest pypto-lib file repeated (pypto check, best of 3; this build)")
        base = None
        for k in (1, 2, 4, 10):
            parts = [text]
            for i in range(1, k):
                t = body
                for nm in names:
                    t = re.sub(r"\b{}\b".format(re.escape(nm)), "{}_c{}".format(nm, i), t)
                parts.append(t)
            path = os.path.join(tmp, "scaled_{}x.py".format(k))
            with open(path, "w") as fh:
                fh.write("\n".join(parts))
            cmd = [bins[0], "check", path] + lib_root + ["-I", os.path.dirname(largest)]
            ms, rss, _ = timed(cmd)
            out = subprocess.run(cmd, capture_output=True, text=True)
            summary = [l for l in (out.stdout + out.stderr).splitlines() if "entries ok" in l]
            base = base or ms
            print("{:>3}x source {:>9.1f} ms  ({:.2f}x the time; target <= {:.1f}x)  RSS {:.1f} MB  [{}]".format(
                k, ms, ms / base, 1.1 * k, rss, summary[-1].split(": ", 1)[-1] if summary else "no summary"))

        # 4. floors: what any compile of these files costs here before pypto's own work.
        print()
        print("== 4. floors on this machine (same run; not pypto's own work)")
        true_ms = timed(["/bin/true"], runs=20)[0]
        version_ms = timed([bins[0], "--version"], runs=20)[0]
        print("{:<52} {:>8.1f} ms".format("start a process: /bin/true", true_ms))
        print("{:<52} {:>8.1f} ms".format("start pypto: pypto --version", version_ms))
        parse = parse_floor_tool(a.build)
        if not parse:
            print("   (tree-sitter alone: pypto_bench_frontend could not be built in {})".format(a.build))
            return
        closure = import_closure(largest, [a.lib])
        rows = [("largest pypto-lib file alone", [largest]),
                ("largest file + the modules it imports ({})".format(len(closure)), closure)]
        if worst[0][0] in sources:
            rows.append(("worst reference example's file", [sources[worst[0][0]]]))
        print("{:<52} {:>11} {:>11} {:>9}".format("tree-sitter alone, one thread", "fresh proc.", "warm", "KB"))
        for label, paths in rows:
            out = subprocess.run([parse, "--raw"] + paths, capture_output=True, text=True)
            if out.returncode != 0:
                print("   ({}: {})".format(label, out.stderr.strip()))
                continue
            first, best, size = out.stdout.splitlines()[-1].split()[:3]
            print("{:<52} {:>8.1f} ms {:>8.1f} ms {:>9.0f}".format(label, float(first), float(best), int(size) / 1024))


def parse_floor_tool(build):
    """BUILD/bench/pypto_bench_frontend, built if missing (None when it cannot be)."""
    path = os.path.join(os.path.abspath(build), "bench", "pypto_bench_frontend")
    if not os.path.exists(path):
        subprocess.run(["cmake", "--build", build, "--target", "pypto_bench_frontend"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path if os.path.exists(path) else None


def import_closure(path, roots):
    """`path` and the local modules it imports, transitively (`import m` / `from m import ...`
    resolved beside the importing file, then under `roots`; packages such as torch or pypto
    itself are not local and are left out): the sources a check of `path` reads."""
    seen, todo = [], [os.path.abspath(path)]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.append(f)
        with open(f, errors="replace") as fh:
            text = fh.read()
        for m in re.finditer(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", text, re.M):
            mod = (m.group(1) or m.group(2)).replace(".", "/")
            for base in [os.path.dirname(f)] + roots:
                for cand in (os.path.join(base, mod + ".py"), os.path.join(base, mod, "__init__.py")):
                    if os.path.isfile(cand):
                        todo.append(os.path.abspath(cand))
                        break
                else:
                    continue
                break
    return seen


if __name__ == "__main__":
    main()
