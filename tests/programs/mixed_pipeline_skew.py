# Exercises: SkewCrossCorePipeline — attention's round trip per row block in a pl.pipeline loop:
# the cube computes scores S = Q_i K (pushed to the vector side), the vector side returns
# P = exp(S / 8) in FP16 (pushed back), the cube computes O_i = P V and stores it. The cube half
# sends then receives, so its sends run ahead of its receives (the scores of block i + 1 are
# computed while the vector side works on block i); the vector half, which receives first, runs
# its iterations in order. A ring of 4 slots lets the cube run up to 3 blocks ahead.
import pypto.language as pl

M = 16
K = 64
N = 64
D = 64
NB = 4
STAGE = 2


@pl.jit
def mixed_pipeline_skew(
    q: pl.Tensor[[NB * M, K], pl.FP16],
    k: pl.Tensor[[K, N], pl.FP16],
    v: pl.Tensor[[N, D], pl.FP16],
    out: pl.Out[pl.Tensor[[NB * M, D], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="qk_pv", optimizations=[pl.cross_core_slot(slot_num=4)]):
        for i in pl.pipeline(NB, stage=STAGE):
            r = i * M
            s = pl.matmul(q[r : r + M, :], k, out_dtype=pl.FP32)
            p = pl.cast(pl.exp(pl.mul(s, 0.125)), target_type=pl.FP16)
            out[r : r + M, :] = pl.matmul(p, v, out_dtype=pl.FP32)
    return out
