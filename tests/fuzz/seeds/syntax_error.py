# Seed: syntax errors the front end must locate (unclosed bracket, bad indentation, stray tokens).
import pypto.language as pl


@pl.jit
def broken(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]:
    with pl.at(level=pl.Level.CORE_GROUP)
        out = pl.add(a, (1.0
  return out
)
