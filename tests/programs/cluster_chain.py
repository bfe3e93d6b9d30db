# Exercises: `with pl.cluster():` around calls of two vector kernels where the second reads the
# first's result twice (y = 2a; z = y * y) and a kernel after the cluster reads it again (w = 2y):
# the spliced bodies' reads count when OutlineIncoreScopes decides what leaves the merged kernel
# (y must still be returned). Both run on one AIV core, in order.
import pypto.language as pl

R = 16
C = 64


@pl.program
class ClusterChain:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, a: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(a, [0, 0], [R, C])
        return pl.store(pl.add(t, t), [0, 0], y)

    @pl.function(type=pl.FunctionType.InCore)
    def square(self, x: pl.Tensor[[R, C], pl.FP32], z: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(x, [0, 0], [R, C])
        u = pl.load(x, [0, 0], [R, C])
        return pl.store(pl.mul(t, u), [0, 0], z)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, C], pl.FP32], z: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             w: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, C], pl.FP32]]:
        y = pl.create_tensor([R, C], dtype=pl.FP32)
        with pl.cluster():
            y = self.double(a, y)
            z = self.square(y, z)
        w = self.double(y, w)
        return z, w
