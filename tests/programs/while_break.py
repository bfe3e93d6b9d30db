# Exercises: kernel control flow CtrlFlowTransform rewrites — a `while` loop that `break`s (a name
# rebound before the break keeps its new value) and a pl.range loop that `continue`s, plus a
# pl.range loop that breaks (it becomes a while loop). out = x + min(n, 4) steps of +1, then the
# even j of range(6) add it up three times, then j stops at the first j > lim.
import pypto.language as pl

R = 16
C = 64


@pl.program
class WhileBreak:
    @pl.function(type=pl.FunctionType.InCore)
    def steps(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], lim: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(x, [0, 0], [R, C])
        i = 0
        while i < n:
            t = pl.adds(t, 1.0)
            if i >= 3:
                break
            i = i + 1
        u = pl.muls(t, 0.0)
        for j in pl.range(6):
            if j % 2 == 1:
                continue
            u = pl.add(u, t)
        for k in pl.range(10):
            if k > lim:
                break
            u = pl.adds(u, 0.5)
        return pl.store(u, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], lim: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        out = self.steps(x, n, lim, out)
        return out
