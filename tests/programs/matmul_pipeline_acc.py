# Exercises: a K loop at tensor level written as pypto-lib writes it — pl.pipeline(stage=2) over
# K windows, pl.matmul on the first window and pl.matmul_acc on the others, the weight transposed
# (b_trans). Each [K_TILE, N] window overflows L0B, so AutoTileMatmulL0 splits both the matmul and
# the matmul_acc into L0 blocks; two stages of those blocks do not fit L0B, so LowerPipelineLoops
# runs the loop one stage at a time (warning W503) instead of overflowing the memory plan.
import pypto.language as pl

M = 16
N = 256
K = 2048
K_TILE = 512


@pl.program
class MatmulPipelineAcc:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[N, K], pl.BF16],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.create_tensor([M, N], dtype=pl.FP32)
            for k0 in pl.pipeline(0, K, K_TILE, stage=2):
                x_k = x[0:M, k0 : k0 + K_TILE]
                w_k = w[0:N, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(x_k, w_k, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, x_k, w_k, b_trans=True)
            out = pl.assemble(out, acc, [0, 0])
        return out
