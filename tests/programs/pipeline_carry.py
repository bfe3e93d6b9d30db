# Exercises: pl.pipeline loops that LowerPipelineLoops replicates and CanonicalizeIOOrder reorders,
# with leftover iterations. col_sums walks the rows of x one at a time over a runtime row count n
# (a pl.dynamic dim) with stage=3, carrying a tile accumulator: the loop runs n // 3 groups of three
# clones, then an if-cascade on n % 3 runs the last one or two rows, each level passing the
# accumulator on. scale walks 4 column chunks with stage=3: one group of three clones, then one
# clone at a constant index. Run at several row counts so every leftover branch is taken.
# sums = column sums of x ([1, C]); y = w * 3.
import pypto.language as pl

N = pl.dynamic("N")
C = 64
R = 8
BC = 16
STAGE = 3


@pl.program
class PipelineCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def col_sums(self, x: pl.Tensor[[N, C], pl.FP32],
                 sums: pl.Out[pl.Tensor[[1, C], pl.FP32]]) -> pl.Tensor[[1, C], pl.FP32]:
        n = pl.tensor.dim(x, 0)
        acc = pl.tile.full([1, C], dtype=pl.FP32, value=0.0)
        for r in pl.pipeline(0, n, 1, stage=STAGE):
            row = pl.load(x, [r, 0], [1, C])
            acc = pl.tile.add(acc, row)
        return pl.store(acc, [0, 0], sums)

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, w: pl.Tensor[[R, C], pl.FP32],
              y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        for c in pl.pipeline(0, C, BC, stage=STAGE):
            t = pl.load(w, [0, c], [R, BC])
            y = pl.store(pl.tile.muls(t, 3.0), [0, c], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[N, C], pl.FP32],
        w: pl.Tensor[[R, C], pl.FP32],
        sums: pl.Out[pl.Tensor[[1, C], pl.FP32]],
        y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, C], pl.FP32], pl.Tensor[[R, C], pl.FP32]]:
        sums = self.col_sums(x, sums)
        y = self.scale(w, y)
        return sums, y
