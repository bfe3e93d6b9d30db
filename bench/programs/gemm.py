# Benchmark program (bench/vs_numpy.sh): c = a @ b, 1024 x 1024 x 1024, FP16 operands, FP32
# result, 128 x 128 output blocks (64 tasks) with a K loop of 64-wide steps. numpy (float32
# operands, OpenBLAS sgemm): c = a @ b.
import pypto.language as pl

M = 1024
N = 1024
K = 1024
TM = 128
TN = 128
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
