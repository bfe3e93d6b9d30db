# Exercises: tensor-level matmuls larger than the cube's L0 buffers (AutoTileMatmulL0). Each
# pl.at kernel holds its operands whole in Mat (L1); the compiler picks an L0 block (m, n, k)
# and extracts Left / Right sub-tiles per block:
#   * wide: [256, 128] x [128, 256] FP32 — the [256, 256] result overflows L0C, so it is
#     computed and stored in [128, 256] blocks, each a K loop of two k = 64 steps;
#   * flat: [256, 32] x [32, 256] FP32 — output blocks, K in one step;
#   * deep: [64, 1024] x [1024, 64] FP16 — the result fits L0C, so only K is split (the
#     operands overflow L0A / L0B).
import pypto.language as pl

M = 256
N = 256
K = 128
KF = 32
MD = 64
ND = 64
KD = 1024


@pl.jit
def matmul_l0_tiles(
    a: pl.Tensor[[M, K], pl.FP32],
    b: pl.Tensor[[K, N], pl.FP32],
    af: pl.Tensor[[M, KF], pl.FP32],
    bf: pl.Tensor[[KF, N], pl.FP32],
    ad: pl.Tensor[[MD, KD], pl.FP16],
    bd: pl.Tensor[[KD, ND], pl.FP16],
    wide: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    flat: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    deep: pl.Out[pl.Tensor[[MD, ND], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide"):
        wide = pl.assemble(wide, pl.matmul(a, b, out_dtype=pl.FP32), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flat"):
        flat = pl.assemble(flat, pl.matmul(af, bf, out_dtype=pl.FP32), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="deep"):
        deep = pl.assemble(deep, pl.matmul(ad, bd, out_dtype=pl.FP32), [0, 0])
    return wide, flat, deep
