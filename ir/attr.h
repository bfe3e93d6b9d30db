// Values of op keyword attributes (Call::kwargs): `target_memory=pl.Mem.Vec`, `dtype=pl.FP16`,
// `mode="round"`, `a_trans=True`, ... A small closed variant, printed and parsed by spelling.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "ir/dtype.h"
#include "ir/enums.h"

namespace pypto::ir {

// An enumerator of an enum the IR does not model as a C++ enum: `pl.PipeType.V` → {"PipeType","V"};
// enums of the distributed module keep their module: `pld.WaitCmp.Ge` → {"pld.WaitCmp","Ge"}.
struct EnumLit {
  std::string enum_name;
  std::string member;
  bool operator==(const EnumLit&) const = default;
};

using AttrValue = std::variant<std::monostate,  // None
                               bool, int64_t, double, std::string, DataType, MemorySpace,
                               TileLayout, TensorLayout, PadValue, CompactMode, EnumLit>;

}  // namespace pypto::ir
