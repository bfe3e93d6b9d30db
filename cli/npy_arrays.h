// .npy files ↔ interpreter arrays, with the conventions of the CPU runtime's `bin/run`: one
// <param>.npy per tensor, BF16 travelling as float32, and `--seed N` inputs drawn by the runtime's
// own generator (pypto_rt::random_fill), so `pypto eval --seed N` sees what `bin/run --seed N` does.
#pragma once

#include <string>
#include <vector>

#include "ir/interp/value.h"

namespace pypto::cli {

// Reads `path` as an array of `dt`; throws UsageError naming the file when its dtype is not the
// one `dt` travels as.
ir::interp::Array read_npy_array(const std::string& path, ir::DataType dt);
void write_npy_array(const std::string& path, const ir::interp::Array& a);
// The input `bin/run --seed seed` generates for tensor parameter number `index` (0-based among the
// entry's tensor parameters).
ir::interp::Array seeded_array(ir::DataType dt, const std::vector<int64_t>& shape, uint64_t seed, int index);

}  // namespace pypto::cli
