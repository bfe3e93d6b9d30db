# Exercises: `with pl.cluster():` around calls of two kernel functions written at tile level — a
# cube kernel (y = a @ b, Mat / Left / Right / Acc) and a vector kernel (z = exp(x) * 0.5). The
# cluster's kernels become one (OutlineIncoreScopes splices their bodies into one scope), which
# ExpandMixedKernel splits back over the cluster's AIC and AIV cores: one MixedKernels task, the
# two halves running at once on one cluster. mm is also called on its own afterwards (y2), as the
# kernel it is.
import pypto.language as pl

M = 64
K = 64
N = 64


@pl.program
class ClusterCalls:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
           y: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        am = pl.load(a, [0, 0], [M, K], target_memory=pl.MemorySpace.Mat)
        bm = pl.load(b, [0, 0], [K, N], target_memory=pl.MemorySpace.Mat)
        al = pl.move(am, target_memory=pl.MemorySpace.Left)
        br = pl.move(bm, target_memory=pl.MemorySpace.Right)
        c = pl.matmul(al, br)
        return pl.store(c, [0, 0], y)

    @pl.function(type=pl.FunctionType.InCore)
    def act(self, x: pl.Tensor[[M, N], pl.FP32], z: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.load(x, [0, 0], [M, N])
        return pl.store(pl.mul(pl.exp(t), 0.5), [0, 0], z)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], x: pl.Tensor[[M, N], pl.FP32],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]], z: pl.Out[pl.Tensor[[M, N], pl.FP32]],
             y2: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> tuple[pl.Tensor[[M, N], pl.FP32], pl.Tensor[[M, N], pl.FP32], pl.Tensor[[M, N], pl.FP32]]:
        with pl.cluster(name_hint="pair"):
            y = self.mm(a, b, y)
            z = self.act(x, z)
        y2 = self.mm(a, b, y2)
        return y, z, y2
