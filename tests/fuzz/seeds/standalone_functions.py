# Seed: standalone @pl.function / @pl.inline functions without a program class.
import pypto.language as pl


@pl.inline
def twice(t: pl.Tile[[16, 128], pl.FP16, pl.Mem.Vec]) -> pl.Tile[[16, 128], pl.FP16, pl.Mem.Vec]:
    return pl.add(t, t)


@pl.function(type=pl.FunctionType.InCore)
def kernel(x: pl.Tensor[[16, 128], pl.FP16], out: pl.Out[pl.Tensor[[16, 128], pl.FP16]]) -> pl.Tensor[[16, 128], pl.FP16]:
    t = pl.load(x, [0, 0], [16, 128])
    u = twice(t)
    v = pl.cast(u, target_type=pl.FP32)
    w = pl.cast(pl.exp(v), target_type=pl.FP16)
    return pl.store(w, [0, 0], out)
