# Exercises pl.split on mixed kernels: a matmul with a row-bias + ReLU epilogue in one pl.at scope,
# once split UP_DOWN (each AIV lane takes half the rows of every tile the cube hands over) and
# once LEFT_RIGHT (half the columns). SplitVectorKernel halves the vector half's tiles, moves its
# loads and stores by the lane's offset and stamps the FIFO calls with the split; the task runs
# as MixedKernels{aic, aiv, aiv}, the CPU runtime giving each lane its half of each pushed tile.
import pypto.language as pl

M = 64
K = 128
N = 64


@pl.jit
def mixed_split(
    x: pl.Tensor[[M, K], pl.FP16],
    w: pl.Tensor[[K, N], pl.FP16],
    bias: pl.Tensor[[1, N], pl.FP32],
    rows: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    cols: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], name_hint="up_down"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        rows = pl.assemble(rows, pl.relu(pl.add(acc, bias)), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)], name_hint="left_right"):
        acc2 = pl.matmul(x, w, out_dtype=pl.FP32)
        cols = pl.assemble(cols, pl.relu(pl.add(acc2, bias)), [0, 0])
    return rows, cols
