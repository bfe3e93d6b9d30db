# Seed: a @pl.program factory (an entry by --entry build_program; the fuzz targets also try every
# top-level function as an entry) whose kernels come from a builder function run at compile time.
import pypto.language as pl


def make_kernel(rows: int, scale: float):
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [rows, 64])
        pl.store(pl.mul(t, scale), [0, 0], out)
        return out

    return k


def build_program(rows: int = 16, scale: float = 2.0):
    half = rows // 2
    kern = make_kernel(rows, scale)

    @pl.program
    class Built:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            out = kern(x, out)
            return out

    return Built
