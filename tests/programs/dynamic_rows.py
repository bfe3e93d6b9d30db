# Exercises: a pl.dynamic dim no scalar binds — the orchestration reads it from the tensor's shape,
# bin/run takes it from the input file or --shape x=[...] and sizes the Out tensor with it.
import pypto.language as pl

N = pl.dynamic("N")
COLS = 64
TILE = 16


@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def block(self, x: pl.Tensor[[N, COLS], pl.FP32], r: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[N, COLS], pl.FP32]]) -> pl.Tensor[[N, COLS], pl.FP32]:
        t = pl.load(x, [r, 0], [TILE, COLS])
        return pl.store(pl.add(t, t), [r, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[N, COLS], pl.FP32]]) -> pl.Tensor[[N, COLS], pl.FP32]:
        for i in pl.range(N // TILE):
            out = self.block(x, i * TILE, out)
        return out
