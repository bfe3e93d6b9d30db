# Exercises: FuseCreateAssembleToSlice — scratch tensors that a kernel fills and the orchestration
# then assembles into an output become windows of that output, which the kernel writes in place:
# rows of a [ROWS, COLS] output (one [1, COLS] row per task), column blocks of another (a
# [ROWS, BC] block per task: the kernel's Out view takes the output's strides (COLS, 1)), and
# [ROWS, BC] blocks assembled into a rank-3 [2, ROWS, COLS] output at [b, 0, c] (a [1, ROWS, BC]
# window handed to the kernel's [ROWS, BC] parameter).
# rows[r, :] = x[r, :] * 2 + r; blocks[:, c:c+BC] = x[:, c:c+BC] + 1; planes[b, :, c:c+BC] = x[:, c:c+BC] * (b + 1).
import pypto.language as pl

ROWS = 8
COLS = 64
BC = 16


@pl.program
class AssembleViews:
    @pl.function(type=pl.FunctionType.InCore)
    def fill_row(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], r: pl.Scalar[pl.INDEX],
                 out: pl.Out[pl.Tensor[[1, COLS], pl.FP32]]) -> pl.Tensor[[1, COLS], pl.FP32]:
        t = pl.load(x, [r, 0], [1, COLS])
        out = pl.store(pl.tile.adds(pl.tile.muls(t, 2.0), pl.cast(r, pl.FP32)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def fill_block(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], c: pl.Scalar[pl.INDEX],
                   out: pl.Out[pl.Tensor[[ROWS, BC], pl.FP32]]) -> pl.Tensor[[ROWS, BC], pl.FP32]:
        t = pl.load(x, [0, c], [ROWS, BC])
        out = pl.store(pl.tile.adds(t, 1.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def fill_chunk(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], b: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX],
                   out: pl.Out[pl.Tensor[[ROWS, BC], pl.FP32]]) -> pl.Tensor[[ROWS, BC], pl.FP32]:
        t = pl.load(x, [0, c], [ROWS, BC])
        out = pl.store(pl.tile.muls(t, pl.cast(b + 1, pl.FP32)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        rows: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        blocks: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        planes: pl.Out[pl.Tensor[[2, ROWS, COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[2, ROWS, COLS], pl.FP32]]:
        for r in pl.range(ROWS):
            row = pl.create_tensor([1, COLS], dtype=pl.FP32)
            row = self.fill_row(x, r, row)
            rows = pl.assemble(rows, row, [r, 0])
        for c in pl.range(0, COLS, BC):
            blk = pl.create_tensor([ROWS, BC], dtype=pl.FP32)
            blk = self.fill_block(x, c, blk)
            blocks = pl.assemble(blocks, blk, [0, c])
        for b in pl.range(2):
            for c2 in pl.range(0, COLS, BC):
                ch = pl.create_tensor([ROWS, BC], dtype=pl.FP32)
                ch = self.fill_chunk(x, b, c2, ch)
                planes = pl.assemble(planes, ch, [b, 0, c2])
        return rows, blocks, planes
