# Exercises two forms of DeepSeek-V4's sparse HCA attention:
#   * a tile-level matmul on L1 (Mat) tiles whose operands do not fit L0: the scores Q K^T with
#     K a transpose view of a [T, D] Mat tile (D = 512: a [D, T] Right operand is 128 KiB, L0B 64).
#     AutoTileMatmulL0 splits K into blocks extracted from the Mat tiles (it used to take only the
#     moves a tensor-level matmul makes, and the whole operand overflowed L0B);
#   * an elementwise op on a column window of a wider tile (`part[0:H, 0:1]` of an [H, 8] tile,
#     per-head maxima stored 32-byte aligned): ResolveBackendOpLayouts gathers the window into a
#     column tile of its own (a one-column row_max) before viewing it as a [1, H] row.
import pypto.language as pl

M = 32
T = 128
D = 512
H = 16


@pl.program
class L1Windows:
    @pl.function(type=pl.FunctionType.InCore)
    def scores(self, q: pl.Tensor[[M, D], pl.BF16], kv: pl.Tensor[[T, D], pl.BF16],
               s: pl.Out[pl.Tensor[[M, T], pl.FP32]]) -> pl.Tensor[[M, T], pl.FP32]:
        kv_mat = pl.load(kv, [0, 0], [T, D], target_memory=pl.MemorySpace.Mat)
        kv_t = pl.tile.transpose_view(kv_mat)
        q_mat = pl.load(q, [0, 0], [M, D], target_memory=pl.MemorySpace.Mat)
        acc = pl.matmul(q_mat, kv_t, out_dtype=pl.FP32)
        return pl.store(acc, [0, 0], s)

    @pl.function(type=pl.FunctionType.InCore)
    def merge_max(self, m: pl.Tensor[[H, 1], pl.FP32], part: pl.Tensor[[H, 8], pl.FP32],
                  out: pl.Out[pl.Tensor[[H, 1], pl.FP32]]) -> pl.Tensor[[H, 1], pl.FP32]:
        mt = pl.load(m, [0, 0], [H, 1], target_memory=pl.MemorySpace.Vec)
        aligned = pl.load(part, [0, 0], [H, 8], target_memory=pl.MemorySpace.Vec)
        col = aligned[0:H, 0:1]
        merged = pl.maximum(mt, col)
        return pl.store(pl.exp(pl.sub(col, merged)), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[M, D], pl.BF16], kv: pl.Tensor[[T, D], pl.BF16], m: pl.Tensor[[H, 1], pl.FP32],
             part: pl.Tensor[[H, 8], pl.FP32], s: pl.Out[pl.Tensor[[M, T], pl.FP32]],
             out: pl.Out[pl.Tensor[[H, 1], pl.FP32]]) -> tuple[pl.Tensor[[M, T], pl.FP32], pl.Tensor[[H, 1], pl.FP32]]:
        s = self.scores(q, kv, s)
        out = self.merge_max(m, part, out)
        return s, out
