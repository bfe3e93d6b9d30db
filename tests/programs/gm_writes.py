# Exercises: scalar writes into a GM tensor inside a kernel (pl.write of a tensor parameter: a
# scalar store, as pl.read is a scalar load) — a per-row flag written from a loop, a value
# computed from a GM read, next to a tile computation; the written parameter becomes InOut.
# y = x * 2; flags[r, 0] = r + 1 for every row r; flags[0, 1] = x[0, 0] + 1.
import pypto.language as pl

R = 16
C = 64


@pl.program
class GmWrites:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             flags: pl.InOut[pl.Tensor[[R, 8], pl.INT32]]) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, 8], pl.INT32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.assemble(y, pl.mul(x, 2.0), [0, 0])
            for r in pl.range(R):
                flags = pl.write(flags, [r, 0], pl.cast(r + 1, pl.INT32))
            first = pl.read(x, [0, 0])
            flags = pl.write(flags, [0, 1], pl.cast(first + 1.0, pl.INT32))
        return y, flags
