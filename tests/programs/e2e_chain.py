# End-to-end: two kernels whose order comes only from a buffer dependency: `scale` writes the
# intermediate `tmp`, `shift` reads it. Nothing but the tmp tensor orders the two tasks.
import pypto.language as pl

ROWS = 64
COLS = 128


@pl.jit.incore
def scale(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    tmp: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    t = pl.load(x, [0, 0], [ROWS, COLS])
    pl.store(pl.mul(t, 3.0), [0, 0], tmp)
    return tmp


@pl.jit.incore
def shift(
    tmp: pl.Tensor[[ROWS, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    t = pl.load(tmp, [0, 0], [ROWS, COLS])
    pl.store(pl.add(t, 1.0), [0, 0], out)
    return out


@pl.jit
def chain(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    tmp = pl.create_tensor([ROWS, COLS], pl.FP32)
    tmp = scale(x, tmp)
    out = shift(tmp, out)
    return out
