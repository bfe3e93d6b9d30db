# Exercises: language.md §2.1 ScaledAdd — module constants folded into shapes (ROWS // BLK),
# pl.Scalar parameters, Tile * Scalar dispatching to the scalar form (tile.muls), an
# orchestration pl.range loop that rebinds an Out parameter (non-SSA rebinding).
import pypto.language as pl

ROWS = 256
BLK = 64


@pl.program
class ScaledAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def scaled_add(self, x: pl.Tensor[[ROWS, 128], pl.FP32], y: pl.Tensor[[ROWS, 128], pl.FP32],
                   alpha: pl.Scalar[pl.FP32], r: pl.Scalar[pl.INDEX],
                   z: pl.Out[pl.Tensor[[ROWS, 128], pl.FP32]]) -> pl.Tensor[[ROWS, 128], pl.FP32]:
        tx = pl.load(x, [r, 0], [BLK, 128])
        ty = pl.mul(pl.load(y, [r, 0], [BLK, 128]), alpha)   # Tile * Scalar -> tile.muls
        return pl.store(pl.add(tx, ty), [r, 0], z)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, 128], pl.FP32], y: pl.Tensor[[ROWS, 128], pl.FP32],
             alpha: pl.Scalar[pl.FP32],
             z: pl.Out[pl.Tensor[[ROWS, 128], pl.FP32]]) -> pl.Tensor[[ROWS, 128], pl.FP32]:
        for i in pl.range(ROWS // BLK):
            r = i * BLK
            z = self.scaled_add(x, y, alpha, r, z)
        return z
