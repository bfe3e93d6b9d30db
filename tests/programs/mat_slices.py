# Exercises: windows of a Mat tile as matmul operands. kv is loaded once into Mat
# (pl.load(..., target_memory=Mat), as pypto-lib's attention kernels load their KV block); the
# product with each 64-column half of kv is taken separately (kv[:, 0:64] is a tile.slice of the
# Mat tile, which CanonicalizeTileSlice turns into one TEXTRACT into Right) and the halves are
# stored side by side: y = q @ kv.
import pypto.language as pl

M = 32
K = 64
N = 128


@pl.jit
def mat_slices(q: pl.Tensor[[M, K], pl.BF16], kv: pl.Tensor[[K, N], pl.BF16],
               y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="halves"):
        qm = pl.load(q, [0, 0], [M, K], target_memory=pl.MemorySpace.Mat)
        kvm = pl.load(kv, [0, 0], [K, N], target_memory=pl.MemorySpace.Mat)
        left = pl.matmul(qm, kvm[:, 0 : N // 2], out_dtype=pl.FP32)
        right = pl.matmul(qm, kvm[:, N // 2 : N], out_dtype=pl.FP32)
        pl.store(left, [0, 0], y)
        pl.store(right, [0, N // 2], y)
    return y
