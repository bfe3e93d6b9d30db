# Exercises: module-level pl.dynamic symbols used in shapes (the same name is the same Var), a
# Scalar[INDEX] parameter binding the symbol, a loop bound computed from it, subscript slices.
import pypto.language as pl

M = pl.dynamic("M")
COLS = 128
TILE = 32


@pl.program
class Dyn:
    @pl.function(type=pl.FunctionType.InCore)
    def row_block(self, x: pl.Tensor[[M, COLS], pl.FP32], r: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[M, COLS], pl.FP32]]) -> pl.Tensor[[M, COLS], pl.FP32]:
        t = pl.load(x, [r, 0], [TILE, COLS])
        return pl.store(pl.exp(t), [r, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, M: pl.Scalar[pl.INDEX], x: pl.Tensor[[M, COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[M, COLS], pl.FP32]]) -> pl.Tensor[[M, COLS], pl.FP32]:
        for i in pl.range(M // TILE):
            r = i * TILE
            out = self.row_block(x, r, out)
        return out
