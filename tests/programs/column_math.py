# Exercises: elementwise math on per-row statistics — [R, 1] column tiles, which the vector unit
# computes on only in row-major form, so the compiler runs each op on a [1, R] view of the same
# bytes (ResolveBackendOpLayouts). Tensor level in a pl.at kernel:
#   y = x * (sqrt(mean(x^2) + 1) - 0.01 * rowmax(x) + 1 / (rowsum(|x|) + 1))   (row-wise)
import pypto.language as pl

R = 32
C = 64


@pl.jit
def column_math(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_scale"):
        ms = pl.mul(pl.row_sum(pl.mul(x, x)), 1.0 / C)
        q = pl.sqrt(pl.add(ms, 1.0))
        mx = pl.row_max(x)
        inv = pl.recip(pl.add(pl.row_sum(pl.abs(x)), 1.0))
        s = pl.add(pl.sub(q, pl.mul(mx, 0.01)), inv)
        y = pl.row_expand_mul(x, s)
    return y
