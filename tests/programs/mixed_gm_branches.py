# Exercises: a mixed kernel whose vector half reads GM data the cube half stored, in another
# launch (ExpandMixedKernel admits the read; under a branch on a loop variable it is E504):
#   launched twice; `if s == 0` (a scalar parameter: both halves and every block take
#   the same branch) the cube stores a @ b into `z`, else the vector half reads `z` and
#   adds a to it. The task graph orders the two launches: z = a @ b + a.
import pypto.language as pl

M = 32
K = 64


@pl.program
class MixedGmBranches:
    @pl.function(type=pl.FunctionType.InCore)
    def step(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        b: pl.Tensor[[K, K], pl.FP16],
        s: pl.Scalar[pl.INDEX],
        z: pl.InOut[pl.Tensor[[M, K], pl.FP32]],
    ) -> pl.Tensor[[M, K], pl.FP32]:
        if s == 0:
            am = pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [K, K], target_memory=pl.Mem.Mat)
            c = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            z = pl.store(c, [0, 0], z)
        else:
            t = pl.load(z, [0, 0], [M, K])
            u = pl.add(t, pl.cast(pl.load(a, [0, 0], [M, K]), target_type=pl.FP32))
            z = pl.store(u, [0, 0], z)
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[M, K], pl.FP16],
        b: pl.Tensor[[K, K], pl.FP16],
        z: pl.Out[pl.Tensor[[M, K], pl.FP32]],
    ) -> pl.Tensor[[M, K], pl.FP32]:
        for i in pl.range(2):
            z = self.step(a, b, i, z)
        return z
