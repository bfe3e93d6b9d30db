// Target SoC facts shared by memory planning (capacities), the runtime ABI's argument limits and
// code generation (layouts, compile flags): Ascend 910B ("a2a3") and Ascend 950 ("a5").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <string_view>

#include "ir/dtype.h"
#include "ir/enums.h"

namespace pypto::ir {

enum class Soc : uint8_t { Ascend910B, Ascend950 };

struct SocInfo {
  Soc soc;
  std::string_view cli_name;    // "910b" / "950"
  std::string_view arch;        // "a2a3" / "a5"
  int64_t vec_bytes;            // planning budget for Vec (UB)
  int64_t mat_bytes, left_bytes, right_bytes, acc_bytes, bias_bytes, scale_bytes;
  int64_t alignment = 32;       // every on-chip buffer address
  bool left_col_major;          // Left (L0A) tile BLayout in generated C++
  // Argument limits of the runtime ABI (simpler's CORE_MAX_* / CHIP_MAX_* constants; a test
  // checks them against runtime/include/pto_orchestration_api.h): per kernel task and for the
  // orchestration entry.
  int task_tensor_args = 32, task_scalar_args = 16;
  int entry_tensor_args = 256, entry_scalar_args = 128;
  // Physical cores a launch can fill (a hard pl.system.syncall needs one block on each):
  // clusters of 1 AIC + 2 AIV on both SoCs.
  int aic_cores = 24, aiv_cores = 48;
  // The PTO2LaunchSpec setter of a launch's block count in simpler's headers for the SoC.
  std::string_view launch_width_setter = "set_block_num";

  // The element-type pairs one TCVT converts directly (pto-isa's conversion table for the SoC;
  // LegalizeTileCast chains the others through them).
  std::span<const std::pair<DataType, DataType>> native_casts;

  // Budget for one memory space (0 for spaces with no on-chip budget, e.g. DDR).
  int64_t capacity(MemorySpace s) const;
  bool native_cast(DataType from, DataType to) const;
};

const SocInfo& soc_info(Soc s);
std::optional<Soc> soc_from_name(std::string_view cli_name);  // "910b", "950"

}  // namespace pypto::ir
