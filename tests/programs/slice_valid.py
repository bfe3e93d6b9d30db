# Exercises: a valid-shape window of a computed tile (pypto-lib's hc_pre narrows a 32-byte-wide
# result to its first columns this way): `pl.slice(t, [R, PAD], [0, 0], valid_shape=[R, W])` is a
# view of t with W valid columns, and assembling it into a [R, W] output stores exactly those.
import pypto.language as pl

R = 16
PAD = 8
W = 4


@pl.program
class SliceValid:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, PAD], pl.FP32], post: pl.Out[pl.Tensor[[R, W], pl.FP32]]) -> pl.Tensor[[R, W], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.mul(pl.exp(x), 2.0)
            post[0:R, 0:W] = pl.slice(t, [R, PAD], [0, 0], valid_shape=[R, W])
        return post
