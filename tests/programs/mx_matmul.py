# Exercises: the 950's MX matmul — FP8E4M3FN operands weighed by FP8E8M0 scales, one per 32
# elements of K (per row of A, per column of B), loaded from the packed MX_A_ZZ / MX_B_NN scale
# tensors into Mat; the moves to Left / Right / LeftScale / RightScale / Bias are the compiler's,
# and so is the binding of each scale tile to its data tile (InsertMxScaleAddr), whose address the
# memory plan derives the scale's from. A K loop: matmul_mx_bias on the first block, then
# matmul_mx_acc on the others. A second kernel keeps two Left tiles and their scales live at once
# (explicit moves), so the two scale tiles sit at two addresses, each under its own data tile.
import pypto.language as pl

M = 64
N = 64
K = 256
TK = 128
G = K // 32
TG = TK // 32


@pl.jit.incore
def mx_gemm(
    a: pl.Tensor[[M, K], pl.FP8E4M3FN],
    a_scale: pl.Tensor[[M, G], pl.FP8E8M0, pl.MX_A_ZZ],
    b: pl.Tensor[[K, N], pl.FP8E4M3FN],
    b_scale: pl.Tensor[[G, N], pl.FP8E8M0, pl.MX_B_NN],
    bias: pl.Tensor[[1, N], pl.FP32],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    a0 = pl.load(a, [0, 0], [M, TK], target_memory=pl.Mem.Mat)
    as0 = pl.load(a_scale, [0, 0], [M, TG], target_memory=pl.Mem.Mat)
    b0 = pl.load(b, [0, 0], [TK, N], target_memory=pl.Mem.Mat)
    bs0 = pl.load(b_scale, [0, 0], [TG, N], target_memory=pl.Mem.Mat)
    bias_l1 = pl.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Mat)
    acc = pl.matmul_mx_bias(a0, as0, b0, bs0, bias_l1)
    for k in pl.range(1, K // TK):
        ak = pl.load(a, [0, k * TK], [M, TK], target_memory=pl.Mem.Mat)
        ask = pl.load(a_scale, [0, k * TG], [M, TG], target_memory=pl.Mem.Mat)
        bk = pl.load(b, [k * TK, 0], [TK, N], target_memory=pl.Mem.Mat)
        bsk = pl.load(b_scale, [k * TG, 0], [TG, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul_mx_acc(acc, ak, ask, bk, bsk)
    pl.store(acc, [0, 0], c)
    return c


@pl.jit.incore
def mx_rows(
    a: pl.Tensor[[2 * M, TK], pl.FP8E4M3FN],
    a_scale: pl.Tensor[[2 * M, TG], pl.FP8E8M0, pl.MX_A_ZZ],
    b: pl.Tensor[[TK, N], pl.FP8E4M3FN],
    b_scale: pl.Tensor[[TG, N], pl.FP8E8M0, pl.MX_B_NN],
    d: pl.Out[pl.Tensor[[2 * M, N], pl.FP32]],
):
    top = pl.move(pl.load(a, [0, 0], [M, TK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
    bot = pl.move(pl.load(a, [M, 0], [M, TK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
    top_s = pl.move(pl.load(a_scale, [0, 0], [M, TG], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
    bot_s = pl.move(pl.load(a_scale, [M, 0], [M, TG], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
    rhs = pl.move(pl.load(b, [0, 0], [TK, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
    rhs_s = pl.move(pl.load(b_scale, [0, 0], [TG, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
    c_top = pl.matmul_mx(top, top_s, rhs, rhs_s)
    c_bot = pl.matmul_mx(bot, bot_s, rhs, rhs_s)
    pl.store(c_top, [0, 0], d)
    pl.store(c_bot, [M, 0], d)
    return d


@pl.jit
def mx_main(
    a: pl.Tensor[[M, K], pl.FP8E4M3FN],
    a_scale: pl.Tensor[[M, G], pl.FP8E8M0, pl.MX_A_ZZ],
    b: pl.Tensor[[K, N], pl.FP8E4M3FN],
    b_scale: pl.Tensor[[G, N], pl.FP8E8M0, pl.MX_B_NN],
    bias: pl.Tensor[[1, N], pl.FP32],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    a2: pl.Tensor[[2 * M, TK], pl.FP8E4M3FN],
    a2_scale: pl.Tensor[[2 * M, TG], pl.FP8E8M0, pl.MX_A_ZZ],
    d: pl.Out[pl.Tensor[[2 * M, N], pl.FP32]],
):
    c = mx_gemm(a, a_scale, b, b_scale, bias, c)
    b_top = pl.slice(b, [TK, N], [0, 0])
    bs_top = pl.slice(b_scale, [TG, N], [0, 0])
    d = mx_rows(a2, a2_scale, b_top, bs_top, d)
    return c, d
