# End-to-end: the seed's tile-level square kernel (x * x on one 128x128 FP32 tile) as an
# InCore function called from a @pl.jit entry.
import pypto.language as pl


@pl.jit.incore
def square_tile(
    x: pl.Tensor[[128, 128], pl.FP32],
    out: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
):
    # Tile level: name the on-chip buffer, and move the data yourself.
    t = pl.load(x, [0, 0], [128, 128])
    y = pl.mul(t, t)
    pl.store(y, [0, 0], out)
    return out


@pl.jit
def square(
    x: pl.Tensor[[128, 128], pl.FP32],
    out: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
):
    out = square_tile(x, out)
    return out
