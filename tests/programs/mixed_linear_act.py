# Exercises a mixed kernel: a tensor-level matmul with a row-bias add ([1, N] broadcast over the
# rows: TCOLEXPANDADD) and a ReLU epilogue in ONE pl.at scope. ExpandMixedKernel splits it into an AIC half (Mat loads, L0 moves, TMATMUL, TPUSH of the
# Acc tile) and an AIV half (TPOP into the C2V slot window, the epilogue, the store), submitted
# together as one MixedKernels task; the CPU runtime gang-schedules the halves over the FIFO.
import pypto.language as pl

M = 64
K = 128
N = 64


@pl.jit
def mixed_linear_act(
    x: pl.Tensor[[M, K], pl.FP16],
    w: pl.Tensor[[K, N], pl.FP16],
    bias: pl.Tensor[[1, N], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear_act"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        y = pl.assemble(y, pl.relu(pl.add(acc, bias)), [0, 0])
    return y
