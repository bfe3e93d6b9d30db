# Exercises: a TaskId carried through an orchestration loop — each `step` scope waits on the task
# before it (deps=[prev]) and names itself prev (`as prev`), so the chain of writes to out is
# ordered by declared edges on top of the tensor-derived ones. out = x + 3 x.
import pypto.language as pl

R = 16
C = 64


@pl.jit
def main(x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="init") as prev:
        out[:] = pl.mul(x, 1.0)
    for i in pl.range(3):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="step", deps=[prev]) as prev:
            out[:] = pl.add(out, x)
    return out
