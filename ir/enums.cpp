// Spelling tables for the IR enumerations (see enums.h).
#include "ir/enums.h"

#include <array>
#include <utility>

namespace pypto::ir {
namespace {

template <class E, size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E v) {
  for (const auto& [e, n] : table)
    if (e == v) return n;
  return "?";
}

template <class E, size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view s) {
  for (const auto& [e, n] : table)
    if (n == s) return e;
  return std::nullopt;
}

using MS = MemorySpace;
constexpr std::array<std::pair<MS, std::string_view>, 10> kMem = {{
    {MS::DDR, "DDR"}, {MS::Vec, "Vec"}, {MS::Mat, "Mat"}, {MS::Left, "Left"}, {MS::Right, "Right"},
    {MS::Acc, "Acc"}, {MS::Bias, "Bias"}, {MS::LeftScale, "LeftScale"},
    {MS::RightScale, "RightScale"}, {MS::ScalarLocal, "ScalarLocal"}}};
constexpr std::array<std::pair<TensorLayout, std::string_view>, 5> kTensorLayout = {{
    {TensorLayout::ND, "ND"}, {TensorLayout::DN, "DN"}, {TensorLayout::NZ, "NZ"},
    {TensorLayout::MX_A_ZZ, "MX_A_ZZ"}, {TensorLayout::MX_B_NN, "MX_B_NN"}}};
constexpr std::array<std::pair<TileLayout, std::string_view>, 3> kTileLayout = {{
    {TileLayout::none_box, "none_box"}, {TileLayout::row_major, "row_major"},
    {TileLayout::col_major, "col_major"}}};
constexpr std::array<std::pair<PadValue, std::string_view>, 4> kPad = {{
    {PadValue::null, "null"}, {PadValue::zero, "zero"}, {PadValue::max, "max"}, {PadValue::min, "min"}}};
constexpr std::array<std::pair<CompactMode, std::string_view>, 2> kCompact = {{
    {CompactMode::null, "null"}, {CompactMode::normal, "normal"}}};
using FT = FunctionType;
constexpr std::array<std::pair<FT, std::string_view>, 9> kFuncType = {{
    {FT::Opaque, "Opaque"}, {FT::Orchestration, "Orchestration"}, {FT::InCore, "InCore"},
    {FT::AIC, "AIC"}, {FT::AIV, "AIV"}, {FT::Group, "Group"}, {FT::Spmd, "Spmd"},
    {FT::Inline, "Inline"}, {FT::Graph, "Graph"}}};
constexpr std::array<std::pair<Level, std::string_view>, 17> kLevel = {{
    {Level::AIV, "AIV"}, {Level::AIC, "AIC"}, {Level::CORE_GROUP, "CORE_GROUP"},
    {Level::CHIP_DIE, "CHIP_DIE"}, {Level::CHIP, "CHIP"}, {Level::HOST, "HOST"},
    {Level::CLUSTER_0, "CLUSTER_0"}, {Level::CLUSTER_1, "CLUSTER_1"}, {Level::CLUSTER_2, "CLUSTER_2"},
    {Level::GLOBAL, "GLOBAL"},
    // aliases (parse only; the first spelling of a value is the printed one)
    {Level::CHIP_DIE, "L2CACHE"}, {Level::CHIP, "PROCESSOR"}, {Level::HOST, "UMA"},
    {Level::CLUSTER_0, "NODE"}, {Level::CLUSTER_1, "POD"}, {Level::CLUSTER_2, "CLOS1"},
    {Level::GLOBAL, "CLOS2"}}};
constexpr std::array<std::pair<Role, std::string_view>, 2> kRole = {{
    {Role::Orchestrator, "Orchestrator"}, {Role::SubWorker, "SubWorker"}}};
constexpr std::array<std::pair<ParamDirection, std::string_view>, 3> kParamDir = {{
    {ParamDirection::In, "In"}, {ParamDirection::Out, "Out"}, {ParamDirection::InOut, "InOut"}}};
using AD = ArgDirection;
constexpr std::array<std::pair<AD, std::string_view>, 6> kArgDir = {{
    {AD::input, "input"}, {AD::output, "output"}, {AD::output_existing, "output_existing"},
    {AD::inout, "inout"}, {AD::no_dep, "no_dep"}, {AD::scalar, "scalar"}}};
constexpr std::array<std::pair<ForKind, std::string_view>, 4> kForKind = {{
    {ForKind::Sequential, "range"}, {ForKind::Parallel, "parallel"}, {ForKind::Unroll, "unroll"},
    {ForKind::Pipeline, "pipeline"}}};
constexpr std::array<std::pair<ScopeKind, std::string_view>, 6> kScope = {{
    {ScopeKind::InCore, "InCore"}, {ScopeKind::Cluster, "Cluster"}, {ScopeKind::Spmd, "Spmd"},
    {ScopeKind::Hierarchy, "Hierarchy"}, {ScopeKind::Runtime, "Runtime"}, {ScopeKind::SplitAiv, "SplitAiv"}}};
constexpr std::array<std::pair<SplitMode, std::string_view>, 3> kSplit = {{
    {SplitMode::NONE, "NONE"}, {SplitMode::UP_DOWN, "UP_DOWN"}, {SplitMode::LEFT_RIGHT, "LEFT_RIGHT"}}};

}  // namespace

std::string_view to_string(MemorySpace v) { return name_of(kMem, v); }
std::string_view to_string(TensorLayout v) { return name_of(kTensorLayout, v); }
std::string_view to_string(TileLayout v) { return name_of(kTileLayout, v); }
std::string_view to_string(PadValue v) { return name_of(kPad, v); }
std::string_view to_string(CompactMode v) { return name_of(kCompact, v); }
std::string_view to_string(FunctionType v) { return name_of(kFuncType, v); }
std::string_view to_string(Level v) { return name_of(kLevel, v); }
std::string_view to_string(Role v) { return name_of(kRole, v); }
std::string_view to_string(ParamDirection v) { return name_of(kParamDir, v); }
std::string_view to_string(ArgDirection v) { return name_of(kArgDir, v); }
std::string_view to_string(ForKind v) { return name_of(kForKind, v); }
std::string_view to_string(ScopeKind v) { return name_of(kScope, v); }
std::string_view to_string(SplitMode v) { return name_of(kSplit, v); }

std::optional<MemorySpace> memory_space_from_name(std::string_view s) { return value_of(kMem, s); }
std::optional<TensorLayout> tensor_layout_from_name(std::string_view s) { return value_of(kTensorLayout, s); }
std::optional<TileLayout> tile_layout_from_name(std::string_view s) { return value_of(kTileLayout, s); }
std::optional<PadValue> pad_value_from_name(std::string_view s) { return value_of(kPad, s); }
std::optional<CompactMode> compact_mode_from_name(std::string_view s) { return value_of(kCompact, s); }
std::optional<FunctionType> function_type_from_name(std::string_view s) { return value_of(kFuncType, s); }
std::optional<Level> level_from_name(std::string_view s) { return value_of(kLevel, s); }
std::optional<Role> role_from_name(std::string_view s) { return value_of(kRole, s); }
std::optional<ArgDirection> arg_direction_from_name(std::string_view s) { return value_of(kArgDir, s); }
std::optional<SplitMode> split_mode_from_name(std::string_view s) { return value_of(kSplit, s); }

}  // namespace pypto::ir
