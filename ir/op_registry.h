// The table-driven op registry. Every op (`tile.add`, `tensor.matmul`, `system.bar_v`, ...) is
// registered exactly once with: its positional argument schema, its keyword attributes with
// defaults, a type-deduction function, memory-space facts (for InferTileMemorySpace / InitMemRef
// / MemoryReuse) and core affinity (vector / cube). Adding an op = one registry entry (+ its
// emitter row and runtime instruction). The front end builds calls only through make_call, so
// arity, operand kinds, kwargs and types are checked in one place.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"

namespace pypto::ir {

// What a positional argument must be.
enum class ArgKind : uint8_t {
  Tensor,      // TensorType
  Tile,        // TileType
  Shaped,      // Tensor or Tile
  Scalar,      // ScalarType expression
  IndexList,   // MakeTuple of INDEX scalars (offsets, shapes)
  Any,
};

// What a keyword attribute holds.
enum class AttrKind : uint8_t { Bool, Int, Float, String, DType, MemSpace, TileLayout, TensorLayout, PadValue, CompactMode, Enum, Any };

struct ArgSpec {
  std::string name;
  ArgKind kind;
  bool optional = false;  // may be omitted (trailing args only)
};

struct KwSpec {
  std::string name;
  AttrKind kind;
  AttrValue default_value;   // monostate = None
  std::string enum_name;     // for AttrKind::Enum: "PipeType", ...
};

enum class CoreAffinity : uint8_t { Vector, Cube, Shared, Control };

struct CallArgs {
  const std::vector<ExprPtr>& args;
  const std::vector<std::pair<std::string, AttrValue>>& kwargs;  // defaults already filled in
  const Span& span;
  const AttrValue* kwarg(std::string_view name) const;
};
// Computes the result type or throws CompileError (E302) naming the problem.
using DeduceFn = std::function<TypePtr(const CallArgs&)>;

struct OpDef {
  std::string name;                 // "tile.add"
  std::vector<ArgSpec> args;
  std::vector<KwSpec> kwargs;
  DeduceFn deduce;
  std::string scalar_form;          // unified dispatch: "tile.add" → "tile.adds" ("" if none)
  std::vector<std::string> aliases; // extra unified spellings: "tensor.create" ← pl.create_tensor
  CoreAffinity affinity = CoreAffinity::Shared;
  // When set, the side is decided per call from the memory spaces involved (call_affinity):
  // any cube space (Mat/Left/Right/Acc/Bias) → Cube, otherwise Vector (tile.move).
  bool affinity_by_space = false;

  // Memory-space facts.
  std::optional<MemorySpace> output_memory;           // fixed result space (e.g. matmul → Acc)
  std::string output_memory_kwarg;                    // result space from a kwarg ("target_memory")
  int output_memory_inherit_input = -1;               // result space = that input's space
  std::vector<std::pair<int, std::vector<MemorySpace>>> input_memory;  // allowed input spaces
  int output_reuses_input = -1;                       // in-place: result shares that input's buffer
  bool not_inplace_safe = false;                      // result may not alias any input
  std::vector<int> forbid_output_alias;               // result may not alias these inputs

  std::string_view family() const;  // "tile", "tensor", "system", ...
  std::string_view short_name() const;  // "add" for "tile.add"
  const KwSpec* find_kwarg(std::string_view n) const;
};

class OpRegistry {
 public:
  static OpRegistry& instance();  // populated on first use from the ops_*.cpp tables
  void add(OpDef def);            // throws InternalError on a duplicate name
  const OpDef* find(std::string_view name) const;
  std::vector<const OpDef*> all() const;  // sorted by name

 private:
  std::vector<std::unique_ptr<OpDef>> ops_;
};

// Positional attributes: after the positional expression arguments of `args`, further positional
// arguments at a call site fill the keyword attributes in schema order (so `pl.cast(t, pl.FP16)`
// sets the first kwarg). The printer always prints attributes as keywords.

// Builds a checked call to a registered op: arity, operand kinds, keyword names and kinds, then
// type deduction. Missing kwargs get their defaults. Throws CompileError (E302) on misuse.
std::shared_ptr<const Call> make_call(const OpDef& op, std::vector<ExprPtr> args,
                                      std::vector<std::pair<std::string, AttrValue>> kwargs,
                                      const Span& span);
std::shared_ptr<const Call> make_call(std::string_view op_name, std::vector<ExprPtr> args,
                                      std::vector<std::pair<std::string, AttrValue>> kwargs,
                                      const Span& span);

// The core side of one call: the op's affinity, refined for `affinity_by_space` ops; calls to
// program functions are Control.
CoreAffinity call_affinity(const Call& c);

// Registration hooks implemented by the op tables (ops_tile.cpp, ops_tensor.cpp, ops_system.cpp).
void register_tile_ops(OpRegistry& r);
void register_tensor_ops(OpRegistry& r);
void register_system_ops(OpRegistry& r);

}  // namespace pypto::ir
