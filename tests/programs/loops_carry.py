# Exercises: explicit loop carries — pl.range with init_values and an assignment-form pl.yield_,
# a pl.parallel loop without carries, pl.unroll with constant bounds, docstrings and comments
# (kept as leading comments), and the value bound after the loop.
import pypto.language as pl

K = 4


@pl.program
class Loops:
    @pl.function(type=pl.FunctionType.InCore)
    def accumulate(self, x: pl.Tensor[[64, 64], pl.FP32],
                   out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        """Sums K loads of the same tile."""
        acc0 = pl.load(x, [0, 0], [64, 64])
        # carried accumulator
        for k, (acc,) in pl.range(K, init_values=(acc0,)):
            t = pl.load(x, [0, 0], [64, 64])
            nxt = pl.add(acc, t)
            acc_final = pl.yield_(nxt)
        for j in pl.unroll(2):
            pl.system.bar_v()
        return pl.store(acc_final, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.parallel(0, 4, 1):
            out = self.accumulate(x, out)
        return out
