# Benchmark program (bench/vs_numpy.sh): row softmax of 8192 x 512 FP32, one task per 16-row
# block (512 tasks). numpy: e = np.exp(a - a.max(1, keepdims=True)); y = e / e.sum(1, keepdims=True).
import pypto.language as pl

R = 8192
C = 512
TR = 16


@pl.jit
def softmax(
    a: pl.Tensor[[R, C], pl.FP32],
    y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
):
    for r0 in pl.parallel(0, R, TR):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="softmax_rows"):
            ta = a[r0 : r0 + TR, :]
            e = pl.exp(pl.row_expand_sub(ta, pl.row_max(ta)))
            y[r0 : r0 + TR, :] = pl.row_expand_div(e, pl.row_sum(e))
    return y
