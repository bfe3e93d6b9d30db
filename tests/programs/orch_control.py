# Exercises: control flow in orchestration code (CtrlFlowTransform rewrites it there too; the
# emitter prints the while loop, its body one runtime scope per iteration): a pl.range loop over
# row blocks that stops submitting at a runtime bound (`break` once r >= n_rows), one that skips
# every third block (`continue`), and a pl.while_ loop carrying a scalar that doubles the block
# offset. Blocks a loop does not reach keep the output's initial zeros... so each output is
# first written whole by a kernel and then updated block by block.
import pypto.language as pl

ROWS = 128
COLS = 64
BLK = 16


@pl.program
class OrchControl:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], o: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [0, 0], [ROWS, COLS])
        o = pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, o: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]], r: pl.Scalar[pl.INDEX], v: pl.Scalar[pl.FP32]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(o, [r, 0], [BLK, COLS])
        o = pl.store(pl.tile.adds(t, v), [r, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        n_rows: pl.Scalar[pl.INDEX],
        a: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        b: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        c: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[ROWS, COLS], pl.FP32]]:
        a = self.fill(x, a)
        for r in pl.range(0, ROWS, BLK):
            if r >= n_rows:
                break
            a = self.bump(a, r, 1.0)
        b = self.fill(x, b)
        for r in pl.range(0, ROWS, BLK):
            if r % (3 * BLK) == 0:
                continue
            b = self.bump(b, r, 2.0)
        c = self.fill(x, c)
        for (off,) in pl.while_(init_values=(BLK,)):
            pl.cond(off < ROWS)
            c = self.bump(c, off, 3.0)
            off = pl.yield_(off * 2)
        return a, b, c
