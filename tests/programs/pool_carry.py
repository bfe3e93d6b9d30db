# Exercises: a tensor created by the orchestration, written in place row by row inside one pl.at
# scope (a loop with a branch assigns into it: pooled[b : b + 1, :] = ...) and read by a second
# scope. The first kernel's live-outs are both the loop's result and the tensor itself, so it
# returns that parameter twice; NormalizeReturnOrder returns it once and both caller indices
# name it. pooled[b] = x[2b] + x[2b + 1] for even b, x[2b] for odd b; y = 2 * pooled.
import pypto.language as pl

B = 8
C = 64


@pl.jit
def pool_carry(x: pl.Tensor[[2 * B, C], pl.FP32], y: pl.Out[pl.Tensor[[B, C], pl.FP32]]):
    pooled = pl.create_tensor([B, C], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pool"):
        for b in pl.range(B):
            if b % 2 == 0:
                pooled[b : b + 1, :] = pl.add(x[2 * b : 2 * b + 1, :], x[2 * b + 1 : 2 * b + 2, :])
            else:
                pooled[b : b + 1, :] = pl.mul(x[2 * b : 2 * b + 1, :], 1.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        y = pl.assemble(y, pl.mul(pooled, 2.0), [0, 0])
    return y
