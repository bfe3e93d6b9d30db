# Exercises: RMSNorm at tensor level over a large DDR tensor walked through views. Each
# pl.parallel iteration takes a BR-row band; inside its pl.at scope a pl.range loop over BH-wide
# column chunks carries per-row sums as a [1, BR] tensor (row sums come out [BR, 1] and are
# reshaped), then a second chunk loop normalises x[r:r+BR, h:h+BH] and assigns it into y through
# a subscript: y = x * rsqrt(mean(x^2) + EPS) * g. (layer_norm.py: the same walk for LayerNorm.)
import pypto.language as pl

M = 4096
H = 2048
BR = 64
BH = 64
EPS = 1e-5


@pl.jit
def rms(x: pl.Tensor[[M, H], pl.FP32], g: pl.Tensor[[1, H], pl.FP32], y: pl.Out[pl.Tensor[[M, H], pl.FP32]]):
    for r in pl.parallel(0, M, BR):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rms_band"):
            ss = pl.full([1, BR], dtype=pl.FP32, value=0.0)
            for c in pl.range(0, H, BH):
                xc = x[r : r + BR, c : c + BH]
                ss = pl.add(ss, pl.reshape(pl.row_sum(pl.mul(xc, xc)), [1, BR]))
            scale = pl.reshape(pl.rsqrt(pl.add(pl.mul(ss, 1.0 / H), EPS)), [BR, 1])
            for c in pl.range(0, H, BH):
                xc = x[r : r + BR, c : c + BH]
                y[r : r + BR, c : c + BH] = pl.col_expand_mul(pl.row_expand_mul(xc, scale), g[:, c : c + BH])
    return y
