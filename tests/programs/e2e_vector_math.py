# End-to-end, within FP32 tolerance: C-style remainder by a scalar (fmods), Python-style remainder
# (rems), a column broadcast of exp(x - colmax) (col_expand_expdif), a leaky relu, a row
# broadcast max against the row minimum, and a column arg-min, on a [16, 64] tile.
import pypto.language as pl

R = 16
C = 64


@pl.jit.incore
def vector_math(
    x: pl.Tensor[[R, C], pl.FP32],
    fm: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rm: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ed: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    lr: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rx: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ca: pl.Out[pl.Tensor[[1, C], pl.INT32]],
):
    tx = pl.load(x, [0, 0], [R, C])
    pl.store(pl.tile.fmods(tx, 0.3), [0, 0], fm)
    pl.store(pl.tile.rems(tx, 0.3, pl.tile.create([R, C], dtype=pl.FP32)), [0, 0], rm)
    cmax = pl.tile.col_max(tx)
    pl.store(pl.tile.col_expand_expdif(tx, cmax), [0, 0], ed)
    pl.store(pl.tile.lrelu(tx, 0.1), [0, 0], lr)
    rmin = pl.tile.row_min(tx, pl.tile.create([R, C], dtype=pl.FP32))
    pl.store(pl.tile.row_expand_max(tx, rmin), [0, 0], rx)
    pl.store(pl.tile.col_argmin(tx, pl.tile.create([R, C], dtype=pl.FP32)), [0, 0], ca)
    return fm, rm, ed, lr, rx, ca


@pl.jit
def vector_math_entry(
    x: pl.Tensor[[R, C], pl.FP32],
    fm: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rm: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ed: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    lr: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rx: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ca: pl.Out[pl.Tensor[[1, C], pl.INT32]],
):
    fm, rm, ed, lr, rx, ca = vector_math(x, fm, rm, ed, lr, rx, ca)
    return fm, rm, ed, lr, rx, ca
