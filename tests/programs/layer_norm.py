# Exercises: LayerNorm at tensor level over a large DDR tensor walked through views. Each
# pl.parallel iteration takes a BR-row band; inside its pl.at scope a pl.range loop over BH-wide
# column chunks carries per-row sums and sums of squares as [1, BR] tensors (row sums come out [BR, 1] and are
# reshaped), then a second chunk loop normalises x[r:r+BR, h:h+BH] and assigns it into y through
# a subscript: y = (x - mean) * rsqrt(var + EPS) * g + b, var = mean(x^2) - mean^2.
import pypto.language as pl

M = 4096
H = 2048
BR = 64
BH = 64
EPS = 1e-5


@pl.jit
def layer(x: pl.Tensor[[M, H], pl.FP32], g: pl.Tensor[[1, H], pl.FP32], b: pl.Tensor[[1, H], pl.FP32],
          y: pl.Out[pl.Tensor[[M, H], pl.FP32]]):
    for r in pl.parallel(0, M, BR):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="layer_band"):
            s1 = pl.full([1, BR], dtype=pl.FP32, value=0.0)
            s2 = pl.full([1, BR], dtype=pl.FP32, value=0.0)
            for c in pl.range(0, H, BH):
                xc = x[r : r + BR, c : c + BH]
                s1 = pl.add(s1, pl.reshape(pl.row_sum(xc), [1, BR]))
                s2 = pl.add(s2, pl.reshape(pl.row_sum(pl.mul(xc, xc)), [1, BR]))
            mean = pl.mul(s1, 1.0 / H)
            var = pl.sub(pl.mul(s2, 1.0 / H), pl.mul(mean, mean))
            rstd = pl.reshape(pl.rsqrt(pl.add(var, EPS)), [BR, 1])
            mean_col = pl.reshape(mean, [BR, 1])
            for c in pl.range(0, H, BH):
                xc = x[r : r + BR, c : c + BH]
                z = pl.row_expand_mul(pl.row_expand_sub(xc, mean_col), rstd)
                y[r : r + BR, c : c + BH] = pl.col_expand_add(pl.col_expand_mul(z, g[:, c : c + BH]), b[:, c : c + BH])
    return y
