# Exercises: a chained matmul at tensor level, (a @ b) narrowed to BF16 with round-half-to-even
# and multiplied by e, in one pl.at scope. The cast folds into the cube's Acc → Mat write-back
# (AutoTileMatmulL0), so the kernel is a cube kernel alone; at M = 256 the [M, M] FP32
# intermediate overflows L0C and is assembled block by block into a Mat scratch that the second
# matmul reads through L0 extracts. (The BF16 intermediate rounds differently when the FP32 sums
# are accumulated in another order: its oracle cases compare at BF16 tolerance.)
import pypto.language as pl

M = 128
K = 64
N = 64


@pl.program
class MatmulChain:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, M], pl.BF16], e: pl.Tensor[[M, N], pl.BF16],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.BF16, mode="rint")
            d = pl.matmul(cb, e, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out
