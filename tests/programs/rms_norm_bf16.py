# Exercises: RMSNorm on BF16 data (the form models use): a BF16 [M, H] tensor walked through views
# as in rms_norm.py, each chunk widened to FP32 for the sum of squares and the scaling (pl.cast),
# the result narrowed back to BF16 as it is assigned into y; the gain g stays FP32.
# y = bf16(x * rsqrt(mean(x^2) + EPS) * g).
import pypto.language as pl

M = 4096
H = 2048
BR = 64
BH = 64
EPS = 1e-5


@pl.jit
def rms_bf16(x: pl.Tensor[[M, H], pl.BF16], g: pl.Tensor[[1, H], pl.FP32], y: pl.Out[pl.Tensor[[M, H], pl.BF16]]):
    for r in pl.parallel(0, M, BR):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rms_band"):
            ss = pl.full([1, BR], dtype=pl.FP32, value=0.0)
            for c in pl.range(0, H, BH):
                xc = pl.cast(x[r : r + BR, c : c + BH], pl.FP32)
                ss = pl.add(ss, pl.reshape(pl.row_sum(pl.mul(xc, xc)), [1, BR]))
            scale = pl.reshape(pl.rsqrt(pl.add(pl.mul(ss, 1.0 / H), EPS)), [BR, 1])
            for c in pl.range(0, H, BH):
                xc = pl.cast(x[r : r + BR, c : c + BH], pl.FP32)
                yc = pl.col_expand_mul(pl.row_expand_mul(xc, scale), g[:, c : c + BH])
                y[r : r + BR, c : c + BH] = pl.cast(yc, pl.BF16)
    return y
