# Exercises: orchestration tensors created with init_value= (TensorCreateInfo::set_initial_value:
# the runtime fills the buffer when it allocates it), read by kernels without being written
# first, FP32 and INT32. out = x + 1.5; cnt = 3 + 3 = 6.
import pypto.language as pl

R = 32
C = 64


@pl.program
class CreateInit:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             cnt: pl.Out[pl.Tensor[[R, C], pl.INT32]]) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, C], pl.INT32]]:
        bias = pl.create_tensor([R, C], dtype=pl.FP32, init_value=1.5)
        three = pl.create_tensor([R, C], dtype=pl.INT32, init_value=3)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.add(x, bias), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            cnt = pl.assemble(cnt, pl.add(three, three), [0, 0])
        return out, cnt
