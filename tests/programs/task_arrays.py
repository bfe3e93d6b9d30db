# Exercises: TaskId arrays in a manual scope, where only deps= order tasks — pl.array.create(N,
# pl.TASK_ID) (every slot "no producer yet"), slot writes in an orchestration loop (tids[b] = tid:
# the array is carried through the loop), a consumer waiting on slots
# (deps=[tids[i] for i in range(N)]) and one waiting on a whole array (deps=[done]).
# tmp = 2x per row block, out = 3 tmp per block (after every producer), fin = out / 2 = 3x.
import pypto.language as pl

R = 64
C = 128
NB = 4


@pl.program
class TaskArrays:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[R, C], pl.FP32], f: pl.Scalar[pl.FP32], t: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        v = pl.load(x, [0, 0], [R, C])
        t = pl.store(pl.tile.muls(v, f), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def half(self, x: pl.Tensor[[NB * R, C], pl.FP32], t: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]) -> pl.Tensor[[NB * R, C], pl.FP32]:
        for b in pl.range(NB):
            v = pl.load(x, [b * R, 0], [R, C])
            t = pl.store(pl.tile.muls(v, 0.5), [b * R, 0], t)
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32], out: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]],
             fin: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]) -> tuple[pl.Tensor[[NB * R, C], pl.FP32], pl.Tensor[[NB * R, C], pl.FP32]]:
        tmp = pl.create_tensor([NB * R, C], dtype=pl.FP32)
        with pl.manual_scope():
            tids = pl.array.create(NB, pl.TASK_ID)
            for b in pl.range(NB):
                blk, tid = pl.submit(self.scale, x[b * R : b * R + R, :], 2.0, tmp[b * R : b * R + R, :])
                tids[b] = tid
            done = pl.array.create(NB, pl.TASK_ID)
            for b in pl.range(NB):
                o, t2 = pl.submit(self.scale, tmp[b * R : b * R + R, :], 3.0, out[b * R : b * R + R, :],
                                  deps=[tids[i] for i in range(NB)])
                done[b] = t2
            fin, t3 = pl.submit(self.half, out, fin, deps=[done])
        return out, fin
