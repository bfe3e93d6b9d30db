# Exercises: a flash-attention style online softmax — per BR-row band, a pl.range loop over
# BC-wide column chunks carries the running row max m and running sum l (init_values / pl.yield_),
# with an `if` on the first chunk whose arms yield different values (the later chunks rescale l
# by exp(m_old - m_new)); a second loop writes exp(x - m) / l through subscript assignments.
import pypto.language as pl

R = 64
N = 256
BR = 16
BC = 64


@pl.jit
def online_softmax(x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
    for r in pl.parallel(0, R, BR):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="band"):
            m0 = pl.full([1, BR], dtype=pl.FP32, value=0.0)
            l0 = pl.full([1, BR], dtype=pl.FP32, value=0.0)
            for c, (m, l) in pl.range(0, N, BC, init_values=(m0, l0)):
                xc = x[r : r + BR, c : c + BC]
                cm = pl.reshape(pl.row_max(xc), [1, BR])
                if c == 0:
                    e = pl.exp(pl.row_expand_sub(xc, pl.reshape(cm, [BR, 1])))
                    ln = pl.reshape(pl.row_sum(e), [1, BR])
                    m2, l2 = pl.yield_(cm, ln)
                else:
                    mn = pl.maximum(m, cm)
                    e = pl.exp(pl.row_expand_sub(xc, pl.reshape(mn, [BR, 1])))
                    ln = pl.add(pl.mul(l, pl.exp(pl.sub(m, mn))), pl.reshape(pl.row_sum(e), [1, BR]))
                    m2, l2 = pl.yield_(mn, ln)
                m, l = pl.yield_(m2, l2)
            mc = pl.reshape(m, [BR, 1])
            lc = pl.reshape(l, [BR, 1])
            for c in pl.range(0, N, BC):
                xc = x[r : r + BR, c : c + BC]
                y[r : r + BR, c : c + BC] = pl.row_expand_div(pl.exp(pl.row_expand_sub(xc, mc)), lc)
    return y
