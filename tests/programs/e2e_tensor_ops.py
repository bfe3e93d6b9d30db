# End-to-end, tensor level: the extended vector ops written on tensors inside a pl.at scope and
# lowered to tile ops by ConvertTensorToTileOps — out = concat(fmods(x, 0.3), exp(x - colmax(x)))
# and am = the row arg-max of x (an INT32 [R, 1] tensor); gt = (x > 0) and lt = (fm < ed) as 0/1
# values (tensor.cmp: a bit mask selecting 1 or 0); g[r, k] = x[r, i[r, k] & 7] (tensor.gather along
# the last axis: column indices turned into flat ones; & rather than abs, which 910B has for float /
# half only).
import pypto.language as pl

R = 16
C = 32
K = 8


@pl.program
class TensorOps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        i: pl.Tensor[[R, K], pl.INT32],
        out: pl.Out[pl.Tensor[[R, 2 * C], pl.FP32]],
        am: pl.Out[pl.Tensor[[R, 1], pl.INT32]],
        gt: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        lt: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        g: pl.Out[pl.Tensor[[R, K], pl.FP32]],
    ):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tensor_ops"):
            fm = pl.fmods(x, 0.3)
            ed = pl.col_expand_expdif(x, pl.col_max(x))
            out = pl.concat(fm, ed)
            am = pl.row_argmax(x)
            gt = pl.cmp(x, 0.0, cmp_type=4)
            lt = pl.cmp(fm, ed, cmp_type=2)
            g = pl.gather(x, pl.ands(i, 7), dim=1)
        return out, am, gt, lt, g
