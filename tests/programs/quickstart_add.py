# Exercises: the Quickstart tensor-level element-wise add — a single @pl.jit entry whose device
# work sits in `with pl.at(level=pl.Level.CORE_GROUP)`, writing through a pl.Out parameter.
import pypto.language as pl

N = 128


@pl.jit
def add(
    a: pl.Tensor[[N, N], pl.FP32],
    b: pl.Tensor[[N, N], pl.FP32],
    out: pl.Out[pl.Tensor[[N, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.add(a, b)
    return out
