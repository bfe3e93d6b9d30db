# End-to-end: windows of on-chip tiles (pl.slice of a Vec tile, a view into its buffer):
#   rows   — one row at a time at a loop-variable offset, assembled into another tile;
#   cols   — a column block at a constant 32-byte-aligned column, then computed on;
#   nested — a window of a window, read element-wise (tile.read through the view's pitch).
import pypto.language as pl

R = 32
C = 64


@pl.program
class TileWindows:
    @pl.function(type=pl.FunctionType.InCore)
    def windows(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        src: pl.Tensor[[R, 16], pl.FP32],
        rows: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        cols: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
        nested: pl.Out[pl.Tensor[[8, 8], pl.FP32]],
        picked: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, 16], pl.FP32], pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[1, 8], pl.FP32]]:
        tx = pl.load(x, [0, 0], [R, C])
        ts = pl.load(src, [0, 0], [R, 16])
        acc = tx
        for i in pl.range(R):
            row = pl.slice(ts, [1, 16], [i, 0])
            acc = pl.tile.assemble(acc, pl.mul(row, 2.0), [i, 16])
        rows = pl.store(acc, [0, 0], rows)
        blk = pl.slice(tx, [R, 16], [0, 32])
        cols = pl.store(pl.add(blk, 1.0), [0, 0], cols)
        outer = pl.slice(tx, [16, 32], [8, 16])
        inner = pl.slice(outer, [8, 8], [4, 8])
        nested = pl.store(pl.mul(inner, 3.0), [0, 0], nested)
        v = pl.tile.read(inner, [2, 3])
        p = pl.tile.full([1, 8], dtype=pl.FP32, value=0.0)
        p = pl.add(p, v)
        picked = pl.store(p, [0, 0], picked)
        return rows, cols, nested, picked

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        src: pl.Tensor[[R, 16], pl.FP32],
        rows: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        cols: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
        nested: pl.Out[pl.Tensor[[8, 8], pl.FP32]],
        picked: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, 16], pl.FP32], pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[1, 8], pl.FP32]]:
        rows, cols, nested, picked = self.windows(x, src, rows, cols, nested, picked)
        return rows, cols, nested, picked
