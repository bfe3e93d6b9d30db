# pl.system.syncall: the blocks of one launch exchange data through GM across a barrier. Each
# block stores 2*x of its rows into `stage`, meets the other blocks, then reads the rows its right
# neighbour stored (without the barrier a block could read them before they are written).
#   exchange: the hard barrier, a launch of one block per AIV core of the run
#             (pl.system.available_aiv_count(), sync_start=True, as the hard barrier needs);
#   partial:  the soft barrier over a zero-initialised INT32 GM workspace, a launch of PART blocks.
# out[b] = 2 * x[(b + 1) % n] + x[b] (rows of block b), part likewise over PART blocks of y.
import pypto.language as pl

ROWS = 16
COLS = 64
PART = 2


@pl.program
class SyncallBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def exchange(
        self,
        x: pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32],
        stage: pl.InOut[pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32]],
        out: pl.Out[pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32], pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32]]:
        b = pl.tile.get_block_idx()
        n = pl.tile.get_block_num()
        t = pl.load(x, [b * ROWS, 0], [ROWS, COLS])
        stage = pl.store(pl.mul(t, 2.0), [b * ROWS, 0], stage)
        pl.system.syncall(core_type="aiv_only")
        u = pl.load(stage, [((b + 1) % n) * ROWS, 0], [ROWS, COLS])
        out = pl.store(pl.add(u, t), [b * ROWS, 0], out)
        return stage, out

    @pl.function(type=pl.FunctionType.InCore)
    def partial(
        self,
        y: pl.Tensor[[PART * ROWS, COLS], pl.FP32],
        stage: pl.InOut[pl.Tensor[[PART * ROWS, COLS], pl.FP32]],
        ws: pl.Tensor[[16], pl.INT32],
        part: pl.Out[pl.Tensor[[PART * ROWS, COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[PART * ROWS, COLS], pl.FP32], pl.Tensor[[PART * ROWS, COLS], pl.FP32]]:
        b = pl.tile.get_block_idx()
        t = pl.load(y, [b * ROWS, 0], [ROWS, COLS])
        stage = pl.store(pl.mul(t, 2.0), [b * ROWS, 0], stage)
        pl.system.syncall(mode="soft", core_type="aiv_only", gm_workspace=ws, used_cores=PART)
        u = pl.load(stage, [((b + 1) % PART) * ROWS, 0], [ROWS, COLS])
        part = pl.store(pl.add(u, t), [b * ROWS, 0], part)
        return stage, part

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32],
        y: pl.Tensor[[PART * ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32]],
        part: pl.Out[pl.Tensor[[PART * ROWS, COLS], pl.FP32]],
    ) -> tuple[pl.Tensor[[pl.dynamic("N"), COLS], pl.FP32], pl.Tensor[[PART * ROWS, COLS], pl.FP32]]:
        stage = pl.create_tensor([pl.tensor.dim(x, 0), COLS], dtype=pl.FP32)
        with pl.spmd(pl.system.available_aiv_count(), sync_start=True):
            staged, out = self.exchange(x, stage, out)
        stage2 = pl.create_tensor([PART * ROWS, COLS], dtype=pl.FP32)
        ws = pl.create_tensor([16], dtype=pl.INT32)
        with pl.spmd(PART):
            staged2, part = self.partial(y, stage2, ws, part)
        return out, part
