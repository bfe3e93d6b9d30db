# End-to-end: a cube kernel with a K loop. out[64,64] (FP32) = a[64,128] @ b[128,64] (FP16):
# the first K block with pl.matmul, the other three accumulated with pl.matmul_acc into the
# carried Acc tile (init_values / pl.yield_). Operands go DDR -> Mat -> Left/Right.
import pypto.language as pl

M = 64
N = 64
K = 128
TK = 32


@pl.jit.incore
def matmul_k(
    a: pl.Tensor[[M, K], pl.FP16],
    b: pl.Tensor[[K, N], pl.FP16],
    out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    a0 = pl.move(pl.load(a, [0, 0], [M, TK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
    b0 = pl.move(pl.load(b, [0, 0], [TK, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
    acc0 = pl.matmul(a0, b0)
    for k, (acc,) in pl.range(1, K // TK, init_values=(acc0,)):
        a_mat = pl.load(a, [0, k * TK], [M, TK], target_memory=pl.Mem.Mat)
        b_mat = pl.load(b, [k * TK, 0], [TK, N], target_memory=pl.Mem.Mat)
        a_left = pl.move(a_mat, target_memory=pl.Mem.Left)
        b_right = pl.move(b_mat, target_memory=pl.Mem.Right)
        nxt = pl.matmul_acc(acc, a_left, b_right)
        acc_final = pl.yield_(nxt)
    pl.store(acc_final, [0, 0], out)
    return out


@pl.jit
def matmul(
    a: pl.Tensor[[M, K], pl.FP16],
    b: pl.Tensor[[K, N], pl.FP16],
    out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    out = matmul_k(a, b, out)
    return out
