# End-to-end: an elementwise chain with scalar operands — a runtime scalar (alpha) and literal
# scalars — computing z = relu(alpha * x + y - 0.5) * 0.25 on a 64x128 FP32 block.
import pypto.language as pl

ROWS = 64
COLS = 128


@pl.jit.incore
def axpy_relu(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Tensor[[ROWS, COLS], pl.FP32],
    alpha: pl.Scalar[pl.FP32],
    z: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    tx = pl.load(x, [0, 0], [ROWS, COLS])
    ty = pl.load(y, [0, 0], [ROWS, COLS])
    s = pl.mul(tx, alpha)  # Tile * runtime Scalar -> tile.muls
    s = pl.add(s, ty)
    s = pl.sub(s, 0.5)  # Tile - literal -> tile.subs
    s = pl.relu(s)
    s = pl.mul(s, 0.25)
    pl.store(s, [0, 0], z)
    return z


@pl.jit
def elementwise(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Tensor[[ROWS, COLS], pl.FP32],
    alpha: pl.Scalar[pl.FP32],
    z: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    z = axpy_relu(x, y, alpha, z)
    return z
