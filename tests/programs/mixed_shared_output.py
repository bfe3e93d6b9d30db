# Exercises: a mixed kernel whose two halves write one output tensor, each its own row blocks
# (as paged sparse attention writes a block's result from the cube, or zeros for an empty block
# from the vector side): a block flagged in `mask` is a @ b stored from Acc by the cube, any other
# block a's rows widened to FP32 by the vector side. The halves do not order their GM writes, so
# ExpandMixedKernel warns (W504) that they must write different elements, and they do.
import pypto.language as pl

M = 32
K = 64
NB = 4


@pl.jit
def mixed_shared_output(
    a: pl.Tensor[[NB * M, K], pl.FP16],
    b: pl.Tensor[[K, K], pl.FP16],
    mask: pl.Tensor[[NB], pl.INT32],
    out: pl.Out[pl.Tensor[[NB * M, K], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="blocks"):
        for i in pl.range(NB):
            r = i * M
            if pl.read(mask, [i]) > 0:
                out[r : r + M, :] = pl.matmul(a[r : r + M, :], b, out_dtype=pl.FP32)
            else:
                out[r : r + M, :] = pl.cast(a[r : r + M, :], pl.FP32)
    return out
