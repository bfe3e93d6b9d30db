#!/usr/bin/env python3
"""difffuzz.py -- the differential fuzzer: random well-typed PyPTO programs through `pypto test`.

Each program is drawn from a seeded generator (elementwise chains, scalar ops, row / column
reductions and broadcasts, casts through FP16 / BF16, loops over row blocks with windows at the
loop offset, one or two kernels chained through an intermediate tensor; loop-carried
accumulations over row blocks and column windows; a cube kernel with a K loop of matmul_acc
feeding a vector epilogue; the elementwise math at the tensor level inside pl.at, on whole tensors
or on row-block slices assembled into the output). Every program runs `pypto test --no-run` (the interpreter on the
source IR against the interpreter on the IR after every pass); every K-th also builds the project
and runs bin/run (`pypto test --every-pass`). A program pypto rejects with a located diagnostic
counts as rejected (a generator gap, or a limit pypto states); a mismatch, an internal error or a
crash is a finding: the program and pypto's output are copied to OUT/findings/.

Usage: difffuzz.py PYPTO [--count N] [--seed S] [--run-every K] [--out DIR] [-j JOBS]
Prints one summary line: programs, passed, rejected, findings, and the time taken.
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import time

UNARY = ["neg", "abs", "relu"]
BINARY = ["add", "sub", "mul", "maximum", "minimum"]


class Gen:
    """Expressions over [R, C] FP32 tiles (tile=True) or tensors, kept bounded in magnitude."""

    def __init__(self, rng, tile):
        self.rng = rng
        self.ns = "pl.tile" if tile else "pl.tensor"
        self.tile = tile
        self.lines = []
        self.n = 0

    def tmp(self):
        self.n += 1
        return "v%d" % self.n

    def bind(self, expr):
        v = self.tmp()
        self.lines.append("%s = %s" % (v, expr))
        return v

    def expr(self, leaves, depth):
        r = self.rng
        if depth == 0 or r.random() < 0.2:
            return r.choice(leaves)
        k = r.random()
        a = self.expr(leaves, depth - 1)
        ns = self.ns
        if k < 0.25:
            return self.bind("%s.%s(%s)" % (ns, r.choice(UNARY), a))
        if k < 0.5:
            b = self.expr(leaves, depth - 1)
            return self.bind("%s.%s(%s, %s)" % (ns, r.choice(BINARY), a, b))
        if k < 0.6:
            c = r.choice(["0.5", "-1.25", "2.0", "0.125", "-0.75"])
            return self.bind("%s.%s(%s, %s)" % (ns, r.choice(["adds", "muls", "subs", "maximums"]), a, c))
        if k < 0.68:  # bounded exp / sqrt / log
            f = r.choice(["exp", "sqrt", "log"])
            inner = self.bind("%s.abs(%s)" % (ns, a))
            if f == "exp":
                inner = self.bind("%s.neg(%s)" % (ns, inner))
            if f == "log":
                inner = self.bind("%s.adds(%s, 1.0)" % (ns, inner))
            return self.bind("%s.%s(%s)" % (ns, f, inner))
        if k < 0.8:  # a row reduction broadcast back
            red = r.choice(["row_max", "row_sum", "row_min"])
            if self.tile:
                scratch = self.bind("pl.tile.create([R, C], dtype=pl.FP32)")
                rv = self.bind("pl.tile.%s(%s, %s)" % (red, a, scratch))
            else:
                rv = self.bind("pl.tensor.%s(%s)" % (red, a))
            op = r.choice(["row_expand_sub", "row_expand_add", "row_expand_mul", "row_expand_max"])
            return self.bind("%s.%s(%s, %s)" % (ns, op, a, rv))
        if k < 0.88:  # a column reduction broadcast back
            red = r.choice(["col_max", "col_sum"])
            cv = self.bind("%s.%s(%s)" % (ns, red, a))
            op = r.choice(["col_expand_sub", "col_expand_add", "col_expand_mul"])
            return self.bind("%s.%s(%s, %s)" % (ns, op, a, cv))
        # a round trip through a narrower float
        dt = r.choice(["pl.FP16", "pl.BF16"]) if self.tile else "pl.FP16"
        mode = r.choice(["", ', mode="rint"', ', mode="trunc"'])
        narrow = self.bind("pl.cast(%s, %s%s)" % (a, dt, mode))
        return self.bind("pl.cast(%s, pl.FP32)" % narrow)


def indent(lines, n):
    return "".join(" " * n + l + "\n" for l in lines)


def kernel_program(rng):
    R = rng.choice([8, 16, 32])
    C = rng.choice([16, 32, 64])
    blocks = rng.choice([1, 1, 2, 4])
    two = rng.random() < 0.3
    out = ["import pypto.language as pl", "", "R = %d" % R, "C = %d" % C, "NB = %d" % blocks, "", "",
           "@pl.program", "class Fuzz:"]

    def kernel(name):
        g = Gen(rng, tile=True)
        body = ["a = pl.load(x, [b * R, 0], [R, C])", "c = pl.load(y, [b * R, 0], [R, C])"]
        res = g.expr(["a", "c"], rng.randint(1, 4))
        if res in ("a", "c"):
            res = g.bind("pl.tile.muls(%s, 1.5)" % res)
        body += g.lines + ["out = pl.store(%s, [b * R, 0], out)" % res]
        return ["    @pl.function(type=pl.FunctionType.InCore)",
                "    def %s(self, x: pl.Tensor[[NB * R, C], pl.FP32], y: pl.Tensor[[NB * R, C], pl.FP32],"
                " out: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]) -> pl.Tensor[[NB * R, C], pl.FP32]:" % name,
                "        for b in pl.range(NB):"] + [("            " + l) for l in body] + ["        return out", ""]

    out += kernel("k0")
    if two:
        out += kernel("k1")
    out += ["    @pl.function(type=pl.FunctionType.Orchestration)",
            "    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32], y: pl.Tensor[[NB * R, C], pl.FP32],"
            " out: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]) -> pl.Tensor[[NB * R, C], pl.FP32]:"]
    if two:
        out += ["        mid = pl.create_tensor([NB * R, C], dtype=pl.FP32)",
                "        mid = self.k0(x, y, mid)",
                "        out = self.k1(mid, x, out)"]
    else:
        out += ["        out = self.k0(x, y, out)"]
    out += ["        return out", ""]
    return "\n".join(out)


def accumulate_program(rng):
    """A loop-carried accumulation over row blocks and column windows: acc += f(x window)."""
    R = rng.choice([8, 16])
    C = rng.choice([32, 64])
    W = C // 2
    blocks = rng.choice([2, 3, 4])
    g = Gen(rng, tile=True)
    res = g.expr(["a", "c"], rng.randint(1, 3))
    if res in ("a", "c"):
        res = g.bind("pl.tile.muls(%s, 0.5)" % res)
    body = ["a = pl.load(x, [b * R, w * W], [R, W])", "c = pl.load(y, [b * R, w * W], [R, W])"] + g.lines
    body = [l.replace("[R, C]", "[R, W]") for l in body]
    return "\n".join(["import pypto.language as pl", "", "R = %d" % R, "C = %d" % C, "W = %d" % W, "NB = %d" % blocks,
                      "", "", "@pl.program", "class Fuzz:",
                      "    @pl.function(type=pl.FunctionType.InCore)",
                      "    def k(self, x: pl.Tensor[[NB * R, C], pl.FP32], y: pl.Tensor[[NB * R, C], pl.FP32],"
                      " out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:",
                      "        for w in pl.range(2):",
                      "            acc0 = pl.tile.full([R, W], dtype=pl.FP32, value=0.0)",
                      "            for b, (acc,) in pl.range(NB, init_values=(acc0,)):"] +
                     ["                " + l for l in body] +
                     ["                nxt = pl.tile.add(acc, %s)" % res,
                      "                acc_final = pl.yield_(nxt)",
                      "            out = pl.store(acc_final, [0, w * W], out)",
                      "        return out", "",
                      "    @pl.function(type=pl.FunctionType.Orchestration)",
                      "    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32], y: pl.Tensor[[NB * R, C], pl.FP32],"
                      " out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:",
                      "        out = self.k(x, y, out)", "        return out", ""])


def matmul_program(rng):
    """A cube kernel (K loop with matmul_acc) feeding a vector kernel that applies f."""
    M = rng.choice([16, 32])
    N = rng.choice([16, 32, 64])
    TK = rng.choice([16, 32])
    K = TK * rng.choice([1, 2, 4])
    g = Gen(rng, tile=True)
    res = g.expr(["a"], rng.randint(1, 3))
    if res == "a":
        res = g.bind("pl.tile.muls(a, 0.25)")
    lines = [l.replace("[R, C]", "[M, N]") for l in g.lines]
    return "\n".join(["import pypto.language as pl", "", "M = %d" % M, "N = %d" % N, "K = %d" % K, "TK = %d" % TK, "", "",
                      "@pl.program", "class Fuzz:",
                      "    @pl.function(type=pl.FunctionType.InCore)",
                      "    def mm(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],"
                      " c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:",
                      "        a0 = pl.move(pl.load(a, [0, 0], [M, TK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)",
                      "        b0 = pl.move(pl.load(b, [0, 0], [TK, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)",
                      "        acc0 = pl.matmul(a0, b0)"] +
                     (["        for k, (acc,) in pl.range(1, K // TK, init_values=(acc0,)):",
                       "            al = pl.move(pl.load(a, [0, k * TK], [M, TK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)",
                       "            br = pl.move(pl.load(b, [k * TK, 0], [TK, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)",
                       "            nxt = pl.matmul_acc(acc, al, br)",
                       "            acc_final = pl.yield_(nxt)",
                       "        pl.store(acc_final, [0, 0], c)"] if K > TK else ["        pl.store(acc0, [0, 0], c)"]) +
                     [
                      "        return c", "",
                      "    @pl.function(type=pl.FunctionType.InCore)",
                      "    def ep(self, c: pl.Tensor[[M, N], pl.FP32], out: pl.Out[pl.Tensor[[M, N], pl.FP32]])"
                      " -> pl.Tensor[[M, N], pl.FP32]:",
                      "        a = pl.load(c, [0, 0], [M, N])"] + ["        " + l for l in lines] +
                     ["        out = pl.store(%s, [0, 0], out)" % res, "        return out", "",
                      "    @pl.function(type=pl.FunctionType.Orchestration)",
                      "    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],"
                      " out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:",
                      "        c = pl.create_tensor([M, N], dtype=pl.FP32)",
                      "        c = self.mm(a, b, c)",
                      "        out = self.ep(c, out)", "        return out", ""])


def window_program(rng):
    """Tensor level in pl.at: a loop over row blocks slicing x and y, f of the windows assembled into out."""
    R = rng.choice([8, 16])
    C = rng.choice([16, 32, 64])
    blocks = rng.choice([2, 4])
    g = Gen(rng, tile=False)
    res = g.expr(["sx", "sy"], rng.randint(1, 3))
    if res in ("sx", "sy"):
        res = g.bind("pl.tensor.muls(%s, 1.5)" % res)
    body = ["sx = pl.slice(x, [R, C], [i * R, 0])", "sy = pl.slice(y, [R, C], [i * R, 0])"] + g.lines + \
           ["out = pl.assemble(out, %s, [i * R, 0])" % res]
    return "\n".join(["import pypto.language as pl", "", "R = %d" % R, "C = %d" % C, "NB = %d" % blocks, "", "",
                      "@pl.program", "class Fuzz:",
                      "    @pl.function(type=pl.FunctionType.Orchestration)",
                      "    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32], y: pl.Tensor[[NB * R, C], pl.FP32],"
                      " out: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]) -> pl.Tensor[[NB * R, C], pl.FP32]:",
                      "        for i in pl.range(NB):",
                      "            with pl.at(level=pl.Level.CORE_GROUP):"] + ["                " + l for l in body] +
                     ["        return out", ""])


def tensor_program(rng):
    R = rng.choice([8, 16, 32])
    C = rng.choice([16, 32, 64])
    g = Gen(rng, tile=False)
    res = g.expr(["x", "y"], rng.randint(1, 4))
    if res in ("x", "y"):
        res = g.bind("pl.tensor.muls(%s, 1.5)" % res)
    lines = g.lines + ["out = %s" % res]
    return "\n".join(["import pypto.language as pl", "", "R = %d" % R, "C = %d" % C, "", "",
                      "@pl.program", "class Fuzz:",
                      "    @pl.function(type=pl.FunctionType.Orchestration)",
                      "    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32],"
                      " out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:",
                      "        with pl.at(level=pl.Level.CORE_GROUP):"] + ["            " + l for l in lines] +
                     ["        return out", ""])


def program(seed, index):
    rng = random.Random("%d/%d" % (seed, index))
    k = rng.random()
    if k < 0.45:
        return kernel_program(rng)
    if k < 0.65:
        return accumulate_program(rng)
    if k < 0.75:
        return matmul_program(rng)
    if k < 0.88:
        return window_program(rng)
    return tensor_program(rng)


def one(args, index):
    src = program(args.seed, index)
    work = os.path.join(args.out, "work")
    path = os.path.join(work, "p%06d.py" % index)
    with open(path, "w") as f:
        f.write(src)
    full = args.run_every > 0 and index % args.run_every == 0
    cmd = [args.pypto, "test", path, "--seed", str(index % 1000 + 1), "-o", os.path.join(work, "t%06d" % index)]
    cmd += ["--every-pass", "-j", "1"] if full else ["--no-run"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        rc, text = p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        rc, text = "timeout", ""
    shutil.rmtree(os.path.join(work, "t%06d" % index), ignore_errors=True)
    if rc == 0:
        os.remove(path)
        return "pass", full, None
    located = rc == 1 and "error[" in text and "-->" in text and "MISMATCH" not in text and "disagrees" not in text
    if located and "E602" not in text and "E600" not in text:
        os.remove(path)
        return "rejected", full, text.strip().splitlines()[0][:160]
    dest = os.path.join(args.out, "findings", "p%06d.py" % index)
    shutil.move(path, dest)
    with open(dest + ".out", "w") as f:
        f.write("command: %s\nexit: %s\n%s" % (" ".join(cmd), rc, text))
    return "finding", full, text.strip().splitlines()[-1][:160] if text.strip() else str(rc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pypto")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--run-every", type=int, default=50, help="also build and run every K-th program (0: never)")
    ap.add_argument("--out", default="difffuzz-out")
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    args.pypto = os.path.abspath(args.pypto)
    os.makedirs(os.path.join(args.out, "work"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "findings"), exist_ok=True)
    t0 = time.time()
    counts = {"pass": 0, "rejected": 0, "finding": 0}
    ran = 0
    reasons = {}
    with concurrent.futures.ThreadPoolExecutor(args.j) as ex:
        for kind, full, why in ex.map(lambda i: one(args, i), range(args.count)):
            counts[kind] += 1
            ran += full
            if why and kind != "pass":
                reasons.setdefault(kind, {}).setdefault(why, 0)
                reasons[kind][why] += 1
    for kind, rs in reasons.items():
        for why, n in sorted(rs.items(), key=lambda x: -x[1])[:8]:
            print("  %s x%d: %s" % (kind, n, why))
    print("difffuzz: %d programs (%d also built and run), %d passed, %d rejected, %d findings, %.0f s" %
          (args.count, ran, counts["pass"], counts["rejected"], counts["finding"], time.time() - t0))
    return 1 if counts["finding"] else 0


if __name__ == "__main__":
    sys.exit(main())
