# Exercises: a tensor-level tiled GEMM — c = a @ b, FP16 operands, FP32 result. The M / N tiles
# are orchestration loops (pl.parallel) over views of the DDR tensors; inside each pl.at kernel
# a K loop carries the accumulator, pl.matmul on the first K block and pl.matmul_acc on the
# others. The compiler loads each window straight into Mat (its only reader is the cube), moves
# it to Left / Right, and the carried accumulator (a pl.create_tensor) lives in Acc.
import pypto.language as pl

M = 256
N = 256
K = 256
TM = 64
TN = 64
TK = 64


@pl.jit
def gemm(
    a: pl.Tensor[[M, K], pl.FP16],
    b: pl.Tensor[[K, N], pl.FP16],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    for m0 in pl.parallel(0, M, TM):
        for n0 in pl.parallel(0, N, TN):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gemm_block"):
                acc = pl.create_tensor([TM, TN], dtype=pl.FP32)
                for kb in pl.range(K // TK):
                    k0 = kb * TK
                    if kb == 0:
                        acc = pl.matmul(a[m0 : m0 + TM, k0 : k0 + TK], b[k0 : k0 + TK, n0 : n0 + TN], out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, a[m0 : m0 + TM, k0 : k0 + TK], b[k0 : k0 + TK, n0 : n0 + TN])
                c[m0 : m0 + TM, n0 : n0 + TN] = acc
    return c
