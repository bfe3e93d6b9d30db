# Exercises: nested orchestration loops carrying two tensors: each (i, j) task reads x's block and
# updates both a (a += x) and b (b *= x) in place, so a and b are InOut and carried through both
# loops.
import pypto.language as pl

R = 64
C = 64
T = 16


@pl.program
class Carry2:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[R, C], pl.FP32], i: pl.Scalar[pl.INDEX], j: pl.Scalar[pl.INDEX],
             a: pl.InOut[pl.Tensor[[R, C], pl.FP32]], b: pl.InOut[pl.Tensor[[R, C], pl.FP32]]) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, C], pl.FP32]]:
        t = pl.load(x, [i, j], [T, T])
        ta = pl.load(a, [i, j], [T, T])
        tb = pl.load(b, [i, j], [T, T])
        a = pl.store(pl.add(ta, t), [i, j], a)
        b = pl.store(pl.mul(tb, t), [i, j], b)
        return a, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], a: pl.InOut[pl.Tensor[[R, C], pl.FP32]],
             b: pl.InOut[pl.Tensor[[R, C], pl.FP32]]) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, C], pl.FP32]]:
        for i in pl.range(0, R, T):
            for j in pl.range(0, C, T):
                a, b = self.step(x, i, j, a, b)
        return a, b
