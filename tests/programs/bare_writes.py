# Exercises: ops that update their first operand, called as statements for their effect —
# pl.write(t, idx, v) on a GM tensor and pl.tile.write(tile, idx, v) on a tile. Each statement
# updates the name it writes, as `t = pl.write(t, idx, v)` does (the form pypto-lib's metadata
# kernels use): slots[t] = the slot of token t where its position ends a group of 4, else -1,
# written from a loop with a branch; marks[0, 8 j] = j + 0.5, written element by element into a
# zero tile that is then stored.
import pypto.language as pl

T = 40
BLOCK = 16


@pl.jit
def bare_writes(pos: pl.Tensor[[T], pl.INT32], table: pl.Tensor[[4, 8], pl.INT32],
                slots: pl.Out[pl.Tensor[[T], pl.INT64]], marks: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="meta"):
        for t in pl.range(T):
            p = pl.read(pos, [t])
            blk = pl.read(table, [t % 4, pl.cast(p // BLOCK % 8, pl.INDEX)])
            s = pl.cast(-1, pl.INT64)
            if (p + 1) % 4 == 0:
                s = pl.cast(blk, pl.INT64) * BLOCK + pl.cast(p % BLOCK, pl.INT64)
            pl.write(slots, [t], s)
        m = pl.tile.full([1, 64], dtype=pl.FP32, value=0.0)
        for j in pl.range(8):
            pl.tile.write(m, [0, j * 8], pl.cast(j, pl.FP32) + 0.5)
        pl.store(m, [0, 0], marks)
    return slots, marks
