# Exercises windows of an Acc tile (a matmul result) in a mixed kernel: row windows stored from
# Acc to GM at constant offsets (an unrolled loop) and at a loop index stepping by 16, a window
# of a window, and column windows at a loop index pushed to the vector half for an epilogue.
# Each window is the Acc tile's own Tile type at its origin's offset in the NZ fractal layout
# (GetTileOffset) with the window's extents as the valid shape; the CPU runtime's GetTileOffset
# gives the same elements in its row-major storage.
import pypto.language as pl

M = 64
K = 128
N = 64
H = 16


@pl.jit
def mixed_acc_windows(
    x: pl.Tensor[[M, K], pl.FP16],
    w: pl.Tensor[[K, N], pl.FP16],
    y: pl.Out[pl.Tensor[[2 * M, N], pl.FP32]],
    z: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    q: pl.Out[pl.Tensor[[H, 16], pl.FP32]],
    m: pl.Out[pl.Tensor[[M, 1], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="acc_windows"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        m = pl.assemble(m, pl.row_max(acc), [0, 0])
        # Even row blocks of y: constant origins.
        for s in pl.unroll(M // H):
            y[2 * s * H : 2 * s * H + H, 0:N] = acc[s * H : s * H + H, 0:N]
        # Odd row blocks of y: a runtime origin, a multiple of 16.
        for r in pl.range(0, M, H):
            y[2 * r + H : 2 * r + 2 * H, 0:N] = acc[r : r + H, 0:N]
        # A window of a window: rows 2H..3H, columns 16..32 of acc.
        band = acc[H : 3 * H, 0:N]
        q[0:H, 0:16] = band[H : 2 * H, 16:32]
        # Column windows at a runtime origin, through the vector half.
        for h0 in pl.range(0, N, 16):
            a = acc[0:M, h0 : h0 + 16]
            z[0:M, h0 : h0 + 16] = pl.mul(pl.maximum(a, pl.neg(a)), 2.0)
    return y, z, q, m
