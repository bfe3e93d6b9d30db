# Exercises: a kernel loop carrying a tensor-level value that an if replaces, one arm taking a
# window of GM as it is and the other computing (`if j == 0: cur = blk else: cur = pl.maximum(cur,
# blk)`), as Qwen3-14B's a8w8 prefill writes its online softmax: ConvertTensorToTileOps makes the
# carry a tile although the if's first arm is a plain window. The values come from a kernel of their
# own (pl.full), cross an orchestration loop, and the last kernel reads them.
# Per round: cur = max over the NB row blocks of x; acc += cur + round. out = 2 * acc.
import pypto.language as pl

R = 16
C = 64
NB = 4
ROUNDS = 2


@pl.program
class OnlineCarry:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[NB * R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="init"):
            cur = pl.full([R, C], dtype=pl.FP32, value=0.0)
            acc = pl.full([R, C], dtype=pl.FP32, value=0.0)
        for rnd in pl.range(ROUNDS):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="online"):
                for j in pl.range(NB):
                    blk = pl.slice(x, [R, C], [j * R, 0])
                    if j == 0:
                        cur = blk
                    else:
                        cur = pl.maximum(cur, blk)
                acc = pl.add(acc, pl.add(cur, pl.cast(rnd, pl.FP32)))
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):
            out = pl.assemble(out, pl.mul(acc, 2.0), [0, 0])
        return out
