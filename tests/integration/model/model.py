# The integration examples' model (tests/integration/make, cmake): one vector kernel that scales
# its input by a constant of the imported module config.py.
import pypto.language as pl

from config import COLS, ROWS, SCALE


@pl.jit.incore
def scale(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    t = pl.load(x, [0, 0], [ROWS, COLS])
    pl.store(pl.mul(t, SCALE), [0, 0], out)
    return out


@pl.jit
def model(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    out = scale(x, out)
    return out
