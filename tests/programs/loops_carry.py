# Exercises: explicit loop carries — pl.range with init_values and an assignment-form pl.yield_,
# a pl.parallel loop without carries (each iteration writes its own quarter of `out`: iterations
# that wrote the same rows would race on hardware, and bin/run --check-races says so), pl.unroll
# with constant bounds, docstrings and comments (kept as leading comments), and the value bound
# after the loop.
import pypto.language as pl

K = 4


@pl.program
class Loops:
    @pl.function(type=pl.FunctionType.InCore)
    def accumulate(self, x: pl.Tensor[[64, 64], pl.FP32], r: pl.Scalar[pl.INDEX],
                   out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        """Sums K loads of the same 16-row tile, at row r."""
        acc0 = pl.load(x, [r, 0], [16, 64])
        # carried accumulator
        for k, (acc,) in pl.range(K, init_values=(acc0,)):
            t = pl.load(x, [r, 0], [16, 64])
            nxt = pl.add(acc, t)
            acc_final = pl.yield_(nxt)
        for j in pl.unroll(2):
            pl.system.bar_v()
        return pl.store(acc_final, [r, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.parallel(0, 4, 1):
            out = self.accumulate(x, i * 16, out)
        return out
