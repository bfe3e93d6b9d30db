# Exercises: a mixed kernel whose vector half reads GM data the cube half stored, ordered by an
# all-core barrier (ExpandMixedKernel admits the read; without the barrier it is E504):
#   one block per core-group; block i's cube half stores its rows of a @ b into `acc`,
#   all halves of all blocks meet at the hard all-core barrier (pl.system.syncall,
#   core_type "mix"), then block i's vector half reads the rows block i + 1 stored:
#   y[i] = 2 * (a @ b)[(i + 1) % n]. The vector half reads the kernel's `acc` parameter.
import pypto.language as pl

M = 32
K = 64


@pl.program
class MixedGmBarrier:
    @pl.function(type=pl.FunctionType.InCore)
    def barrier(
        self,
        a: pl.Tensor[[pl.dynamic("N"), K], pl.FP16],
        b: pl.Tensor[[K, K], pl.FP16],
        acc: pl.InOut[pl.Tensor[[pl.dynamic("N"), K], pl.FP32]],
        y: pl.Out[pl.Tensor[[pl.dynamic("N"), K], pl.FP32]],
    ) -> tuple[pl.Tensor[[pl.dynamic("N"), K], pl.FP32], pl.Tensor[[pl.dynamic("N"), K], pl.FP32]]:
        i = pl.tile.get_block_idx()
        n = pl.tile.get_block_num()
        am = pl.load(a, [i * M, 0], [M, K], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [K, K], target_memory=pl.Mem.Mat)
        c = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        acc = pl.store(c, [i * M, 0], acc)
        pl.system.syncall()
        t = pl.load(acc, [((i + 1) % n) * M, 0], [M, K])
        y = pl.store(pl.mul(t, 2.0), [i * M, 0], y)
        return acc, y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[pl.dynamic("N"), K], pl.FP16],
        b: pl.Tensor[[K, K], pl.FP16],
        y: pl.Out[pl.Tensor[[pl.dynamic("N"), K], pl.FP32]],
    ) -> pl.Tensor[[pl.dynamic("N"), K], pl.FP32]:
        acc = pl.create_tensor([pl.tensor.dim(a, 0), K], dtype=pl.FP32)
        with pl.spmd(pl.system.available_cluster_count(), sync_start=True):
            staged, y = self.barrier(a, b, acc, y)
        return y
