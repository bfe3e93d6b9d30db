# Exercises the dispatch forms the front end keeps in the IR (the pass pipeline rejects them up
# front, CheckProgramForms): pl.at options (optimizations, name_hint, no_dep_args, dumps,
# allow_early_resolve, windowize, deps, `as tid`), the pl.spmd for-form and with-form with
# `as tid`, pl.submit / pl.spmd_submit with deps / dumps / predicate, TaskId arrays, the None
# TaskId, pl.no_dep and pl.dump_tag, and a pl.func_attr prologue.
import pypto.language as pl

BLOCKS = 4


@pl.program
class DispatchForms:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "stationary": x})
        t = pl.load(x, [0, 0], [64, 64])
        return pl.store(t, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        # an InCore scope with every option, its TaskId captured
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT), pl.cross_core_slot(slot_num=4)],
                   name_hint="first", no_dep_args=[x], dumps=[out], allow_early_resolve=True, windowize=True) as first:
            out = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[first]):
            out = pl.mul(out, x)
        for i in pl.spmd(BLOCKS, name_hint="rows", sync_start=True):
            r = i * 16
            t = pl.load(x, [r, 0], [16, 64])
            out = pl.store(t, [r, 0], out)
        with pl.spmd(2) as grid:
            out = self.k(x, out)
        with pl.manual_scope():
            prev = None
            tids = pl.array.create(2, pl.TASK_ID)
            a, t0 = pl.submit(self.k, x, out, deps=[grid], dumps=[x])
            tids[0] = t0
            b, t1 = pl.spmd_submit(self.k, x, a, core_num=BLOCKS, sync_start=True, deps=[tids[0]], allow_early_resolve=True)
            tids[1] = t1
            c, _ = pl.submit(self.k, x, b, deps=[tids[k] for k in range(2)])
        pl.dump_tag(x)
        out = self.k(x, pl.no_dep(c))
        return out
