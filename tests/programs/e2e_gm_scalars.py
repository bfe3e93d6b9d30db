# End-to-end: scalar loads from a GM tensor inside a kernel (pl.read of a kernel parameter stays a
# load of one element, as paged attention reads its block table): each 16-row block of x is
# scaled by w[b, 1], read at a loop index of a 2-D tensor.
import pypto.language as pl

R = 64
C = 32


@pl.program
class GmScalars:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_rows(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        w: pl.Tensor[[4, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ) -> pl.Tensor[[R, C], pl.FP32]:
        for b in pl.range(4):
            s = pl.read(w, [b, 1])
            t = pl.load(x, [b * 16, 0], [16, C])
            out = pl.store(pl.mul(t, s), [b * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        w: pl.Tensor[[4, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ) -> pl.Tensor[[R, C], pl.FP32]:
        out = self.scale_rows(x, w, out)
        return out
