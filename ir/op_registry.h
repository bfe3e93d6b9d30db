// The table-driven op registry: one definition per op. Every op (`tile.add`, `tensor.matmul`,
// `system.bar_v`, ...) is registered exactly once with everything the compiler knows of it: its
// positional argument schema, its keyword attributes with defaults, a type-deduction function,
// memory-space facts (for InferTileMemorySpace / InitMemRef / MemoryReuse), core affinity
// (vector / cube), the pipe its instruction runs on (or the rule that picks it, or the explicit
// marker that it is no instruction), its tensor-level ↔ tile-level counterpart and how operands
// map between the two, and a hook for its reference semantics (filled by the interpreter).
// Backend spellings (pto-isa call, orchestration API) live in emit/, in tables keyed by the
// OpDef (ir/op_table.h), never by a string. The front end builds calls only through make_call,
// so arity, operand kinds, kwargs and types are checked in one place.
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
  bool scratch = false;   // a tmp tile the instruction overwrites (read and written)
  int same_as = -1;       // optional: omitted means the value of this argument (a load's valid_shape: its shape)
};

struct KwSpec {
  std::string name;
  AttrKind kind;
  AttrValue default_value;   // monostate = None
  std::string enum_name;     // for AttrKind::Enum: "PipeType", ...
};

enum class CoreAffinity : uint8_t { Vector, Cube, Shared, Control };

// The hardware pipe that executes a tile instruction (pl.PipeType members; README "Pipes").
enum class Pipe : uint8_t { S, V, MTE1, MTE2, MTE3, M, FIX, None };
constexpr int kNumPipes = 7;  // S..FIX
std::string_view pipe_name(Pipe p);  // "MTE2"
std::optional<Pipe> pipe_from_name(std::string_view s);

// How the pipe of a tile op is found. Every tile op states one; Unset is a registry error that
// the registry test reports.
enum class PipeRule : uint8_t {
  Unset,
  NotInstruction,  // views, allocations, declarations, launch geometry: no pipe work
  Fixed,           // always OpDef::pipe
  Move,            // a data move: from the space of operand OpDef::move_from to the result's space
  Store,           // a GM store: FIX from an Acc tile, MTE3 otherwise; the tensor operand is written
};

// How a tensor op becomes tile code inside a kernel (ConvertTensorToTileOps).
enum class TileLowering : uint8_t {
  None,        // no tile form (orchestration-only, or not lowerable yet)
  Compute,     // every Tensor operand → Vec tile; other operands as they are
  ComputeTmp,  // Compute + a scratch tile shaped like operand 0 appended (row reductions)
  PreciseTmp,  // Compute; high_precision=True appends a scratch tile shaped like operand 0 (tensor.rsqrt:
               // the tile form with a tmp tile is pto-isa's high-precision path)
  Transpose,   // Compute + a scratch tile shaped like operand 0 appended after the axes
  MergeTmp,    // Compute + a scratch tile shaped like the result appended (tensor.mrgsort_format2's tmp)
  Create,      // tensor.create / tensor.full → tile.create / tile.full (Vec)
  CreateMat,   // tensor.create_l1 → tile.create in Mat (L1 staging for the cube)
  Slice,       // GM source → tile.load window; tile source → tile.slice
  Assemble,    // GM target → tile.store; tile target → tile.assemble
  Matmul,      // lhs/rhs → Mat load → move Left/Right → tile.matmul (Acc)
  MatmulAcc,   // acc (a matmul result) + lhs/rhs as for Matmul → tile.matmul_acc
  Scalar,      // a scalar query (tensor.dim): kept as it is, its result is a scalar
  Compare,     // tensor.cmp: tile.cmp / cmps into a bit mask, then tile.sel of 1 / 0 → 0/1 values
  GatherRow,   // tensor.gather_row: the accumulator as its tile (Mat from create_l1, else Vec), the GM
               // source kept → tile.gather_row (TLOAD into a window of the accumulator)
  Gather,      // tensor.gather along the last axis: column indices → flat indices, then tile.gather
  Scatter,     // tensor.scatter along the last axis: flat indices, tile.scatter of the values and of
               // a 1-mask into zeroed tiles, then tile.sel keeps the input where nothing was written
  ScatterMask, // tensor.scatter_mask: the same zeroed scatter of values and 1-mask (tile.scatter_mask),
               // then tile.sel keeps dst where the pattern selects nothing
};

// Reference semantics of an op, defined by the interpreter (the oracle); nullptr until it lands.
struct OpSemantics;

struct CallArgs {
  const std::vector<ExprPtr>& args;
  const std::vector<std::pair<std::string, AttrValue>>& kwargs;  // defaults already filled in
  const Span& span;
  const AttrValue* kwarg(std::string_view name) const;
};
// Computes the result type or throws CompileError (E302) naming the problem.
using DeduceFn = std::function<TypePtr(const CallArgs&)>;

enum class IoTier : uint8_t { Compute, Load, Store, L0Fetch };

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
  // When set, the side is the participant set its `core_type` kwarg names (pl.system.syncall):
  // "aiv_only" → Vector, "aic_only" → Cube, "mix" → Shared (a barrier in both halves).
  bool affinity_by_core_type = false;

  // Memory-space facts.
  std::optional<MemorySpace> output_memory;           // fixed result space (e.g. matmul → Acc)
  std::string output_memory_kwarg;                    // result space from a kwarg ("target_memory")
  int output_memory_inherit_input = -1;               // result space = that input's space
  std::vector<std::pair<int, std::vector<MemorySpace>>> input_memory;  // allowed input spaces
  int output_reuses_input = -1;                       // in-place: result shares that input's buffer
  // Element access a kernel keeps on a GM tensor operand (a scalar load from global memory, the
  // reference's pto.load_scalar) instead of lowering it to its tile form.
  bool kernel_gm_scalar = false;
  int written_tensor = -1;  // the op writes this tensor operand and returns it, updated (tile.store → 2)
  bool not_inplace_safe = false;                      // result may not alias any input
  // Where CanonicalizeIOOrder puts the op in a pipeline body: a memory read lifted to the top
  // (Load), a memory write sunk to the bottom (Store), a fetch that is a Load when it takes a Mat
  // tile to Left / Right (L1 → L0, MTE1) and compute otherwise (L0Fetch), or compute.
  IoTier io_tier = IoTier::Compute;
  // A cross-core FIFO op (push, pop, free): a pipeline body holding one keeps its order, since its
  // peer kernel pairs the transfers in that order.
  bool cross_core = false;
  std::vector<int> forbid_output_alias;               // result may not alias these inputs

  // Execution (tile ops).
  PipeRule pipe_rule = PipeRule::Unset;
  Pipe pipe = Pipe::None;  // for PipeRule::Fixed
  int move_from = 0;       // for PipeRule::Move: the operand whose space is the source

  // Tensor ↔ tile counterpart: a tensor op's tile form (resolved from tile_op_name when the
  // registry is built) and how its operands map; a tile op's tensor form, if any.
  std::string tile_op_name;
  const OpDef* tile_op = nullptr;
  const OpDef* tensor_op = nullptr;
  TileLowering lowering = TileLowering::None;
  // A tensor op that orchestration code executes directly on tensor handles (views, creation,
  // element access); the orchestration emitter's table has its spelling.
  bool orchestration = false;
  // Why a kernel cannot hold this op yet ("" when the kernel emitter's table has its spelling, or
  // for tensor ops, which kernels lower to tile ops). CheckKernelForms rejects a marked op at its
  // line; the registry test checks the marker against the kernel table.
  std::string kernel_deferred;
  // A composite op (tile.sin / tile.cos): no kernel row, no instruction of its own; before
  // kernels are checked, LowerCompositeOps expands every call into primitive tile ops by the
  // recipe its rule table keeps for this op (a test proves marker and table agree).
  bool composite = false;
  // Inserted by a pass, never written by users (tile.tget_scale_addr): the unified `pl.X`
  // spelling does not reach it; the qualified `pl.tile.X` does, so printed IR reads back.
  bool internal = false;

  // Shapes of elementwise binary ops. `same_shapes`: the op's instruction needs its Tile operands
  // in one shape (TADD, TAND, ...; the type rule accepts numpy broadcasting, the instruction does
  // not), so CheckKernelForms rejects unequal ones. `row_broadcast` / `col_broadcast`: the tile
  // ops that apply an [R, 1] / a [1, C] operand to an [R, C] one (tile.row_expand_add /
  // tile.col_expand_add; resolved from the names when the registry is built): the form
  // ConvertTensorToTileOps lowers a broadcasting tensor op to, and the hint of the rejection.
  // `commutative`: lhs and rhs may be swapped (add, mul, maximum, minimum), so a broadcast lhs
  // can be lowered too.
  bool same_shapes = false;
  std::string row_broadcast_name, col_broadcast_name;
  const OpDef* row_broadcast = nullptr;
  const OpDef* col_broadcast = nullptr;
  bool commutative = false;

  // Reference semantics (the interpreter's hook).
  const OpSemantics* semantics = nullptr;

  std::string_view family() const;  // "tile", "tensor", "system", "pld", ...
  std::string_view short_name() const;  // "add" for "tile.add"
  const KwSpec* find_kwarg(std::string_view n) const;
};

class OpRegistry {
 public:
  static OpRegistry& instance();  // populated on first use from the ops_*.cpp tables
  // The registry with every op's reference semantics attached (install_op_semantics, once, on the
  // first call): what the interpreter and `pypto ops` read. Compiling needs none of them, so a
  // build does not pay for the tables.
  static OpRegistry& with_semantics();
  // Adds an op. While the tables are being registered (before instance() returns) ops are
  // appended and sorted once at the end; InternalError on a duplicate name either way.
  void add(OpDef def);
  const OpDef* find(std::string_view name) const;
  std::vector<const OpDef*> all() const;  // sorted by name
  // Attaches an op's reference semantics (install_op_semantics); InternalError for an unknown
  // op or a second definition.
  void set_semantics(std::string_view name, const OpSemantics* s);

 private:
  void seal();               // sorts the registered ops by name; InternalError on a duplicate
  void link_counterparts();  // resolves tile_op_name / scalar_form / broadcast forms; InternalError if unknown
  std::vector<std::unique_ptr<OpDef>> ops_;
  bool sealed_ = false;
};

// Descriptions for messages and `pypto ops`: "pl.tile.add(lhs: Tile, rhs: Tile)" (keywords with
// their defaults after `*`), "Tensor or Tile", "vector", and the pipe rule ("V", "MTE3 or FIX
// (from Acc)", "by spaces", "none" for the no-instruction marker, "" when the op has no pipe fact).
std::string op_signature(const OpDef& op);
// How the DSL spells an op: "pl.tile.add"; distributed ops keep their own module: "pld.tensor.put".
std::string op_spelling(std::string_view name);
std::string_view arg_kind_name(ArgKind k);
std::string_view attr_kind_name(AttrKind k);
std::string_view affinity_name(CoreAffinity a);
std::string pipe_rule_text(const OpDef& op);
std::string_view lowering_name(TileLowering l);

// The pipe of one call (its op's PipeRule applied to the call's operand and result spaces);
// Pipe::None for ops that are no tile instruction.
Pipe call_pipe(const Call& c, const TypePtr& result);

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

// A write's `atomic=` mode (tile.store / tensor.assemble: pl.AtomicType.None_ or .Add).
enum class AtomicMode : uint8_t { None, Add, Other };
AtomicMode atomic_mode(const Call& c);

// Registration hooks implemented by the op tables (ops_tile.cpp, ops_tensor.cpp, ops_system.cpp).
void register_tile_ops(OpRegistry& r);
void register_tile_data_ops(OpRegistry& r);  // called by register_tile_ops (ops_tile_data.cpp)
void register_tensor_ops(OpRegistry& r);
void register_system_ops(OpRegistry& r);
void register_other_ops(OpRegistry& r);  // array.*, prefetch.*, pld.* (ops_other.cpp)
// The interpreter's semantics rows (ir/interp/semantics.cpp), attached after the tables.
void install_op_semantics(OpRegistry& r);

}  // namespace pypto::ir
