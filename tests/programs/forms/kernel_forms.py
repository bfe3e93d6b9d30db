# Exercises kernel-side forms the front end keeps: a pl.split_aiv region (its lane variable, and
# aiv_shard taking the region's split), a cross-core pop typed by its annotation, cross-core
# flags, and a function attribute from the decorator. The pass pipeline rejects them up front
# (CheckProgramForms) or at emission (no kernel spelling yet).
import pypto.language as pl


@pl.program
class KernelForms:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tag": "demo"})
    def mixed(self, a: pl.Tensor[[64, 64], pl.FP16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_l1 = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_left = pl.move(a_l1, target_memory=pl.Mem.Left)
        a_right = pl.move(a_l1, target_memory=pl.Mem.Right)
        acc = pl.matmul(a_left, a_right)
        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half = pl.aiv_shard(acc)
            scaled = pl.mul(half, 2.0)
            out = pl.store(scaled, [lane * 32, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def receiver(self, out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        got: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aic()
        pl.system.sync_set(3, pipe=pl.PipeType.MTE3)
        pl.system.sync_wait(3, pipe=pl.PipeType.MTE3)
        pl.system.tfree_to_aic(got)
        return pl.store(got, [0, 0], out)
