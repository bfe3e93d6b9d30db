# Exercises: a chain of manual-scope phases ordered only by TaskId arrays, as the reference's
# phase-fence example writes it: each phase makes a fresh array (pl.array.create inside the loop
# body), fills it from a pl.parallel fan-out and yields it as the array the next phase waits on
# (the loop carries one array in and the one its body made out: the generated code copies the
# slots at the end of the iteration). Every task of phase p waits on the whole array of phase p-1,
# so ExpandManualPhaseFence puts one task_dummy barrier per phase. Each task reads every block of
# the previous stage, so a task started early would read stale rows.
# st[0][b] = 2 x[b]; st[p+1][b] = st[p][b] + sum over k of st[p][k].
import pypto.language as pl

R = 16
C = 32
NB = 4
P = 3
S = NB * R


@pl.program
class PhaseChain:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[R, C], pl.FP32], t: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        v = pl.load(x, [0, 0], [R, C])
        return pl.store(pl.tile.muls(v, 2.0), [0, 0], t)

    @pl.function(type=pl.FunctionType.InCore)
    def gather(self, stage: pl.Tensor[[S, C], pl.FP32], b: pl.Scalar[pl.INDEX],
               o: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        acc = pl.load(stage, [b * R, 0], [R, C])
        for k in pl.range(NB):
            acc = pl.tile.add(acc, pl.load(stage, [k * R, 0], [R, C]))
        return pl.store(acc, [0, 0], o)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[S, C], pl.FP32],
             st: pl.Out[pl.Tensor[[(P + 1) * S, C], pl.FP32]]) -> pl.Tensor[[(P + 1) * S, C], pl.FP32]:
        with pl.manual_scope():
            tids = pl.array.create(NB, pl.TASK_ID)
            for b in pl.parallel(NB):
                blk, tid = pl.submit(self.double, x[b * R : b * R + R, :], st[b * R : b * R + R, :])
                tids[b] = tid
            for p, (prev,) in pl.range(P, init_values=(tids,)):
                nxt = pl.array.create(NB, pl.TASK_ID)
                for b in pl.parallel(NB):
                    o, t2 = pl.submit(self.gather, st[p * S : p * S + S, :], b,
                                      st[(p + 1) * S + b * R : (p + 1) * S + b * R + R, :], deps=[prev])
                    nxt[b] = t2
                tids = pl.yield_(nxt)
        return st
