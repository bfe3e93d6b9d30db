# Exercises: runtime-allocated outputs. An orchestration call that leaves out a kernel's trailing
# Out tensors (t = self.scale(x), u, tid = pl.submit(self.scale, t)) lets the runtime allocate them
# when the task is submitted (add_output(TensorCreateInfo)); the call's results name them.
# out = 2 x + 4 x = 6 x.
import pypto.language as pl

R = 16
C = 64


@pl.program
class RuntimeOutputs:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(x, [0, 0], [R, C])
        return pl.store(pl.mul(t, 2.0), [0, 0], y)

    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
            o: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.load(a, [0, 0], [R, C])
        tb = pl.load(b, [0, 0], [R, C])
        return pl.store(pl.add(ta, tb), [0, 0], o)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = self.scale(x)
        u, tid = pl.submit(self.scale, t)
        out = self.add(t, u, out)
        return out
