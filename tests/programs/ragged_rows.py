# Exercises: a dynamic length that need not be a multiple of the tile. The orchestration walks
# [ROWS, L] in COLS-wide column blocks; the last block's valid width vlen = min(L - c, COLS) is a
# runtime value: pl.load(valid_shape=[ROWS, vlen]) reads only the valid columns (a GM view with a
# dynamic extent and the dynamic row stride L), fillpad gives the rest -inf so the row max ignores
# them, and the store writes the valid region back. Each block is normalised by its own row max.
import pypto.language as pl

L = pl.dynamic("L")
ROWS = 16
COLS = 64


@pl.program
class RaggedRows:
    @pl.function(type=pl.FunctionType.InCore)
    def block(self, x: pl.Tensor[[ROWS, L], pl.FP32], c: pl.Scalar[pl.INDEX], vlen: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[ROWS, L], pl.FP32]]) -> pl.Tensor[[ROWS, L], pl.FP32]:
        t = pl.load(x, [0, c], [ROWS, COLS], valid_shape=[ROWS, vlen])
        p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
        tmp = pl.create_tile([ROWS, COLS], pl.FP32)
        m = pl.row_max(p, tmp)
        y = pl.row_expand_sub(t, m)
        return pl.store(y, [0, c], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, L], pl.FP32],
             out: pl.Out[pl.Tensor[[ROWS, L], pl.FP32]]) -> pl.Tensor[[ROWS, L], pl.FP32]:
        for b in pl.range((L + COLS - 1) // COLS):
            c = b * COLS
            vlen = pl.min(L - c, COLS)
            out = self.block(x, c, vlen, out)
        return out
