# Exercises: @pl.jit with with-scopes (pl.at with name_hint, pl.manual_scope), tensor slices and
# the subscript-write sugar (dst[r:r+16, :] = src), a natural while loop, tensor creation.
import pypto.language as pl


@pl.jit
def scoped(
    x: pl.Tensor[[64, 64], pl.FP32],
    out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
        top = x[0:16, :]
        out[0:16, :] = pl.exp(top)
    for i in pl.range(1, 4):
        r = i * 16
        with pl.at(level=pl.Level.CORE_GROUP):
            out[r:r + 16, :] = pl.add(x[r:r + 16, :], x[r:r + 16, :])
    return out
