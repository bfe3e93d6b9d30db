# Exercises: views of windows of a tile. Each row h of an [8, 8] weight tile is a window
# (pl.tile.slice [1, 8] at row h, a start offset of 8 h elements in the tile's buffer), reshaped
# to an [8, 1] column that scales the rows of x: y[:, h C : (h + 1) C] = x * w[h, r] for row r.
# The reshape must start where its window starts (it used to view row 0 for every h, as pypto-lib's
# hc_head did when it split a transposed gate into per-head columns).
import pypto.language as pl

C = 64


@pl.program
class WindowViews:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, w: pl.Tensor[[8, 8], pl.FP32], x: pl.Tensor[[8, C], pl.FP32],
          y: pl.Out[pl.Tensor[[8, 4 * C], pl.FP32]]) -> pl.Tensor[[8, 4 * C], pl.FP32]:
        wt = pl.load(w, [0, 0], [8, 8])
        xt = pl.load(x, [0, 0], [8, C])
        w0 = pl.reshape(pl.tile.slice(wt, [1, 8], [0, 0]), [8, 1])
        w1 = pl.reshape(pl.tile.slice(wt, [1, 8], [1, 0]), [8, 1])
        w2 = pl.reshape(pl.tile.slice(wt, [1, 8], [2, 0]), [8, 1])
        w3 = pl.reshape(pl.tile.slice(wt, [1, 8], [3, 0]), [8, 1])
        y = pl.store(pl.row_expand_mul(xt, w0), [0, 0], y)
        y = pl.store(pl.row_expand_mul(xt, w1), [0, C], y)
        y = pl.store(pl.row_expand_mul(xt, w2), [0, 2 * C], y)
        y = pl.store(pl.row_expand_mul(xt, w3), [0, 3 * C], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: pl.Tensor[[8, 8], pl.FP32], x: pl.Tensor[[8, C], pl.FP32],
             y: pl.Out[pl.Tensor[[8, 4 * C], pl.FP32]]) -> pl.Tensor[[8, 4 * C], pl.FP32]:
        y = self.k(w, x, y)
        return y
