# Exercises pl.gather_row into an L1 (Mat) accumulator, as the paged sparse-attention kernels of
# pypto-lib stage their KV rows: each of R rows is copied from a data-dependent row of a GM cache
# (the row id read from an index tensor, taken modulo the cache so any seeded index is valid)
# into a pl.create_l1 tile, which then feeds the cube as the transposed rhs of Q @ K^T.
# tile.gather_row is a TLOAD into a window of the Mat tile (its Tile at GetTileOffset of the row).
import pypto.language as pl

H = 16  # query rows
D = 128  # head dim
R = 64  # gathered rows
NROWS = 256  # rows of the cache


@pl.jit
def gather_rows_l1(
    q: pl.Tensor[[H, D], pl.BF16],
    kv: pl.Tensor[[NROWS, D], pl.BF16],
    idx: pl.Tensor[[1, R], pl.INT32],
    y: pl.Out[pl.Tensor[[H, R], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gather_qk"):
        k = pl.create_l1([R, D], pl.BF16)
        for r in pl.range(R):
            slot = pl.cast(pl.read(idx, [0, r]), pl.INDEX) % NROWS
            k = pl.gather_row(k, kv, [r, 0], [slot, 0], [1, D])
        y = pl.assemble(y, pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32), [0, 0])
    return y
