# Exercises: transposed matmul operands. Scores s = q @ k^T three ways, k stored [N, D] as
# attention keys are:
#   * tile level: k loaded into Mat in its natural layout and viewed as its transpose with
#     pl.tile.transpose_view (the same bytes in the ZN layout), then moved to Right;
#   * tensor level, pl.matmul(q, k, b_trans=True), which the compiler lowers to that form;
#   * tensor level with both operands transposed: qt stored [D, M], a_trans=True and b_trans=True.
import pypto.language as pl

M = 32
N = 64
D = 128


@pl.jit.incore
def scores_tile(
    q: pl.Tensor[[M, D], pl.BF16],
    k: pl.Tensor[[N, D], pl.BF16],
    out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    q_mat = pl.load(q, [0, 0], [M, D], target_memory=pl.Mem.Mat)
    k_mat = pl.load(k, [0, 0], [N, D], target_memory=pl.Mem.Mat)
    k_t = pl.tile.transpose_view(k_mat)
    s = pl.matmul(pl.move(q_mat, target_memory=pl.Mem.Left), pl.move(k_t, target_memory=pl.Mem.Right))
    pl.store(s, [0, 0], out)
    return out


@pl.jit
def matmul_trans(
    q: pl.Tensor[[M, D], pl.BF16],
    k: pl.Tensor[[N, D], pl.BF16],
    qt: pl.Tensor[[D, M], pl.BF16],
    s_tile: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    s_bt: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    s_abt: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    s_tile = scores_tile(q, k, s_tile)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores_bt"):
        s_bt[0:M, 0:N] = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores_abt"):
        s_abt[0:M, 0:N] = pl.matmul(qt, k, a_trans=True, b_trans=True, out_dtype=pl.FP32)
    return s_tile, s_bt, s_abt
