// pypto CPU runtime: the deterministic input generator behind `run --seed N` (identical on every
// machine and compiler). Stream for tensor parameter k: splitmix64 starting from state
// seed + 0x9E3779B97F4A7C15 * (k + 1); each element consumes one 64-bit draw x:
//   float types: (x >> 40) * 2^-23 - 1   -> uniform in [-1, 1) on a 2^-23 grid, then rounded RNE
//                                           to FLOAT16 / BFLOAT16
//   signed ints: (x >> 32) % 17 - 8      -> [-8, 8];   unsigned ints: (x >> 32) % 17 -> [0, 16]
//   BOOL:        x >> 63                 -> 0 / 1
//   FP8E4M3FN:   the float value above rounded RNE to E4M3 (1-byte codes)
//   FP8E8M0:     exponent code 125 + (x >> 32) % 5 -> scales 2^-2 .. 2^2 (keeps MX products in range)
#pragma once

#include <cstdint>
#include <vector>

#include "tensor.h"

namespace pypto_rt {

uint64_t splitmix64_next(uint64_t& state);

// `count` elements of `dtype` in device layout (BFLOAT16 as 16-bit bf16 patterns, FP8 as 8-bit
// codes).
std::vector<uint8_t> random_fill(DataType dtype, uint64_t count, uint64_t seed, int param_index);

}  // namespace pypto_rt
