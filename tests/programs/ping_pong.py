# Exercises: an orchestration loop whose carried tensors change buffer (ClassifyIterArgCarry's
# rebind): two buffers alternate as source and destination (src, dst = dst, src), so each
# iteration's kernel reads the buffer the previous one wrote. The emitter keeps each carry in a
# mutable ChipTensor; the runtime orders the tasks by the buffers they really touch. Per step
# v = 0.5 * v + x, starting from v = 1.5 * x, STEPS times, then once more into y.
import pypto.language as pl

R = 16
C = 64
STEPS = 5


@pl.program
class PingPong:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, a: pl.Tensor[[R, C], pl.FP32], x: pl.Tensor[[R, C], pl.FP32],
             b: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.load(a, [0, 0], [R, C])
        tx = pl.load(x, [0, 0], [R, C])
        return pl.store(pl.add(pl.mul(ta, 0.5), tx), [0, 0], b)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        src = pl.create_tensor([R, C], dtype=pl.FP32)
        dst = pl.create_tensor([R, C], dtype=pl.FP32)
        src = self.step(x, x, src)
        for i in pl.range(STEPS):
            dst = self.step(src, x, dst)
            src, dst = dst, src
        y = self.step(src, x, y)
        return y
