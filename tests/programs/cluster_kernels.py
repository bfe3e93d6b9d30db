# Exercises: `with pl.cluster():` around several pl.at scopes. The cluster is one AIC and two AIV
# cores; its scopes become one kernel (OutlineIncoreScopes), which ExpandMixedKernel splits: the
# first scope's matmul runs on the AIC, the second scope's epilogue on the AIV, the scores crossing
# through the cluster's FIFO (one MixedKernels task). A second cluster holds two vector scopes,
# which run one after the other on one AIV core.
# y = relu(x @ w + bias); z = 2 * y - x2
import pypto.language as pl

M = 64
K = 128
N = 64


@pl.jit
def cluster_kernels(
    x: pl.Tensor[[M, K], pl.FP16],
    w: pl.Tensor[[K, N], pl.FP16],
    bias: pl.Tensor[[1, N], pl.FP32],
    x2: pl.Tensor[[M, N], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    z: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.cluster(name_hint="linear_act"):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores"):
            acc = pl.matmul(x, w, out_dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="epilogue"):
            y = pl.assemble(y, pl.relu(pl.add(acc, bias)), [0, 0])
    with pl.cluster():
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="double"):
            t = pl.mul(y, 2.0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="minus"):
            z = pl.assemble(z, pl.sub(t, x2), [0, 0])
    return y, z
