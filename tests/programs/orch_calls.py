# Exercises: an Orchestration function calling another (InlineFunctions splices the callee's task
# graph into its caller): `blocks` submits one kernel per row block, `main` calls it twice through
# an intermediate tensor, so out = 2 * (2 * x + 1) + 1 by 16-row blocks.
import pypto.language as pl

ROWS = 64
COLS = 64
BLK = 16


@pl.program
class OrchCalls:
    @pl.function(type=pl.FunctionType.InCore)
    def affine(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [r, 0], [BLK, COLS])
        return pl.store(pl.adds(pl.muls(t, 2.0), 1.0), [r, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def blocks(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
               out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for i in pl.range(ROWS // BLK):
            r = i * BLK
            out = self.affine(x, r, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        mid = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
        mid = self.blocks(x, mid)
        out = self.blocks(mid, out)
        return out
