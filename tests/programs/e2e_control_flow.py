# End-to-end: control flow inside a kernel. A pl.range loop accumulates the four 64-row blocks of
# x into a carried tile, an if on a runtime scalar picks doubling or exp, and a scalar read of
# one element (pl.read) is added back to every element. Exercises loop back-edge syncs, an
# if-phi of tiles and a vector -> scalar-pipe flag.
import pypto.language as pl

BLK = 64
COLS = 128
BLOCKS = 4


@pl.program
class ControlFlow:
    @pl.function(type=pl.FunctionType.InCore)
    def block_sum(
        self,
        x: pl.Tensor[[BLK * BLOCKS, COLS], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[BLK, COLS], pl.FP32]],
    ) -> pl.Tensor[[BLK, COLS], pl.FP32]:
        acc = pl.load(x, [0, 0], [BLK, COLS])
        for i in pl.range(1, BLOCKS):
            t = pl.load(x, [i * BLK, 0], [BLK, COLS])
            acc = pl.add(acc, t)
        if n > 2:
            acc = pl.mul(acc, 2.0)
        else:
            acc = pl.exp(acc)
        corner = pl.read(acc, [0, 0])
        acc = pl.add(acc, corner)
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[BLK * BLOCKS, COLS], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[BLK, COLS], pl.FP32]],
    ) -> pl.Tensor[[BLK, COLS], pl.FP32]:
        out = self.block_sum(x, n, out)
        return out
