# Exercises: tensor-level code (feature class b) — an InCore function written with tensor ops
# (row reductions, broadcasts, exp) that returns a fresh tensor (its caller allocates it), and a
# named `with pl.at(level=pl.Level.CORE_GROUP)` scope in the orchestration that reads it and
# writes the pl.Out parameter. out = 2 * softmax(x) + x, row-wise.
import pypto.language as pl


@pl.program
class TensorLevel:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(self, x: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        m = pl.row_max(x)
        e = pl.exp(pl.row_expand_sub(x, m))
        s = pl.row_sum(e)
        return pl.row_expand_div(e, s)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[32, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        y = self.softmax(x)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_add"):
            out = pl.add(pl.mul(y, 2.0), x)
        return out
