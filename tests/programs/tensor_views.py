# Exercises: tensor-level views and joins inside pl.at scopes: pl.concat of two tensors along the
# columns, pl.transpose of a tensor (on chip, inside the kernel), and a pl.reshape view of the
# input in the orchestration handed to a scope. cat = [a | b]; tr = a^T * 2; flat = reshape(b) - 1.
import pypto.language as pl

R = 32
C = 64


@pl.jit
def tensor_views(
    a: pl.Tensor[[R, C], pl.FP32],
    b: pl.Tensor[[R, C], pl.FP32],
    cat: pl.Out[pl.Tensor[[R, 2 * C], pl.FP32]],
    tr: pl.Out[pl.Tensor[[C, R], pl.FP32]],
    flat: pl.Out[pl.Tensor[[R // 2, 2 * C], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="join"):
        cat = pl.concat(a, b)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flip"):
        tr = pl.mul(pl.transpose(a, 0, 1), 2.0)
    bv = pl.reshape(b, [R // 2, 2 * C])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flat"):
        flat = pl.sub(bv, 1.0)
    return cat, tr, flat
