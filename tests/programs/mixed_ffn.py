# Exercises a mixed kernel with tiles crossing both ways: an FFN block y = silu(x @ w1) @ w2 in ONE
# pl.at scope. The first matmul's Acc tile goes to the vector half (C2V), SiLU runs there, and
# its result comes back to the cube half (V2C: popped into Mat, moved to Left) for the second
# matmul, whose Acc tile the AIC half stores. The halves share one bidirectional pipe.
import pypto.language as pl

M = 32
K = 64
H = 64
N = 32


@pl.jit
def mixed_ffn(
    x: pl.Tensor[[M, K], pl.FP32],
    w1: pl.Tensor[[K, H], pl.FP32],
    w2: pl.Tensor[[H, N], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ffn"):
        h = pl.matmul(x, w1, out_dtype=pl.FP32)
        a = pl.mul(h, pl.recip(pl.add(pl.exp(pl.neg(h)), 1.0)))
        y = pl.assemble(y, pl.matmul(a, w2, out_dtype=pl.FP32), [0, 0])
    return y
