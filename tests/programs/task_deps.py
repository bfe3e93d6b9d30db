# Exercises: ordering stated with deps=. `reader` reads tmp, then `clobber` overwrites it: a write
# after a read, which the runtime's tensor tracking never orders. `as reader` names the first
# task and deps=[reader] makes clobber wait for it (bin/run --check-races, on in pypto test,
# reports the pair when the deps= is removed: tests/e2e/run_checkers_test.cpp).
import pypto.language as pl

R = 64
C = 128


@pl.jit.incore
def fill(x: pl.Tensor[[R, C], pl.FP32], tmp: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
    t = pl.load(x, [0, 0], [R, C])
    pl.store(pl.mul(t, 2.0), [0, 0], tmp)
    return tmp


@pl.jit
def main(x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             out2: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
    tmp = pl.create_tensor([R, C], pl.FP32)
    tmp = fill(x, tmp)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="reader") as reader:
        out[:] = pl.add(tmp, 1.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="clobber", deps=[reader]):
        tmp[:] = pl.mul(x, 3.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
        out2[:] = pl.add(tmp, 1.0)
    return out, out2
