# End-to-end: a kernel with a scalar row-offset parameter, called once per block from an
# orchestration pl.range loop: several tasks write disjoint row blocks of one output.
import pypto.language as pl

ROWS = 256
COLS = 128
BLK = 64


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_block(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        r: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [r, 0], [BLK, COLS])
        y = pl.add(pl.mul(t, 2.0), 1.0)
        out = pl.store(y, [r, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for i in pl.range(ROWS // BLK):
            r = i * BLK  # orchestration call args must be variables or literals
            out = self.scale_block(x, r, out)
        return out
