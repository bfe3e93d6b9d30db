# Exercises: manual dependencies through TaskIds — pl.system.task_invalid() (no producer yet, as
# None is), a pl.system.task_dummy fan-in of two producers' TaskIds (a task that runs nothing and
# finishes after both), and a consumer in the manual scope that waits on the fan-in only. The
# invalid id in a deps list is skipped. out = 2x + 3y + 1.
import pypto.language as pl

R = 64
C = 128


@pl.program
class TaskFanin:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[R, C], pl.FP32], f: pl.Scalar[pl.FP32], t: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        v = pl.load(x, [0, 0], [R, C])
        t = pl.store(pl.tile.muls(v, f), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def combine(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32], o: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        va = pl.load(a, [0, 0], [R, C])
        vb = pl.load(b, [0, 0], [R, C])
        o = pl.store(pl.tile.adds(pl.tile.add(va, vb), 1.0), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.create_tensor([R, C], dtype=pl.FP32)
        tb = pl.create_tensor([R, C], dtype=pl.FP32)
        with pl.manual_scope():
            none_yet = pl.system.task_invalid()
            ta, t_a = pl.submit(self.scale, x, 2.0, ta, deps=[none_yet])
            tb, t_b = pl.submit(self.scale, y, 3.0, tb)
            both = pl.system.task_dummy(deps=[t_a, none_yet, t_b])
            out, t_out = pl.submit(self.combine, ta, tb, out, deps=[both])
        return out
