# Exercises: ordering stated by hand — pl.submit returns each task's TaskId, a pl.manual_scope()
# orders its tasks only by the deps= they name (no tensor-derived edges inside), and pl.no_dep(x)
# hands a kernel an argument no dependency is derived from. In the manual scope: fill writes tmp,
# add1 reads it (deps on fill), scale overwrites tmp (deps on the reader: write-after-read) and a
# second add1 reads the new tmp. out = 2x + 1, out2 = 3x + 1, out3 = x + 1 (x read through no_dep).
import pypto.language as pl

R = 64
C = 128


@pl.program
class ManualDeps:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[R, C], pl.FP32], t: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        v = pl.load(x, [0, 0], [R, C])
        t = pl.store(pl.tile.muls(v, 2.0), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[R, C], pl.FP32], t: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        v = pl.load(x, [0, 0], [R, C])
        t = pl.store(pl.tile.muls(v, 3.0), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def add1(self, t: pl.Tensor[[R, C], pl.FP32], o: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        v = pl.load(t, [0, 0], [R, C])
        o = pl.store(pl.tile.adds(v, 1.0), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        out2: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        out3: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, C], pl.FP32]]:
        tmp = pl.create_tensor([R, C], dtype=pl.FP32)
        with pl.manual_scope():
            tmp, t_fill = pl.submit(self.fill, x, tmp)
            out, t_read = pl.submit(self.add1, tmp, out, deps=[t_fill])
            tmp, t_scale = pl.submit(self.scale, x, tmp, deps=[t_read])
            out2, t_read2 = pl.submit(self.add1, tmp, out2, deps=[t_scale])
        out3 = self.add1(pl.no_dep(x), out3)
        return out, out2, out3
