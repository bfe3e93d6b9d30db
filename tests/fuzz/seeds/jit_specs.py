# Seed: a @pl.jit entry with bare tensors typed by a spec function (read statically), a dynamic
# dimension, a.shape unpacking, pl.tensor.dim and host code that is never evaluated.
import torch
import pypto.language as pl
from golden import TensorSpec


@pl.jit
def rowsum(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    M, N = a.shape
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(a, 1.0)
        out = pl.mul(t, 0.5)
    return out


def build_tensor_specs():
    return [
        TensorSpec("a", [32, 64], torch.float32, init_value=torch.randn),
        TensorSpec("out", [32, 64], torch.float32, is_output=True),
    ]


if __name__ == "__main__":
    import sys
    print(sys.argv)
