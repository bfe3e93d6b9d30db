# Seed: imports pypto resolves (none exist beside the fuzz input, so each is a located E206),
# package-relative imports, aliasing, and host modules that are never read.
import numpy as np
import pypto.language as pl
import config as C
from config import B, D as DD
from .kernels.attention import attn
from .. import shared

X = C.B + DD
