# Exercises: an orchestration loop whose carried tensor is a buffer each iteration makes (a layer
# loop: nxt = pl.create_tensor(...); cur = layer(cur, ..., nxt)). MaterializeRuntimeScopes wraps the
# loop body in a runtime scope; ClassifyIterArgCarry makes the carry a rebind and moves the body's
# yield into that scope, where the new buffer's handle is. Per layer v = 0.5 * v + x, starting from
# v = 1.5 * x, LAYERS times, then once more into y.
import pypto.language as pl

R = 16
C = 64
LAYERS = 4


@pl.program
class FreshCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def layer(self, a: pl.Tensor[[R, C], pl.FP32], x: pl.Tensor[[R, C], pl.FP32],
              b: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.load(a, [0, 0], [R, C])
        tx = pl.load(x, [0, 0], [R, C])
        return pl.store(pl.add(pl.mul(ta, 0.5), tx), [0, 0], b)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        cur = pl.create_tensor([R, C], dtype=pl.FP32)
        cur = self.layer(x, x, cur)
        for i in pl.range(LAYERS):
            nxt = pl.create_tensor([R, C], dtype=pl.FP32)
            cur = self.layer(cur, x, nxt)
        y = self.layer(cur, x, y)
        return y
