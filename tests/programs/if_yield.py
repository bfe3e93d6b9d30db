# Exercises: if/elif/else with and without pl.yield_, BOOL conditions built from scalar
# comparisons and `and`/`not`, scalar arithmetic with INDEX and FP32, pl.min/pl.max on scalars;
# `main` runs it (pypto test with --scalar n=... --scalar s=...).
import pypto.language as pl


@pl.program
class Branches:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX], s: pl.Scalar[pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [32, 32])
        m = pl.min(n, 8) + pl.max(n // 2, 1)
        if n > 4 and not (n == 7):
            r = pl.yield_(pl.mul(t, s * 2.0))
        elif m < 3:
            r = pl.yield_(pl.add(t, t))
        else:
            r = pl.yield_(t)
        if n % 2 == 0:
            t = pl.add(t, 1.0)
        return pl.store(r, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX], s: pl.Scalar[pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        out = self.pick(x, n, s, out)
        return out
