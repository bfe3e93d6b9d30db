# Exercises a tensor-level matmul whose lhs has fewer valid rows than its tile (decode: T <= 16
# tokens in a 32-row tile) and whose K extent overflows L0A, so AutoTileMatmulL0 tiles it in whole
# L0 blocks; only the valid rows of the result are stored (an Acc window on the 16-row grid).
import pypto.language as pl

M = 32
K = 1024
N = 64
V = 16


@pl.jit
def matmul_valid_rows(
    x: pl.Tensor[[M, K], pl.FP16],
    w: pl.Tensor[[K, N], pl.FP16],
    y: pl.Out[pl.Tensor[[V, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="valid_rows"):
        a = pl.slice(x, [M, K], [0, 0], valid_shape=[V, K])
        c = pl.matmul(a, w, out_dtype=pl.FP32)
        y = pl.assemble(y, c[0:V, 0:N], [0, 0])
    return y
