# Exercises: element-type conversions and their round modes (LegalizeTileCast): FP32 -> INT32
# with floor / ceil / rint, INT32 -> FP16 (one TCVT on 910B, through FP32 on 950), FP32 -> INT8
# with trunc (through FP16 on 910B), BF16 <-> FP16 (through FP32 on 910B), each result widened back
# to FP32 and combined, so that every mode and every hop shows in the output. SCALE spreads the
# inputs over the integer range the casts round to.
import pypto.language as pl

ROWS = 32
COLS = 64
SCALE = 50.0


@pl.program
class Casts:
    @pl.function(type=pl.FunctionType.InCore)
    def convert(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        ints: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        narrow: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[ROWS, COLS], pl.FP32]]:
        t = pl.tile.muls(pl.load(x, [0, 0], [ROWS, COLS]), SCALE)
        fl = pl.tile.cast(t, target_type=pl.INT32, mode="floor")
        ce = pl.tile.cast(t, target_type=pl.INT32, mode="ceil")
        ri = pl.tile.cast(t, target_type=pl.INT32, mode="rint")
        # floor + 2 * ceil + 4 * rint, each integer through FP16 and back.
        f = pl.tile.cast(pl.tile.cast(fl, target_type=pl.FP16), target_type=pl.FP32)
        c = pl.tile.cast(pl.tile.cast(ce, target_type=pl.FP16), target_type=pl.FP32)
        r = pl.tile.cast(pl.tile.cast(ri, target_type=pl.FP16), target_type=pl.FP32)
        ints = pl.store(pl.tile.add(pl.tile.add(f, pl.tile.muls(c, 2.0)), pl.tile.muls(r, 4.0)), [0, 0], ints)
        # trunc to INT8 (|t| <= SCALE < 128), and an FP32 -> BF16 -> FP16 -> FP32 round trip.
        i8 = pl.tile.cast(t, target_type=pl.INT8, mode="trunc")
        b = pl.tile.cast(t, target_type=pl.BF16, mode="rint")
        h = pl.tile.cast(b, target_type=pl.FP16, mode="rint")
        w = pl.tile.add(pl.tile.cast(i8, target_type=pl.FP32), pl.tile.cast(h, target_type=pl.FP32))
        narrow = pl.store(w, [0, 0], narrow)
        return ints, narrow

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        ints: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        narrow: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[ROWS, COLS], pl.FP32], pl.Tensor[[ROWS, COLS], pl.FP32]]:
        ints, narrow = self.convert(x, ints, narrow)
        return ints, narrow
