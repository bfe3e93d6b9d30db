// SoC table (README of the reference notes: memory spaces and capacities; pto-isa's conversion
// table for the TCVT pairs).
#include "ir/soc.h"

namespace pypto::ir {

namespace {
constexpr int64_t KiB = 1024;
using DT = DataType;
using Pair = std::pair<DataType, DataType>;

// The conversions one TCVT performs (pto-isa's tcvt table, a2a3 / a5 columns), by source type.
// 910B alone converts INT32 -> FP16 directly and has the INT4 pairs; 950 adds the unsigned and
// 8-bit pairs, BF16 -> FP16 and the FP8 / HF8 / FP4 formats.
constexpr Pair k910BCasts[] = {
    {DT::FP32, DT::FP16},  {DT::FP32, DT::BF16},  {DT::FP32, DT::INT16}, {DT::FP32, DT::INT32},
    {DT::FP32, DT::INT64}, {DT::FP16, DT::FP32},  {DT::FP16, DT::INT32}, {DT::FP16, DT::INT16},
    {DT::FP16, DT::INT8},  {DT::FP16, DT::UINT8}, {DT::FP16, DT::INT4},  {DT::BF16, DT::FP32},
    {DT::BF16, DT::INT32}, {DT::INT16, DT::FP16}, {DT::INT16, DT::FP32}, {DT::INT32, DT::FP32},
    {DT::INT32, DT::INT16}, {DT::INT32, DT::INT64}, {DT::INT32, DT::FP16}, {DT::INT64, DT::FP32},
    {DT::INT64, DT::INT32}, {DT::UINT8, DT::FP16}, {DT::INT8, DT::FP16},  {DT::INT4, DT::FP16},
};
constexpr Pair k950Casts[] = {
    {DT::FP32, DT::FP16},      {DT::FP32, DT::BF16},     {DT::FP32, DT::INT16},    {DT::FP32, DT::INT32},
    {DT::FP32, DT::INT64},     {DT::FP32, DT::FP8E4M3FN}, {DT::FP32, DT::FP8E5M2}, {DT::FP32, DT::HF8},
    {DT::FP16, DT::FP32},      {DT::FP16, DT::INT32},    {DT::FP16, DT::INT16},    {DT::FP16, DT::INT8},
    {DT::FP16, DT::UINT8},     {DT::FP16, DT::HF8},      {DT::BF16, DT::FP32},     {DT::BF16, DT::INT32},
    {DT::BF16, DT::FP16},      {DT::BF16, DT::FP4},      {DT::INT16, DT::FP16},    {DT::INT16, DT::FP32},
    {DT::INT16, DT::UINT8},    {DT::INT16, DT::UINT32},  {DT::INT16, DT::INT32},   {DT::INT32, DT::FP32},
    {DT::INT32, DT::INT16},    {DT::INT32, DT::INT64},   {DT::INT32, DT::UINT16},  {DT::INT32, DT::UINT8},
    {DT::INT64, DT::FP32},     {DT::INT64, DT::INT32},   {DT::UINT8, DT::FP16},    {DT::UINT8, DT::UINT16},
    {DT::INT8, DT::FP16},      {DT::INT8, DT::INT16},    {DT::INT8, DT::INT32},    {DT::UINT32, DT::UINT8},
    {DT::UINT32, DT::UINT16},  {DT::UINT32, DT::INT16},  {DT::FP8E4M3FN, DT::FP32}, {DT::FP8E5M2, DT::FP32},
    {DT::HF8, DT::FP32},       {DT::FP4, DT::BF16},
};

const SocInfo k910B{.soc = Soc::Ascend910B, .cli_name = "910b", .arch = "a2a3", .vec_bytes = 184 * KiB,
                    .mat_bytes = 512 * KiB, .left_bytes = 64 * KiB, .right_bytes = 64 * KiB, .acc_bytes = 128 * KiB,
                    .bias_bytes = 1 * KiB, .scale_bytes = 0, .alignment = 32, .left_col_major = false,
                    .aic_cores = 24, .aiv_cores = 48,
                    .launch_width_setter = "set_block_num", .native_casts = k910BCasts};
const SocInfo k950{.soc = Soc::Ascend950, .cli_name = "950", .arch = "a5", .vec_bytes = 240 * KiB,
                   .mat_bytes = 512 * KiB, .left_bytes = 64 * KiB, .right_bytes = 64 * KiB, .acc_bytes = 256 * KiB,
                   .bias_bytes = 4 * KiB, .scale_bytes = 4 * KiB, .alignment = 32, .left_col_major = true,
                   .aic_cores = 36, .aiv_cores = 72,
                   .launch_width_setter = "set_core_num", .native_casts = k950Casts};
}  // namespace

int64_t SocInfo::capacity(MemorySpace s) const {
  switch (s) {
    case MemorySpace::Vec: return vec_bytes;
    case MemorySpace::Mat: return mat_bytes;
    case MemorySpace::Left: return left_bytes;
    case MemorySpace::Right: return right_bytes;
    case MemorySpace::Acc: return acc_bytes;
    case MemorySpace::Bias: return bias_bytes;
    case MemorySpace::LeftScale:
    case MemorySpace::RightScale: return scale_bytes;
    default: return 0;
  }
}

bool SocInfo::native_cast(DataType from, DataType to) const {
  for (const auto& [f, t] : native_casts)
    if (f == from && t == to) return true;
  return false;
}

const SocInfo& soc_info(Soc s) { return s == Soc::Ascend950 ? k950 : k910B; }

std::optional<Soc> soc_from_name(std::string_view n) {
  if (n == "910b" || n == "910B" || n == "a2a3") return Soc::Ascend910B;
  if (n == "950" || n == "a5") return Soc::Ascend950;
  return std::nullopt;
}

}  // namespace pypto::ir
