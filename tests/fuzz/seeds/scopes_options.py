# Seed: scope forms with options (pl.at with optimizations, pl.scope, manual scope with deps),
# name_hint, dumps, with ... as tid, pl.submit, pl.func_attr.
import pypto.language as pl


@pl.program
class Scoped:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
            a = pl.add(x, 1.0)
        with pl.manual_scope():
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="second") as tid:
                b = pl.mul(a, 2.0)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):
                out = pl.sub(b, x)
        return out
