# Benchmark program (bench/vs_numpy.sh): per-row sum and max of 8192 x 512 FP32, one task per
# 16-row block (512 tasks). numpy: s = a.sum(axis=1, keepdims=True); m = a.max(axis=1, keepdims=True).
import pypto.language as pl

R = 8192
C = 512
TR = 16


@pl.jit
def row_reduce(
    a: pl.Tensor[[R, C], pl.FP32],
    s: pl.Out[pl.Tensor[[R, 1], pl.FP32]],
    m: pl.Out[pl.Tensor[[R, 1], pl.FP32]],
):
    for r0 in pl.parallel(0, R, TR):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_sum_max"):
            ta = a[r0 : r0 + TR, :]
            s[r0 : r0 + TR, :] = pl.row_sum(ta)
            m[r0 : r0 + TR, :] = pl.row_max(ta)
    return s, m
