// Table of element-type facts; one row per DataType.
#include "ir/dtype.h"

#include <array>

namespace pypto::ir {
namespace {

struct DTypeRow {
  DataType type;
  std::string_view name;
  int bits;
  bool is_float;
  bool is_int;
  bool is_signed;
  std::string_view c_type;
  std::string_view runtime_name;
};

constexpr std::array kRows = {
    DTypeRow{DataType::BOOL, "BOOL", 8, false, false, false, "bool", "BOOL"},
    DTypeRow{DataType::INT4, "INT4", 4, false, true, true, "int8_t", ""},
    DTypeRow{DataType::INT8, "INT8", 8, false, true, true, "int8_t", "INT8"},
    DTypeRow{DataType::INT16, "INT16", 16, false, true, true, "int16_t", "INT16"},
    DTypeRow{DataType::INT32, "INT32", 32, false, true, true, "int32_t", "INT32"},
    DTypeRow{DataType::INT64, "INT64", 64, false, true, true, "int64_t", "INT64"},
    DTypeRow{DataType::UINT4, "UINT4", 4, false, true, false, "uint8_t", ""},
    DTypeRow{DataType::UINT8, "UINT8", 8, false, true, false, "uint8_t", "UINT8"},
    DTypeRow{DataType::UINT16, "UINT16", 16, false, true, false, "uint16_t", "UINT16"},
    DTypeRow{DataType::UINT32, "UINT32", 32, false, true, false, "uint32_t", "UINT32"},
    DTypeRow{DataType::UINT64, "UINT64", 64, false, true, false, "uint64_t", "UINT64"},
    DTypeRow{DataType::FP4, "FP4", 4, true, false, true, "float4_e2m1x2_t", "FP4E2M1"},
    DTypeRow{DataType::FP8E4M3FN, "FP8E4M3FN", 8, true, false, true, "float8_e4m3_t", "FP8E4M3FN"},
    DTypeRow{DataType::FP8E5M2, "FP8E5M2", 8, true, false, true, "float8_e5m2_t", ""},
    DTypeRow{DataType::FP8E8M0, "FP8E8M0", 8, true, false, false, "float8_e8m0_t", "FP8E8M0"},
    DTypeRow{DataType::HF4, "HF4", 4, true, false, true, "", ""},
    DTypeRow{DataType::HF8, "HF8", 8, true, false, true, "", ""},
    DTypeRow{DataType::FP16, "FP16", 16, true, false, true, "half", "FLOAT16"},
    DTypeRow{DataType::BF16, "BF16", 16, true, false, true, "bfloat16_t", "BFLOAT16"},
    DTypeRow{DataType::FP32, "FP32", 32, true, false, true, "float", "FLOAT32"},
    DTypeRow{DataType::INDEX, "INDEX", 64, false, true, true, "int64_t", "INT64"},
    DTypeRow{DataType::TASK_ID, "TASK_ID", 64, false, false, false, "PTO2TaskId", ""},
};

const DTypeRow& row(DataType t) {
  for (const auto& r : kRows)
    if (r.type == t) return r;
  return kRows[0];  // unreachable: every enumerator has a row
}

}  // namespace

std::string_view dtype_name(DataType t) { return row(t).name; }
std::optional<DataType> dtype_from_name(std::string_view name) {
  for (const auto& r : kRows)
    if (r.name == name) return r.type;
  return std::nullopt;
}
int dtype_bits(DataType t) { return row(t).bits; }
bool dtype_is_float(DataType t) { return row(t).is_float; }
bool dtype_is_int(DataType t) { return row(t).is_int; }
bool dtype_is_signed(DataType t) { return row(t).is_signed; }
std::string_view dtype_c_type(DataType t) { return row(t).c_type; }
std::string_view dtype_runtime_name(DataType t) { return row(t).runtime_name; }

}  // namespace pypto::ir
