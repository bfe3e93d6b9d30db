# End-to-end, exact results: compare + select (elementwise max through a packed bit mask), a row
# arg-max, a column concat, a 32-element block sort carrying an index payload, an index gather
# and integer bitwise ops, on [16, 64] tiles.
import pypto.language as pl

R = 16
C = 64


@pl.jit.incore
def select_sort(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Tensor[[R, C], pl.FP32],
    i: pl.Tensor[[R, C], pl.INT32],
    mx: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    am: pl.Out[pl.Tensor[[R, 1], pl.INT32]],
    cc: pl.Out[pl.Tensor[[R, 2 * C], pl.FP32]],
    srt: pl.Out[pl.Tensor[[1, 2 * C], pl.FP32]],
    g: pl.Out[pl.Tensor[[1, C], pl.FP32]],
    bits: pl.Out[pl.Tensor[[R, C], pl.INT32]],
):
    tx = pl.load(x, [0, 0], [R, C])
    ty = pl.load(y, [0, 0], [R, C])
    mask = pl.tile.cmp(tx, ty, cmp_type=4)  # x > y
    stmp = pl.tile.create([1, 32], dtype=pl.UINT8)
    pl.store(pl.tile.sel(mask, tx, ty, stmp), [0, 0], mx)
    atmp = pl.tile.create([R, C], dtype=pl.FP32)
    pl.store(pl.tile.row_argmax(tx, atmp), [0, 0], am)
    pl.store(pl.tile.concat(tx, ty), [0, 0], cc)
    row = pl.load(x, [0, 0], [1, C])
    idx = pl.tile.ci(0, [1, C], dtype=pl.UINT32)
    pl.store(pl.tile.sort32(row, idx), [0, 0], srt)
    rev = pl.tile.ci(C - 1, [1, C], dtype=pl.INT32, descending=True)
    gtmp = pl.tile.create([1, C], dtype=pl.INT32)
    pl.store(pl.tile.gather(row, rev, gtmp), [0, 0], g)
    ti = pl.load(i, [0, 0], [R, C])
    t = pl.tile.ands(ti, 6)
    t = pl.tile.shls(t, 1)
    t = pl.tile.xor(t, ti, pl.tile.create([R, C], dtype=pl.INT32))
    pl.store(t, [0, 0], bits)
    return mx, am, cc, srt, g, bits


@pl.jit
def select_sort_entry(
    x: pl.Tensor[[R, C], pl.FP32],
    y: pl.Tensor[[R, C], pl.FP32],
    i: pl.Tensor[[R, C], pl.INT32],
    mx: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    am: pl.Out[pl.Tensor[[R, 1], pl.INT32]],
    cc: pl.Out[pl.Tensor[[R, 2 * C], pl.FP32]],
    srt: pl.Out[pl.Tensor[[1, 2 * C], pl.FP32]],
    g: pl.Out[pl.Tensor[[1, C], pl.FP32]],
    bits: pl.Out[pl.Tensor[[R, C], pl.INT32]],
):
    mx, am, cc, srt, g, bits = select_sort(x, y, i, mx, am, cc, srt, g, bits)
    return mx, am, cc, srt, g, bits
