# Exercises: row-wise top-k at tensor level inside a kernel — pl.sort32 (32-element runs of
# (value, index) pairs), pl.mrgsort(s, block_len=64) (one list: every 4 runs merged) and
# pl.mrgsort(a, b) (two lists merged, its scratch tile made by ConvertTensorToTileOps), then the
# leading K pairs split by mask gathers: P0101 the values, P1010 the indices (as INT32).
# Per row of N scores: sort32 gives N / 32 runs; mrgsort(64) leaves N / 128 runs of 128 pairs;
# the two halves of the row are then merged whole (N = 256: exactly two runs). One statement is
# continued with a backslash: its source comment in the kernel must not continue onto the code.
import pypto.language as pl

ROWS = 16
N = 256
K = 8
BLOCK = 4


@pl.program
class TopkRows:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, scores: pl.Tensor[[ROWS, N], pl.FP32], vals: pl.Out[pl.Tensor[[ROWS, K], pl.FP32]],
             idx: pl.Out[pl.Tensor[[ROWS, K], pl.INT32]]) -> tuple[pl.Tensor[[ROWS, K], pl.FP32], pl.Tensor[[ROWS, K], pl.INT32]]:
        for r0 in pl.parallel(0, ROWS, BLOCK):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="topk_block"):
                ids = pl.arange(0, [1, N], dtype=pl.UINT32)
                for ri in pl.range(BLOCK):
                    r = r0 + ri
                    s = pl.sort32(scores[r : r + 1, :], ids)
                    s = pl.mrgsort(s, block_len=64)
                    s = pl.mrgsort(s[:, 0:N], s[:, N : 2 * N])
                    best = s[:, 0 : 2 * K]
                    vals[r : r + 1, :] = \
                        pl.gather(best, mask_pattern=pl.tile.MaskPattern.P0101)
                    idx[r : r + 1, :] = pl.gather(best, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
        return vals, idx
