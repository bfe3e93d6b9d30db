// The small enumerations of the IR (memory spaces, layouts, function kinds, directions, loop kinds)
// with their DSL spellings. One table per enum in enums.cpp; the printer and the front end both
// use these names, so a spelling lives in exactly one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pypto::ir {

// pl.Mem.X / pl.MemorySpace.X
enum class MemorySpace : uint8_t { DDR, Vec, Mat, Left, Right, Acc, Bias, LeftScale, RightScale, ScalarLocal };
// pl.TensorLayout.X (bare slots: pl.ND, pl.NZ, ...)
enum class TensorLayout : uint8_t { ND, DN, NZ, MX_A_ZZ, MX_B_NN };
// pl.TileLayout.X
enum class TileLayout : uint8_t { none_box, row_major, col_major };
// pl.PadValue.X
enum class PadValue : uint8_t { null, zero, max, min };
// pl.CompactMode.X
enum class CompactMode : uint8_t { null, normal };
// pl.FunctionType.X
enum class FunctionType : uint8_t { Opaque, Orchestration, InCore, AIC, AIV, Group, Spmd, Inline, Graph };
// pl.Level.X
enum class Level : uint8_t { AIV, AIC, CORE_GROUP, CHIP_DIE, CHIP, HOST, CLUSTER_0, CLUSTER_1, CLUSTER_2, GLOBAL };
// pl.Role.X
enum class Role : uint8_t { Orchestrator, SubWorker };
// Parameter direction of a function (pl.Out / pl.InOut annotations).
enum class ParamDirection : uint8_t { In, Out, InOut };
// Direction of one argument of one call (DeriveCallDirections). Printed as pl.adir.<name>.
enum class ArgDirection : uint8_t { input, output, output_existing, inout, no_dep, scalar };
// Loop kinds.
enum class ForKind : uint8_t { Sequential, Parallel, Unroll, Pipeline };
// Scope kinds (ScopeStmt). SplitAiv: a `for lane in pl.split_aiv(2, mode=...)` region.
enum class ScopeKind : uint8_t { InCore, Cluster, Spmd, Hierarchy, Runtime, SplitAiv };
// pl.SplitMode.X: how a mixed kernel's vector work is halved across the two AIV lanes.
enum class SplitMode : uint8_t { NONE, UP_DOWN, LEFT_RIGHT };

std::string_view to_string(MemorySpace v);
std::string_view to_string(TensorLayout v);
std::string_view to_string(TileLayout v);
std::string_view to_string(PadValue v);
std::string_view to_string(CompactMode v);
std::string_view to_string(FunctionType v);
std::string_view to_string(Level v);
std::string_view to_string(Role v);
std::string_view to_string(ParamDirection v);
std::string_view to_string(ArgDirection v);
std::string_view to_string(ForKind v);
std::string_view to_string(ScopeKind v);
std::string_view to_string(SplitMode v);

std::optional<MemorySpace> memory_space_from_name(std::string_view s);
std::optional<TensorLayout> tensor_layout_from_name(std::string_view s);
std::optional<TileLayout> tile_layout_from_name(std::string_view s);
std::optional<PadValue> pad_value_from_name(std::string_view s);
std::optional<CompactMode> compact_mode_from_name(std::string_view s);
std::optional<FunctionType> function_type_from_name(std::string_view s);
std::optional<Level> level_from_name(std::string_view s);  // accepts the aliases (PROCESSOR, ...)
std::optional<Role> role_from_name(std::string_view s);
std::optional<ArgDirection> arg_direction_from_name(std::string_view s);
std::optional<SplitMode> split_mode_from_name(std::string_view s);

// Execution-plane helpers.
inline bool is_incore_like(FunctionType t) {
  return t == FunctionType::InCore || t == FunctionType::AIC || t == FunctionType::AIV;
}

// The level and role a function type implies (a function that states none has these): InCore
// CHIP_DIE, AIC / AIV their own, Group CORE_GROUP, each a SubWorker; Orchestration and Graph
// CHIP, Orchestrator. Other types imply nothing.
inline std::optional<Level> implied_level(FunctionType t) {
  switch (t) {
    case FunctionType::Orchestration:
    case FunctionType::Graph: return Level::CHIP;
    case FunctionType::InCore: return Level::CHIP_DIE;
    case FunctionType::AIC: return Level::AIC;
    case FunctionType::AIV: return Level::AIV;
    case FunctionType::Group: return Level::CORE_GROUP;
    default: return std::nullopt;
  }
}
inline std::optional<Role> implied_role(FunctionType t) {
  if (t == FunctionType::Orchestration || t == FunctionType::Graph) return Role::Orchestrator;
  if (is_incore_like(t) || t == FunctionType::Group) return Role::SubWorker;
  return std::nullopt;
}

}  // namespace pypto::ir
