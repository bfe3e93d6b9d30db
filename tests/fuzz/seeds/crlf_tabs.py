# Seed: CRLF line ends, a tab-indented body, a BOM-less non-ASCII comment é and identifiers.
import pypto.language as pl

Né = 16

@pl.jit
def tabs(a: pl.Tensor[[Né, 64], pl.FP32], out: pl.Out[pl.Tensor[[Né, 64], pl.FP32]]):
	with pl.at(level=pl.Level.CORE_GROUP):
		out = pl.add(a, a)
	return out
