# Seed: tile-level ops of every family: loads with offsets, reductions, broadcasts, casts,
# scalar forms, Mat/Left/Right/Acc memory, matmul, full/create tiles.
import pypto.language as pl


@pl.program
class Tiles:
    @pl.function(type=pl.FunctionType.InCore)
    def vec(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        tmp = pl.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        m = pl.row_max(t, tmp)
        e = pl.exp(pl.row_expand_sub(t, m))
        s = pl.row_sum(e, tmp)
        r = pl.maximum(pl.adds(s, 1.0), s)
        return pl.store(r, [0, 0], out)

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16],
             c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        am = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        al = pl.move(am, target_memory=pl.Mem.Left)
        bl = pl.move(bm, target_memory=pl.Mem.Right)
        acc = pl.matmul(al, bl)
        return pl.store(acc, [0, 0], c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        out = self.vec(x, out)
        return out
