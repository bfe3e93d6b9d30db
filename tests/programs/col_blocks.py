# Exercises: views handed to tasks (MaterializeTensorStrides): the orchestration walks a [ROWS, COLS]
# tensor in column blocks, x[:, c : c + BC], and hands each block, and the matching block of the
# output, to a kernel typed [ROWS, BC]: the kernel's GM views take the blocks' strides (COLS, 1),
# so each task reads and writes its columns where they lie. A reshape view of the whole input
# feeds a second kernel. out[:, c:c+BC] = x[:, c:c+BC] * 2 + c; flat = reshape(x, [ROWS * 2, COLS / 2]) + 1.
import pypto.language as pl

ROWS = 32
COLS = 256
BC = 64


@pl.program
class ColBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def block(self, xb: pl.Tensor[[ROWS, BC], pl.FP32], c: pl.Scalar[pl.INDEX],
              ob: pl.Out[pl.Tensor[[ROWS, BC], pl.FP32]]) -> pl.Tensor[[ROWS, BC], pl.FP32]:
        t = pl.load(xb, [0, 0], [ROWS, BC])
        ob = pl.store(pl.tile.adds(pl.tile.muls(t, 2.0), pl.cast(c, pl.FP32)), [0, 0], ob)
        return ob

    @pl.function(type=pl.FunctionType.InCore)
    def flat_add(self, xf: pl.Tensor[[ROWS * 2, COLS // 2], pl.FP32],
                 of: pl.Out[pl.Tensor[[ROWS * 2, COLS // 2], pl.FP32]]) -> pl.Tensor[[ROWS * 2, COLS // 2], pl.FP32]:
        t = pl.load(xf, [0, 0], [ROWS * 2, COLS // 2])
        of = pl.store(pl.tile.adds(t, 1.0), [0, 0], of)
        return of

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        flat: pl.Out[pl.Tensor[[ROWS * 2, COLS // 2], pl.FP32]],
    ) -> tuple[pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[ROWS * 2, COLS // 2], pl.FP32]]:
        for c in pl.range(0, COLS, BC):
            ob = self.block(x[:, c : c + BC], c, out[:, c : c + BC])
        flat = self.flat_add(pl.reshape(x, [ROWS * 2, COLS // 2]), flat)
        return out, flat
