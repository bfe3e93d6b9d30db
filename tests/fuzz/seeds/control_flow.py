# Seed: if/else with yields, nested loops with carries, break-free while-less control flow, scalars.
import pypto.language as pl


@pl.program
class Flow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        acc0 = pl.load(x, [0, 0], [32, 32])
        for i, (acc,) in pl.range(0, n, 1, init_values=(acc0,)):
            if i % 2 == 0:
                a2 = pl.add(acc, acc)
                r = pl.yield_(a2)
            else:
                a3 = pl.mul(acc, 0.5)
                r = pl.yield_(a3)
            for j, (b,) in pl.range(2, init_values=(r,)):
                b2 = pl.sub(b, 1.0)
                bo = pl.yield_(b2)
            acc_out = pl.yield_(bo)
        return pl.store(acc_out, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        out = self.k(x, 3, out)
        return out
