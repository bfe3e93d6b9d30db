# End-to-end, tensor level: the used vector ops written on tensors inside two pl.at scopes and
# lowered to tile ops by ConvertTensorToTileOps, each output checked against the interpreter
# (pypto test; a plain C++ loop of the same math is bench/reference/reference_used_ops.cpp). On [16, 64] FP32 tensors x, y:
#   tensor_math   — casts (FP16 rint, BF16 trunc, BF16 round and back to FP32, x * 8 to INT32 by
#                   floor), maximum, minimum, div, recip, neg, sqrt, rsqrt (high_precision),
#                   log, abs, relu;
#   tensor_layout — col_sum and the column broadcasts, row_max and the row broadcasts, transpose,
#                   reshape, full + assemble at an offset from pl.tensor.dim, read / write of one
#                   element, and scatter along the last axis: sc[r, idx[r, k]] = y[r, k] with
#                   idx[r, k] = (3 * (16 r + k)) & 31 (distinct within a row), in FP32 and in FP16
#                   with INT16 indices; the mask-pattern forms (gather_mask / scatter_mask, the
#                   reference's pl.gather / pl.scatter with mask_pattern=) swap each column pair:
#                   sw[r, 2j] = x[r, 2j + 1], sw[r, 2j + 1] = 2 x[r, 2j].
import pypto.language as pl

R = 16
C = 64
H = 32
K = 16


@pl.program
class UsedTensorOps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        y: pl.Tensor[[R, C], pl.FP32],
        h: pl.Out[pl.Tensor[[R, C], pl.FP16]],
        b: pl.Out[pl.Tensor[[R, C], pl.BF16]],
        bk: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        ci: pl.Out[pl.Tensor[[R, C], pl.INT32]],
        mx: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        mn: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        dv: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        rc: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        ng: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        sq: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        rs: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        lg: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        ab: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        rl: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        cs: pl.Out[pl.Tensor[[1, C], pl.FP32]],
        cem: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        cea: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        ce: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        rem: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        rea: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        re: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        tr: pl.Out[pl.Tensor[[C, R], pl.FP32]],
        rp: pl.Out[pl.Tensor[[2 * R, H], pl.FP32]],
        asm: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        rw: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        sc: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        sch: pl.Out[pl.Tensor[[R, C], pl.FP16]],
        sw: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tensor_math"):
            h = pl.cast(x, target_type=pl.FP16, mode="rint")
            b = pl.cast(x, target_type=pl.BF16, mode="trunc")
            bk = pl.cast(pl.cast(x, target_type=pl.BF16, mode="round"), target_type=pl.FP32)
            ci = pl.cast(pl.mul(x, 8.0), target_type=pl.INT32, mode="floor")
            pos = pl.add(pl.abs(y), 0.5)
            mx = pl.maximum(x, y)
            mn = pl.minimum(x, y)
            dv = pl.div(x, pos)
            rc = pl.recip(pos)
            ng = pl.neg(x)
            sq = pl.sqrt(pos)
            rs = pl.rsqrt(pos, high_precision=True)  # the scratch-tile form
            lg = pl.log(pos)
            ab = pl.abs(y)
            rl = pl.relu(x)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tensor_layout"):
            cs = pl.col_sum(y)
            cem = pl.col_expand_mul(x, cs)
            cea = pl.col_expand_add(x, cs)
            ce = pl.col_expand(x, cs)
            rm = pl.row_max(y)
            rem = pl.row_expand_mul(x, rm)
            rea = pl.row_expand_add(x, rm)
            re = pl.row_expand(x, rm)
            tr = pl.transpose(x, 0, 1)
            rp = pl.reshape(x, [2 * R, H])
            ones = pl.full([R, C], dtype=pl.FP32, value=1.5)
            asm = pl.assemble(ones, pl.slice(y, [R, H], [0, 0]), [0, pl.tensor.dim(x, 1) - H])
            w = pl.mul(y, 2.0)
            rw = pl.write(w, [2, 7], pl.read(x, [3, 5]))
            idx = pl.ands(pl.mul(pl.reshape(pl.tensor.ci(0, [1, R * K], dtype=pl.INT32), [R, K]), 3), 31)
            src = pl.slice(y, [R, K], [0, 0])
            sc = pl.scatter(x, dim=-1, index=idx, src=src)
            xh = pl.cast(x, target_type=pl.FP16, mode="rint")
            sch = pl.scatter(xh, dim=-1, index=pl.cast(idx, target_type=pl.INT16),
                             src=pl.cast(src, target_type=pl.FP16, mode="rint"))
            even = pl.tensor.gather_mask(x, mask_pattern=1)  # P0101
            odd = pl.tensor.gather_mask(x, mask_pattern=2)   # P1010
            sw = pl.tensor.scatter_mask(odd, pl.full([R, C], dtype=pl.FP32, value=0.0), mask_pattern=1)
            sw = pl.tensor.scatter_mask(pl.mul(even, 2.0), sw, mask_pattern=2)
        return (h, b, bk, ci, mx, mn, dv, rc, ng, sq, rs, lg, ab, rl,
                cs, cem, cea, ce, rem, rea, re, tr, rp, asm, rw, sc, sch, sw)
