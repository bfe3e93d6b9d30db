// Element types of the DSL (`pl.FP32`, `pl.INDEX`, ...) and the facts every stage needs about
// them: DSL spelling, storage width, C element type in kernels, runtime DataType name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pypto::ir {

enum class DataType : uint8_t {
  BOOL,
  INT4, INT8, INT16, INT32, INT64,
  UINT4, UINT8, UINT16, UINT32, UINT64,
  FP4, FP8E4M3FN, FP8E5M2, FP8E8M0, HF4, HF8, FP16, BF16, FP32,
  INDEX,    // loop variables, dims, offsets (64-bit signed)
  TASK_ID,  // runtime task handle (P2)
};

// "FP32" for DataType::FP32 (the DSL spelling, without the `pl.` prefix).
std::string_view dtype_name(DataType t);
// Inverse of dtype_name; nullopt for unknown names (e.g. "FP8").
std::optional<DataType> dtype_from_name(std::string_view name);
// Storage width in bits (INDEX and TASK_ID are 64).
int dtype_bits(DataType t);
bool dtype_is_float(DataType t);
bool dtype_is_int(DataType t);       // signed, unsigned and INDEX
bool dtype_is_signed(DataType t);
// C++ element type in kernels: "float", "half", "bfloat16_t", "int64_t", ...
std::string_view dtype_c_type(DataType t);
// Runtime `DataType::` enumerator used in orchestration code: "FLOAT32", "FLOAT16", ...
// Empty for types the runtime has no name for.
std::string_view dtype_runtime_name(DataType t);

}  // namespace pypto::ir
