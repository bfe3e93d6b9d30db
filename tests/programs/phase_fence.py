# Exercises: ExpandManualPhaseFence — in a manual scope, NB producer tasks fill a TaskId array and
# a pl.parallel loop of NB consumers each waits on the whole array (deps=[tids]): NB * NB edges.
# For NB >= 3 the pass puts one pl.system.task_dummy barrier on the array before the loop and the
# consumers wait on it (NB + NB edges); the order the runtime keeps is the same. Each consumer reads
# every producer's block (the sum of all rows blocks), so a consumer that started early would
# read stale blocks.
# tmp[b] = x[b] * 2; out[b] = x[b] + sum over k of tmp[k].
import pypto.language as pl

R = 16
C = 64
NB = 4


@pl.program
class PhaseFence:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[R, C], pl.FP32], t: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        v = pl.load(x, [0, 0], [R, C])
        return pl.store(pl.tile.muls(v, 2.0), [0, 0], t)

    @pl.function(type=pl.FunctionType.InCore)
    def gather(self, x: pl.Tensor[[R, C], pl.FP32], all_blocks: pl.Tensor[[NB * R, C], pl.FP32],
               o: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        acc = pl.load(x, [0, 0], [R, C])
        for k in pl.range(NB):
            acc = pl.tile.add(acc, pl.load(all_blocks, [k * R, 0], [R, C]))
        return pl.store(acc, [0, 0], o)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32],
             out: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]) -> pl.Tensor[[NB * R, C], pl.FP32]:
        tmp = pl.create_tensor([NB * R, C], dtype=pl.FP32)
        with pl.manual_scope():
            tids = pl.array.create(NB, pl.TASK_ID)
            for b in pl.range(NB):
                blk, tid = pl.submit(self.double, x[b * R : b * R + R, :], tmp[b * R : b * R + R, :])
                tids[b] = tid
            for b in pl.parallel(NB):
                o, t2 = pl.submit(self.gather, x[b * R : b * R + R, :], tmp, out[b * R : b * R + R, :],
                                  deps=[tids])
        return out
