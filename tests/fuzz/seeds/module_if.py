# Seed: a module-level `if` choosing a definition, static_assert, -D-able constants, globals
# assigned before import, a jit family (incore / inline / opaque / extern) and a host entry.
import pypto.language as pl

VARIANT = "small"
ROWS = 16 if VARIANT == "small" else 64
pl.static_assert(ROWS % 16 == 0, "rows must be a multiple of 16")


if VARIANT == "small":
    @pl.jit.incore
    def body(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        t = pl.load(a, [0, 0], [ROWS, 32])
        pl.store(pl.neg(t), [0, 0], out)
        return out
else:
    @pl.jit.incore
    def body(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        t = pl.load(a, [0, 0], [ROWS, 32])
        pl.store(t, [0, 0], out)
        return out


@pl.jit
def entry(a: pl.Tensor[[ROWS, 32], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 32], pl.FP32]]):
    body(a, out)
    return out
