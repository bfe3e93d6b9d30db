# Exercises: RMSNorm over a token count that is a runtime value and need not fill the last tile.
# x arrives as [B, S, H] (B dynamic) and the orchestration flattens it to [B * S, H]: the kernel's
# parameter extent B * S is computed by its caller, so inside the kernel it is a symbol read from
# the tensor's descriptor (BindKernelParamDims). B itself (nb, which Simplify folds to the symbol
# B) is read in the scope but carried by no tensor the kernel takes, so it becomes a scalar
# parameter the orchestration passes. Each pl.parallel iteration normalises TT tokens: loads
# state valid_shape=[rows, BH] (the last tile has rows < TT), fillpad zeroes the missing rows for
# the sums, and pl.set_validshape narrows the padded result back to the valid rows so the store
# writes only those. The weight g is 1-D: its windows are rank-1 tiles (FlattenTileNdTo2D makes
# them [1, BH]).
import pypto.language as pl

B = pl.dynamic("B")
S = 3
H = 256
TT = 8
BH = 64
EPS = 1e-6


@pl.jit
def ragged_norm(x: pl.Tensor[[B, S, H], pl.FP32], g: pl.Tensor[[H], pl.FP32],
                y: pl.Out[pl.Tensor[[B, S, H], pl.FP32]]):
    nb = pl.tensor.dim(x, 0)
    xf = pl.reshape(x, [nb * S, H])
    yf = pl.reshape(y, [nb * S, H])
    for b in pl.parallel((nb * S + TT - 1) // TT):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="norm_rows"):
            t0 = b * TT
            rows = pl.min(TT, S * nb - t0)
            tmp = pl.create_tile([TT, BH], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
            ss = pl.tile.full([1, TT], dtype=pl.FP32, value=0.0)
            for c in pl.range(0, H, BH):
                xc = pl.load(xf, [t0, c], [TT, BH], valid_shape=[rows, BH], target_memory=pl.MemorySpace.Vec)
                xz = pl.tile.fillpad(xc, pad_value=pl.PadValue.zero)
                ss = pl.add(ss, pl.reshape(pl.row_sum(pl.mul(xz, xz), tmp), [1, TT]))
            scale = pl.reshape(pl.rsqrt(pl.add(pl.mul(ss, 1.0 / H), EPS)), [TT, 1])
            for c in pl.range(0, H, BH):
                xc = pl.load(xf, [t0, c], [TT, BH], valid_shape=[rows, BH], target_memory=pl.MemorySpace.Vec)
                xz = pl.tile.fillpad(xc, pad_value=pl.PadValue.zero)
                gc = pl.reshape(pl.load(g, [c], [BH], target_memory=pl.MemorySpace.Vec), [1, BH])
                yc = pl.col_expand_mul(pl.row_expand_mul(xz, scale), gc)
                pl.store(pl.set_validshape(yc, rows, BH), [t0, c], yf)
    return y
