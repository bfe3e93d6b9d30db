# Exercises: SPMD kernels — `with pl.spmd(NB) as tid` (one task of NB blocks; pl.tile.get_block_idx
# / get_block_num inside the pl.at), deps= and allow_early_resolve= on a pl.spmd, a plain task
# ordered after an SPMD task by deps=[tid] in a manual scope, and `for b in pl.spmd(NB)` (b the
# block index; sync_start=) after it. Per row block i of NB: y = 2x + 1, z = y * NB + i (the last block
# + 0.5), w = 3x.
import pypto.language as pl

R = 32
C = 128
NB = 4


@pl.program
class SpmdBlocks:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32], y: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]],
             z: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]], w: pl.Out[pl.Tensor[[NB * R, C], pl.FP32]]
             ) -> tuple[pl.Tensor[[NB * R, C], pl.FP32], pl.Tensor[[NB * R, C], pl.FP32], pl.Tensor[[NB * R, C], pl.FP32]]:
        with pl.manual_scope():
            with pl.spmd(NB) as t_y:
                with pl.at(level=pl.Level.CORE_GROUP):
                    b = pl.tile.get_block_idx()
                    v = pl.load(x, [b * R, 0], [R, C])
                    y = pl.store(pl.tile.adds(pl.tile.muls(v, 2.0), 1.0), [b * R, 0], y)
            with pl.spmd(NB, allow_early_resolve=True, deps=[t_y]) as t_scale:
                with pl.at(level=pl.Level.CORE_GROUP):
                    i = pl.tile.get_block_idx()
                    n = pl.tile.get_block_num()
                    row = pl.load(y, [i * R, 0], [R, C])
                    scaled = pl.tile.adds(pl.tile.muls(row, pl.cast(n, pl.FP32)), pl.cast(i, pl.FP32))
                    z = pl.store(scaled, [i * R, 0], z)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[t_scale]):
                last = pl.load(z, [(NB - 1) * R, 0], [R, C])
                z = pl.store(pl.tile.adds(last, 0.5), [(NB - 1) * R, 0], z)
        for k in pl.spmd(NB, sync_start=True):
            xk = pl.slice(x, [R, C], [k * R, 0])
            w = pl.assemble(w, pl.mul(xk, 3.0), [k * R, 0])
        return y, z, w
