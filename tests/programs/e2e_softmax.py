# End-to-end: row softmax of a 64x128 FP32 block with row_max / row_sum reductions, a scratch
# tile for the reductions, and row-broadcast subtract / divide.
import pypto.language as pl

ROWS = 64
COLS = 128


@pl.jit.incore
def softmax_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    t = pl.load(x, [0, 0], [ROWS, COLS])
    tmp = pl.create_tile([ROWS, COLS], pl.FP32)  # reduction scratch
    row_max = pl.row_max(t, tmp)  # [ROWS, 1]
    shifted = pl.row_expand_sub(t, row_max)
    e = pl.exp(shifted)
    row_sum = pl.row_sum(e, tmp)
    y = pl.row_expand_div(e, row_sum)
    pl.store(y, [0, 0], out)
    return out


@pl.jit
def softmax(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    out = softmax_rows(x, out)
    return out
