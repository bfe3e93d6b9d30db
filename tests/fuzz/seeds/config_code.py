# Seed: module-level config code the constant evaluator runs (dataclass with defaults, property,
# dataclasses.replace, helper function with if/for/assert, comprehensions, f-strings, math, dicts).
import dataclasses
import math
from dataclasses import dataclass

import pypto.language as pl


@dataclass
class Config:
    rows: int = 32
    cols: int = 64
    scale: float = 0.5

    @property
    def size(self):
        return self.rows * self.cols


def pick(n, limit=128):
    out = 1
    for i in range(n):
        if out * 2 > limit:
            break
        out *= 2
    assert out >= 1, f"bad {n}"
    return out


BASE = Config()
CFG = dataclasses.replace(BASE, rows=pick(5))
SHAPES = [CFG.rows * k for k in (1, 2) if k < 3]
TABLE = {"a": 1, "b": len(SHAPES)}
NAME = f"k_{CFG.rows}x{CFG.cols}"
LOG = int(math.log2(CFG.cols)) + TABLE["b"]
R, C = CFG.rows, CFG.cols


@pl.jit
def scaled(x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.mul(x, CFG.scale)
    return out
