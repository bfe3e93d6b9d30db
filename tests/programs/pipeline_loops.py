# Exercises: pl.pipeline(stage=F) loops (LowerPipelineLoops replicates the body F times per
# iteration, CanonicalizeIOOrder issues the clones' loads before their compute and sinks the
# stores) — in a tile-level kernel walking row blocks, and at the tensor level inside pl.at
# carrying a row-sum accumulator across column chunks.
# out = x * 2 + 1 (block by block); sums[r] = sum of x[r, :] (chunk by chunk, as a [1, R] row).
import pypto.language as pl

R = 64
C = 256
BR = 16
BC = 64


@pl.program
class PipelineLoops:
    @pl.function(type=pl.FunctionType.InCore)
    def blocks(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        for r in pl.pipeline(0, R, BR, stage=2):
            t = pl.load(x, [r, 0], [BR, C])
            out = pl.store(pl.tile.adds(pl.tile.muls(t, 2.0), 1.0), [r, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        sums: pl.Out[pl.Tensor[[1, R], pl.FP32]],
    ) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[1, R], pl.FP32]]:
        out = self.blocks(x, out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_sums"):
            acc = pl.full([1, R], dtype=pl.FP32, value=0.0)
            for c in pl.pipeline(0, C, BC, stage=4):
                acc = pl.add(acc, pl.reshape(pl.row_sum(x[:, c : c + BC]), [1, R]))
            sums = pl.assemble(sums, acc, [0, 0])
        return out, sums
