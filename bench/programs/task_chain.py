# Benchmark program (bench/vs_numpy.sh): per-task dispatch cost — 2000 dependent tasks, each
# adding 1.0 in place to a [1, 8] FP32 tensor (a chain: every task waits for the previous one).
import pypto.language as pl

N = 2000


@pl.program
class TaskChain:
    @pl.function(type=pl.FunctionType.InCore)
    def first(self, x: pl.Tensor[[1, 8], pl.FP32], y: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 8])
        y = pl.store(pl.tile.adds(t, 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def step(self, y: pl.InOut[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(y, [0, 0], [1, 8])
        y = pl.store(pl.tile.adds(t, 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 8], pl.FP32], y: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        y = self.first(x, y)
        for i in pl.range(N - 1):
            y = self.step(y)
        return y
