# Exercises: pl.prefetch.* — a task that warms L2 with the weights the next task reads (as
# pypto-lib's DeepSeek decode layers do before their projections): make_context (the kernel takes
# the task's SDMA workspace, kernel_entry reads it with get_dma_workspace), async_prefetch of flat
# [N] views, then a session and a wait. On the CPU a prefetch changes no value; the numbers come
# from the scale task. y = x * w (elementwise), w also prefetched as a flat [R * C] view.
import pypto.language as pl

R = 16
C = 64


@pl.program
class PrefetchWarm:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[R, C], pl.FP32], w: pl.Tensor[[R, C], pl.FP32],
              y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        a = pl.load(x, [0, 0], [R, C])
        b = pl.load(w, [0, 0], [R, C])
        return pl.store(pl.tile.mul(a, b), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], w: pl.Tensor[[R, C], pl.FP32],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        w_flat = pl.reshape(w, [R * C])
        x_flat = pl.reshape(x, [R * C])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="warm_l2"):
            ctx = pl.prefetch.make_context()
            ev = pl.prefetch.async_prefetch(w_flat, ctx)
            pl.prefetch.async_prefetch(x_flat, ctx)
            s = pl.prefetch.session(ctx)
            done = pl.prefetch.wait(ev, s)
        y = self.scale(x, w, y)
        return y
