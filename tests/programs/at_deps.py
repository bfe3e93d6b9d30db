# Exercises: a pl.at kernel ordered by deps= on one slot of a TaskId array, inside a manual scope
# (where only deps= order tasks): NB producer tasks each scale one block of x into tmp and record
# their TaskId in tids[b]; each pl.at consumer then waits on tids[b] alone and adds 1 to its
# block. The deps= expression (tids[b]) is orchestration code although it sits on the kernel's
# scope. out = 2 * x + 1.
import pypto.language as pl

R = 16
C = 64
NB = 4


@pl.program
class AtDeps:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[R, C], pl.FP32], s: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        return pl.store(pl.tile.muls(pl.load(x, [0, 0], [R, C]), s), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32], out: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]) -> pl.Tensor[[NB * R, C], pl.FP32]:
        tmp = pl.create_tensor([NB * R, C], dtype=pl.FP32)
        with pl.manual_scope():
            tids = pl.array.create(NB, pl.TASK_ID)
            for b in pl.range(NB):
                blk, tid = pl.submit(self.scale, x[b * R : b * R + R, :], 2.0, tmp[b * R : b * R + R, :])
                tids[b] = tid
            for b in pl.range(NB):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="plus_one", deps=[tids[b]]):
                    out[b * R : b * R + R, :] = pl.add(tmp[b * R : b * R + R, :], 1.0)
        return out
