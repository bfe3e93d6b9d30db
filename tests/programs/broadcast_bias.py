# Tensor-level elementwise ops with numpy broadcasting inside a kernel: ConvertTensorToTileOps
# lowers a binary op on [R, C] and a [1, C] row to tile.col_expand_<op>, and on [R, C] and an
# [R, 1] column to tile.row_expand_<op> (never to the equal-shape TADD / TMUL, which compute
# garbage for such operands). Covers add with a [1, C] bias, mul with an [R, 1] scale, sub / div
# with the vector second, and the commutative swaps bias + a and maximum(scale, a).
import pypto.language as pl

R = 64
C = 64


@pl.jit
def broadcast_bias(
    a: pl.Tensor[[R, C], pl.FP32],
    bias: pl.Tensor[[1, C], pl.FP32],
    scale: pl.Tensor[[R, 1], pl.FP32],
    y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    z: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    w: pl.Out[pl.Tensor[[R, C], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bias_act"):
        y = pl.assemble(y, pl.relu(pl.add(a, bias)), [0, 0])  # [R, C] + [1, C] → col_expand_add
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_scale"):
        s = pl.mul(a, scale)  # [R, C] * [R, 1] → row_expand_mul
        d = pl.div(pl.sub(s, bias), pl.add(pl.abs(scale), 1.0))  # col_expand_sub, row_expand_div
        z = pl.assemble(z, d, [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="swapped"):
        b = pl.add(bias, a)  # [1, C] + [R, C]: commutative, lowered as col_expand_add(a, bias)
        w = pl.assemble(w, pl.maximum(scale, b), [0, 0])  # [R, 1] vs [R, C] → row_expand_max(b, scale)
    return y, z, w
