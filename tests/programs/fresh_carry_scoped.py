# Exercises: the layer loop of fresh_carry.py written as Qwen3-14B's prefill writes it: the
# function places its runtime scopes by hand (auto_scope=False) and each layer's buffers live in a
# `with pl.scope():` that ends the loop body, so a layer's buffer can be released once the next
# layer has read it. The yield moves into that scope (ClassifyIterArgCarry); the carried handle
# outlives it. A second kernel per layer writes a scratch buffer made in the same scope.
import pypto.language as pl

R = 16
C = 64
LAYERS = 4


@pl.program
class FreshCarryScoped:
    @pl.function(type=pl.FunctionType.InCore)
    def layer(self, a: pl.Tensor[[R, C], pl.FP32], x: pl.Tensor[[R, C], pl.FP32],
              b: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.load(a, [0, 0], [R, C])
        tx = pl.load(x, [0, 0], [R, C])
        return pl.store(pl.add(pl.mul(ta, 0.5), tx), [0, 0], b)

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        with pl.scope():
            cur = pl.create_tensor([R, C], dtype=pl.FP32)
            cur = self.layer(x, x, cur)
            for i in pl.range(LAYERS):
                with pl.scope():
                    scratch = pl.create_tensor([R, C], dtype=pl.FP32)
                    nxt = pl.create_tensor([R, C], dtype=pl.FP32)
                    scratch = self.layer(cur, cur, scratch)
                    cur = self.layer(scratch, x, nxt)
            y = self.layer(cur, x, y)
        return y
