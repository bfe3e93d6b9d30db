# Exercises: split-K accumulation with atomic add. c = a @ b with the K reduction spread over
# SPLIT kernels: each multiplies one [M, KS] x [KS, N] slice and adds its partial product into
# c with pl.assemble(..., atomic=pl.AtomicType.Add) (an atomic-add store from Acc). c is
# zeroed by a kernel first; every split kernel then reads and writes it, so the runtime orders
# them after the zeroing (and after each other).
import pypto.language as pl

M = 64
N = 64
K = 512
SPLIT = 4
KS = K // SPLIT


@pl.jit
def split_k(
    a: pl.Tensor[[M, K], pl.FP16],
    b: pl.Tensor[[K, N], pl.FP16],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="zero_c"):
        c = pl.assemble(c, pl.full([M, N], dtype=pl.FP32, value=0.0), [0, 0])
    for s in pl.parallel(0, SPLIT):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="partial"):
            k0 = s * KS
            part = pl.matmul(a[:, k0 : k0 + KS], b[k0 : k0 + KS, :], out_dtype=pl.FP32)
            c = pl.assemble(c, part, [0, 0], atomic=pl.AtomicType.Add)
    return c
