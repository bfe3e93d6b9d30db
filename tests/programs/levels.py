# Exercises: the seed "levels" program — a tensor-level and a tile-level @pl.jit.incore kernel
# dispatched by one @pl.jit entry (jit dependency discovery, out[:] write sugar, pl.load/pl.store).
import pypto.language as pl


@pl.jit.incore
def square_tensor(
    x: pl.Tensor[[128, 128], pl.FP32],
    out: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
):
    # Tensor level: name the whole array.
    out[:] = pl.mul(x, x)
    return out


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
def levels(
    x: pl.Tensor[[128, 128], pl.FP32],
    out_t: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    out_k: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
):
    # Control plane: no computation, just dispatch.
    out_t = square_tensor(x, out_t)
    out_k = square_tile(x, out_k)
    return out_t, out_k
