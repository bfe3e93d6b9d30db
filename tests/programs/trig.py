# Exercises: trigonometry (LowerCompositeOps) — tile.sin / tile.cos in a hand-written kernel over
# row blocks of a scaled input (SCALE stretches the arguments over many periods, so the range
# reduction is what is tested), and pl.sin / pl.cos at the tensor level inside pl.at on a row
# block slice. out = sin(SCALE*x) * cos(x) + 0.5 * cos(SCALE*x); rot = cos(x) * sin(y) - sin(x).
import pypto.language as pl

ROWS = 64
COLS = 128
BLK = 16
SCALE = 100.0


@pl.program
class Trig:
    @pl.function(type=pl.FunctionType.InCore)
    def wave(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for r in pl.range(0, ROWS, BLK):
            t = pl.load(x, [r, 0], [BLK, COLS])
            w = pl.tile.muls(t, SCALE)
            s = pl.tile.sin(w)
            c = pl.tile.cos(t)
            cw = pl.tile.cos(w)
            y = pl.tile.add(pl.tile.mul(s, c), pl.tile.muls(cw, 0.5))
            out = pl.store(y, [r, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        y: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        rot: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[ROWS, COLS], pl.FP32]]:
        out = self.wave(x, out)
        for r in pl.range(0, ROWS, BLK):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotate"):
                xs = x[r : r + BLK, :]
                ys = y[r : r + BLK, :]
                v = pl.sub(pl.mul(pl.cos(xs), pl.sin(ys)), pl.sin(xs))
                rot = pl.assemble(rot, v, [r, 0])
        return out, rot
