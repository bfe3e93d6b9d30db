# Exercises: a mixed kernel launched on several blocks (pl.spmd): each block's cube half computes
# its rows of a @ b and hands the tile to its vector half, which stores 2 * (a @ b) for those
# rows: y = 2 * (a @ b). Each block's halves run as a gang of their own, with their block id.
import pypto.language as pl

BLOCKS = 4
M = 32
K = 64


@pl.program
class MixedSpmd:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[BLOCKS * M, K], pl.FP16],
        b: pl.Tensor[[K, K], pl.FP16],
        y: pl.Out[pl.Tensor[[BLOCKS * M, K], pl.FP32]],
    ) -> pl.Tensor[[BLOCKS * M, K], pl.FP32]:
        i = pl.tile.get_block_idx()
        am = pl.load(a, [i * M, 0], [M, K], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [K, K], target_memory=pl.Mem.Mat)
        c = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        t = pl.move(c, target_memory=pl.Mem.Vec)
        y = pl.store(pl.mul(t, 2.0), [i * M, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[BLOCKS * M, K], pl.FP16],
        b: pl.Tensor[[K, K], pl.FP16],
        y: pl.Out[pl.Tensor[[BLOCKS * M, K], pl.FP32]],
    ) -> pl.Tensor[[BLOCKS * M, K], pl.FP32]:
        with pl.spmd(BLOCKS):
            y = self.k(a, b, y)
        return y
