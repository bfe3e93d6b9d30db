# End-to-end, tile level: the vector ops real programs use most, each stored and checked against the
# interpreter (pypto test; bench/reference/reference_used_ops.cpp does the same math in plain C++). Three kernels on [16, 64] tiles:
#   casts  — FP32 -> FP16 / BF16 in several round modes (and back to FP32), round-mode ties built
#            from integers (1 + k * 2^-11 for FP16; k / 4 for FP32 -> INT32 in all five integer modes),
#            and pairs 910B's TCVT lacks (BF16 -> FP16, FP32 -> INT8: LegalizeTileCast chains them);
#   math   — maximum, minimum, recip, div, neg, sqrt, rsqrt, log, abs, relu in FP32 and recip,
#            rsqrt, sqrt, div in FP16;
#   layout — col_sum, col_expand(_mul/_add), row_expand(_mul/_add) of a row max, transpose,
#            reshape, tile.full + tile.assemble at an offset from pl.tensor.dim, tile.read /
#            tile.write of single elements (a read of the written tile after the write sees its
#            old value).
import pypto.language as pl

R = 16
C = 64
H = 32


@pl.jit.incore
def casts(
    x: pl.Tensor[[R, C], pl.FP32],
    i: pl.Tensor[[R, C], pl.INT32],
    hr: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    ha: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    hz: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    htr: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    hta: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    br: pl.Out[pl.Tensor[[R, C], pl.BF16]],
    bo: pl.Out[pl.Tensor[[R, C], pl.BF16]],
    back: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    irint: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    iround: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    ifloor: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    iceil: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    itrunc: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    bh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    i8: pl.Out[pl.Tensor[[R, C], pl.INT8]],
):
    tx = pl.load(x, [0, 0], [R, C])
    pl.store(pl.cast(tx, pl.FP16, mode="rint"), [0, 0], hr)
    pl.store(pl.cast(tx, pl.FP16), [0, 0], ha)  # the default mode: "round" (ties away from zero)
    pl.store(pl.cast(tx, pl.FP16, mode="trunc"), [0, 0], hz)
    pl.store(pl.cast(tx, pl.BF16, mode="rint"), [0, 0], br)
    pl.store(pl.cast(tx, pl.BF16, mode="odd"), [0, 0], bo)
    lo = pl.cast(pl.cast(tx, pl.FP16, mode="floor"), pl.FP32)
    hi = pl.cast(pl.cast(tx, pl.BF16, mode="ceil"), pl.FP32)
    pl.store(pl.add(lo, hi), [0, 0], back)
    k = pl.cast(pl.load(i, [0, 0], [R, C]), pl.FP32)
    tie = pl.add(pl.mul(k, 0.00048828125), 1.0)  # 1 + k * 2^-11: odd k > 0 lies halfway between halves
    pl.store(pl.cast(tie, pl.FP16, mode="rint"), [0, 0], htr)
    pl.store(pl.cast(tie, pl.FP16, mode="round"), [0, 0], hta)
    q = pl.mul(k, 0.25)  # quarters: k = 2 mod 4 is a tie
    pl.store(pl.cast(q, pl.INT32, mode="rint"), [0, 0], irint)
    pl.store(pl.cast(q, pl.INT32, mode="round"), [0, 0], iround)
    pl.store(pl.cast(q, pl.INT32, mode="floor"), [0, 0], ifloor)
    pl.store(pl.cast(q, pl.INT32, mode="ceil"), [0, 0], iceil)
    pl.store(pl.cast(q, pl.INT32, mode="trunc"), [0, 0], itrunc)
    pl.store(pl.cast(pl.cast(tx, pl.BF16, mode="rint"), pl.FP16, mode="rint"), [0, 0], bh)
    pl.store(pl.cast(pl.mul(tx, 100.0), pl.INT8, mode="trunc"), [0, 0], i8)
    return hr, ha, hz, htr, hta, br, bo, back, irint, iround, ifloor, iceil, itrunc, bh, i8


@pl.jit.incore
def math(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Tensor[[R, C], pl.FP32],
    xh: pl.Tensor[[R, C], pl.FP16],
    mx: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    mn: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rc: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    dv: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ng: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    sq: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rs: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    lg: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ab: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rl: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rch: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    rsh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    sqh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    dvh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
):
    tx = pl.load(x, [0, 0], [R, C])
    ty = pl.load(y, [0, 0], [R, C])
    pl.store(pl.maximum(tx, ty), [0, 0], mx)
    pl.store(pl.minimum(tx, ty), [0, 0], mn)
    pos = pl.add(pl.abs(ty), 0.5)  # in [0.5, 1.5)
    pl.store(pl.recip(pos), [0, 0], rc)
    pl.store(pl.div(tx, pos), [0, 0], dv)
    pl.store(pl.neg(tx), [0, 0], ng)
    ax = pl.abs(tx)
    pl.store(pl.sqrt(ax), [0, 0], sq)
    pl.store(pl.rsqrt(pl.add(ax, 0.25)), [0, 0], rs)
    pl.store(pl.log(pl.add(ax, 0.5)), [0, 0], lg)
    pl.store(ax, [0, 0], ab)
    pl.store(pl.relu(tx), [0, 0], rl)
    th = pl.load(xh, [0, 0], [R, C])
    hpos = pl.add(pl.abs(th), 0.5)
    pl.store(pl.recip(hpos), [0, 0], rch)
    pl.store(pl.rsqrt(hpos), [0, 0], rsh)
    pl.store(pl.sqrt(hpos), [0, 0], sqh)
    pl.store(pl.div(th, hpos), [0, 0], dvh)
    return mx, mn, rc, dv, ng, sq, rs, lg, ab, rl, rch, rsh, sqh, dvh


@pl.jit.incore
def layout(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Tensor[[R, C], pl.FP32],
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
):
    tx = pl.load(x, [0, 0], [R, C])
    ty = pl.load(y, [0, 0], [R, C])
    csum = pl.col_sum(ty)
    pl.store(csum, [0, 0], cs)
    pl.store(pl.col_expand_mul(tx, csum), [0, 0], cem)
    pl.store(pl.col_expand_add(tx, csum), [0, 0], cea)
    pl.store(pl.col_expand(tx, csum), [0, 0], ce)
    rmax = pl.row_max(ty, pl.tile.create([R, C], dtype=pl.FP32))
    pl.store(pl.row_expand_mul(tx, rmax), [0, 0], rem)
    pl.store(pl.row_expand_add(tx, rmax), [0, 0], rea)
    pl.store(pl.row_expand(tx, rmax), [0, 0], re)
    pl.store(pl.transpose(tx, 0, 1, pl.tile.create([R, C], dtype=pl.FP32)), [0, 0], tr)
    pl.store(pl.mul(pl.reshape(tx, [2 * R, H]), 2.0), [0, 0], rp)
    # y's left half into the right half of a 1.5-filled tile (the offset: x's column count - H).
    base = pl.tile.full([R, C], dtype=pl.FP32, value=1.5)
    left = pl.load(y, [0, 0], [R, H])
    pl.store(pl.tile.assemble(base, left, [0, pl.tensor.dim(x, 1) - H]), [0, 0], asm)
    # rw = w * y[2, 7], w = y with y[2, 7] replaced by x[3, 5]: the read after the in-place write
    # still sees y's value (PreserveOverwrittenValues gives the write a copy of ty).
    w = pl.tile.write(ty, [2, 7], pl.tile.read(tx, [3, 5]))
    scale = pl.tile.read(ty, [2, 7])
    pl.store(pl.mul(w, scale), [0, 0], rw)
    return cs, cem, cea, ce, rem, rea, re, tr, rp, asm, rw


@pl.jit
def used_tile_ops(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Tensor[[R, C], pl.FP32],
    i: pl.Tensor[[R, C], pl.INT32],
    xh: pl.Tensor[[R, C], pl.FP16],
    hr: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    ha: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    hz: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    htr: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    hta: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    br: pl.Out[pl.Tensor[[R, C], pl.BF16]],
    bo: pl.Out[pl.Tensor[[R, C], pl.BF16]],
    back: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    irint: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    iround: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    ifloor: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    iceil: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    itrunc: pl.Out[pl.Tensor[[R, C], pl.INT32]],
    bh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    i8: pl.Out[pl.Tensor[[R, C], pl.INT8]],
    mx: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    mn: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rc: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    dv: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ng: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    sq: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rs: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    lg: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ab: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rl: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    rch: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    rsh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    sqh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
    dvh: pl.Out[pl.Tensor[[R, C], pl.FP16]],
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
):
    hr, ha, hz, htr, hta, br, bo, back, irint, iround, ifloor, iceil, itrunc, bh, i8 = casts(
        x, i, hr, ha, hz, htr, hta, br, bo, back, irint, iround, ifloor, iceil, itrunc, bh, i8)
    mx, mn, rc, dv, ng, sq, rs, lg, ab, rl, rch, rsh, sqh, dvh = math(
        x, y, xh, mx, mn, rc, dv, ng, sq, rs, lg, ab, rl, rch, rsh, sqh, dvh)
    cs, cem, cea, ce, rem, rea, re, tr, rp, asm, rw = layout(x, y, cs, cem, cea, ce, rem, rea, re, tr, rp, asm, rw)
    return (hr, ha, hz, htr, hta, br, bo, back, irint, iround, ifloor, iceil, itrunc, bh, i8,
            mx, mn, rc, dv, ng, sq, rs, lg, ab, rl, rch, rsh, sqh, dvh,
            cs, cem, cea, ce, rem, rea, re, tr, rp, asm, rw)
