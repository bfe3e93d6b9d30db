# Exercises: tensor-level kernels on 3-D tensors, whose tiles the compiler flattens to 2-D
# (FlattenTileNdTo2D): a row-wise softmax over a [B, R, C] tensor in one kernel (the B x R rows
# stacked into one [B*R, C] tile, loaded and stored through 3-D GM views), and per expert e a
# projection with a window of a 3-D weight tensor, w[e : e + 1, :, :] ([1, N, K], a unit leading
# dim), multiplied as x @ w[e]^T (b_trans).
import pypto.language as pl

B = 2
R = 16
C = 64
E = 2
M = 16
N = 32
K = 64


@pl.jit
def rank3_tiles(
    x: pl.Tensor[[B, R, C], pl.FP32],
    a: pl.Tensor[[M, K], pl.FP16],
    w: pl.Tensor[[E, N, K], pl.FP16],
    y: pl.Out[pl.Tensor[[B, R, C], pl.FP32]],
    p: pl.Out[pl.Tensor[[E, M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="softmax3d"):
        e = pl.exp(pl.row_expand_sub(x, pl.row_max(x)))
        y = pl.row_expand_div(e, pl.row_sum(e))
    for ex in pl.range(E):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_proj"):
            acc = pl.matmul(a, w[ex : ex + 1, :, :], b_trans=True, out_dtype=pl.FP32)
            p[ex : ex + 1, :, :] = acc
    return y, p
