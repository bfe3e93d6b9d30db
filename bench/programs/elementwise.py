# Benchmark program (bench/vs_numpy.sh): y = exp(a) * b + a on 8192 x 512 FP32, one task per
# 16-row block (512 tasks). numpy: y = np.exp(a) * b + a.
import pypto.language as pl

R = 8192
C = 512
TR = 16


@pl.jit
def elementwise(
    a: pl.Tensor[[R, C], pl.FP32],
    b: pl.Tensor[[R, C], pl.FP32],
    y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
):
    for r0 in pl.parallel(0, R, TR):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="exp_mul_add"):
            ta = a[r0 : r0 + TR, :]
            y[r0 : r0 + TR, :] = pl.add(pl.mul(pl.exp(ta), b[r0 : r0 + TR, :]), ta)
    return y
