# Exercises a mixed kernel whose matmul reads an operand the vector core computes and whose
# other operand overflows L0B: P = bf16(exp(x - rowmax(x))) on the vector half, then P @ V with V
# [K, N] BF16 too large for one Right tile (attention's PV step). AutoTileMatmulL0 stages P in
# Mat (the AIC half pops it there) and runs a K loop of TEXTRACT blocks from both Mat tiles.
import pypto.language as pl

M = 32
K = 128
N = 512


@pl.jit
def mixed_exp_matmul(
    x: pl.Tensor[[M, K], pl.FP32],
    v: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pv"):
        p = pl.cast(pl.exp(pl.row_expand_sub(x, pl.row_max(x))), target_type=pl.BF16, mode="rint")
        y = pl.assemble(y, pl.matmul(p, v, out_dtype=pl.FP32), [0, 0])
    return y
