// Shared building blocks of the op tables (ops_tile.cpp, ops_tensor.cpp, ops_system.cpp):
//   * OpRow — a compact builder for one OpDef (args, kwargs, facets), so a table row is one line;
//   * Ctx   — what a type-deduction rule sees: the op name, its argument names and the CallArgs,
//             plus accessors that raise CompileError("E302") naming the op and the operand;
//   * the reusable deduction rules (elementwise with broadcasting, reductions, broadcasts,
//     matmul, views, ...). A rule builds a result of the same kind (Tile / Tensor) as its
//     first shaped operand, so one rule serves both the tile and the tensor table.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/op_registry.h"

namespace pypto::ir::deduce {

// Deduction context. `op` is the registry name ("tile.add"); messages print it as `pl.tile.add`.
struct Ctx {
  const std::string& op;
  const std::vector<std::string>& arg_names;
  const CallArgs& ca;

  [[noreturn]] void fail(const std::string& msg, const std::string& hint = {}) const;
  std::string pretty() const { return op_spelling(op); }
  std::string name(size_t i) const;           // argument name ("lhs"), "argument #i" otherwise
  bool has(size_t i) const { return i < ca.args.size() && ca.args[i] != nullptr; }
  const ExprPtr& arg(size_t i) const { return ca.args[i]; }
  const ShapedType& shaped(size_t i) const;   // fails unless arg i is a Tensor or Tile
  std::vector<ExprPtr> list(size_t i) const;  // elements of an IndexList argument
  std::optional<int64_t> const_arg(size_t i) const;  // ConstInt value of a scalar argument

  const AttrValue* kw(std::string_view n) const { return ca.kwarg(n); }
  std::optional<MemorySpace> kw_space(std::string_view n) const;
  std::optional<DataType> kw_dtype(std::string_view n) const;
  bool kw_bool(std::string_view n, bool dflt = false) const;
  std::optional<int64_t> kw_int(std::string_view n) const;
};
using Rule = std::function<TypePtr(const Ctx&)>;

// Builder of one registry row.
class OpRow {
 public:
  OpRow(std::string name, std::vector<ArgSpec> args, Rule rule);
  OpRow& kw(std::string name, AttrKind kind, AttrValue dflt = {}, std::string enum_name = {});
  OpRow& scalar_form(std::string s) { d_.scalar_form = std::move(s); return *this; }
  OpRow& alias(std::string a) { d_.aliases.push_back(std::move(a)); return *this; }
  OpRow& affinity(CoreAffinity a) { d_.affinity = a; return *this; }
  OpRow& affinity_by_space() { d_.affinity_by_space = true; return *this; }
  OpRow& affinity_by_core_type() { d_.affinity_by_core_type = true; return *this; }
  OpRow& out_memory(MemorySpace s) { d_.output_memory = s; return *this; }
  OpRow& out_memory_kwarg(std::string k) { d_.output_memory_kwarg = std::move(k); return *this; }
  OpRow& inherit_memory(int i) { d_.output_memory_inherit_input = i; return *this; }
  OpRow& in_memory(int i, std::vector<MemorySpace> s) { d_.input_memory.emplace_back(i, std::move(s)); return *this; }
  OpRow& reuses_input(int i) { d_.output_reuses_input = i; return *this; }
  OpRow& writes_tensor(int i) { d_.written_tensor = i; return *this; }
  OpRow& kernel_gm_scalar() { d_.kernel_gm_scalar = true; return *this; }
  OpRow& not_inplace_safe() { d_.not_inplace_safe = true; return *this; }
  OpRow& io(IoTier t) { d_.io_tier = t; return *this; }
  OpRow& cross_core() { d_.cross_core = true; return *this; }
  OpRow& forbid_alias(int i) { d_.forbid_output_alias.push_back(i); return *this; }
  // Execution facets: the pipe, the pipe rule, or the explicit marker "no instruction".
  OpRow& pipe(Pipe p) { d_.pipe_rule = PipeRule::Fixed; d_.pipe = p; return *this; }
  OpRow& no_instruction() { d_.pipe_rule = PipeRule::NotInstruction; d_.pipe = Pipe::None; return *this; }
  OpRow& move_pipe(int from) { d_.pipe_rule = PipeRule::Move; d_.move_from = from; return *this; }
  OpRow& store_pipe() { d_.pipe_rule = PipeRule::Store; return *this; }
  // Tensor ops: the tile op a kernel uses instead, and how operands map; or orchestration-only.
  OpRow& tile_form(std::string tile_op, TileLowering l) { d_.tile_op_name = std::move(tile_op); d_.lowering = l; return *this; }
  OpRow& lowering(TileLowering l) { d_.lowering = l; return *this; }
  OpRow& orchestration() { d_.orchestration = true; return *this; }
  // Elementwise binary shapes (OpDef::same_shapes, row_broadcast / col_broadcast, commutative).
  OpRow& same_shapes() { d_.same_shapes = true; return *this; }
  OpRow& broadcast_forms(std::string rows, std::string cols) {
    d_.row_broadcast_name = std::move(rows);
    d_.col_broadcast_name = std::move(cols);
    return *this;
  }
  OpRow& commutative() { d_.commutative = true; return *this; }
  // Registered, but a kernel cannot hold it yet: why (the feature that brings its kernel form).
  OpRow& kernel_deferred(std::string why) { d_.kernel_deferred = std::move(why); return *this; }
  // A composite op: a kernel never holds it, a pass expands it into primitive ops first.
  OpRow& composite() { d_.composite = true; return *this; }
  OpRow& internal() { d_.internal = true; return *this; }
  // Finishes the row: wraps the rule so it sees the op name and argument names.
  OpDef build() &&;

 private:
  OpDef d_;
  Rule rule_;
};

// A vector-core instruction on the V pipe over Vec tiles whose result lives where operand 0 lives
// (the common tile-table row; its Tile operands must be in Vec).
OpRow vec_row(std::string name, std::vector<ArgSpec> args, Rule rule);

// Argument-spec shorthands for the tables.
inline ArgSpec tile(std::string n, bool opt = false) { return {std::move(n), ArgKind::Tile, opt}; }
inline ArgSpec tensor(std::string n, bool opt = false) { return {std::move(n), ArgKind::Tensor, opt}; }
inline ArgSpec scalar(std::string n, bool opt = false) { return {std::move(n), ArgKind::Scalar, opt}; }
inline ArgSpec indices(std::string n, bool opt = false) { return {std::move(n), ArgKind::IndexList, opt}; }
inline ArgSpec tmp_tile(std::string n, bool opt = false) { return {std::move(n), ArgKind::Tile, opt, true}; }
inline ArgSpec any(std::string n, bool opt = false) { return {std::move(n), ArgKind::Any, opt}; }
// An optional index list that, omitted, takes the value of argument `of` (valid_shape = shape).
inline ArgSpec indices_defaulting_to(std::string n, int of) { return {std::move(n), ArgKind::IndexList, true, false, of}; }

// ---- small helpers ----
TypePtr void_type();  // result of ops without a value (barriers, syncs): the empty tuple
enum class DimEq { Equal, Different, Unknown };
DimEq compare_dim(const ExprPtr& a, const ExprPtr& b);  // constants or the same Var
std::string dim_str(const ExprPtr& d);
std::string shape_str(const std::vector<ExprPtr>& s);  // "[64, M]"
std::optional<MemorySpace> space_of(const ShapedType& t);  // a tile's space, nullopt for tensors
// A result of the same kind as `like`: a Tile (with `space`, valid_shape view if non-empty) or a
// Tensor (no view). Never carries a MemRef.
TypePtr make_like(const ShapedType& like, DataType dt, std::vector<ExprPtr> shape,
                  std::optional<MemorySpace> space, std::vector<ExprPtr> valid_shape = {});
// A tile's valid shape when it differs from its shape (empty otherwise and for tensors).
std::vector<ExprPtr> valid_shape_of(const ShapedType& t);
void require_same_dtype(const Ctx& c, size_t i, size_t j);     // fails naming both operands
void require_rank_at_least(const Ctx& c, size_t i, size_t r);
// The accumulator dtype of a cube matmul over `in` (FP32 for float inputs, INT32 for INT8/UINT8).
std::optional<DataType> acc_dtype(DataType in);

// ---- reusable rules ----
// Same type as argument i without MemRef (unary math, expands, fills, ...).
Rule same_as(size_t i);
// Binary elementwise with numpy broadcasting; both operands must have one dtype.
TypePtr binary(const Ctx& c);
// Shaped op scalar → type of operand 0.
TypePtr binary_scalar(const Ctx& c);
// [.., R, C] → [.., R, 1] / [.., 1, C].
TypePtr row_reduce(const Ctx& c);
TypePtr col_reduce(const Ctx& c);
// (t, vec) broadcast: vec must be [R,1] (rows) / [1,C] (cols) against t's [R,C]; result = t.
TypePtr row_expand(const Ctx& c);
TypePtr col_expand(const Ctx& c);
TypePtr cast(const Ctx& c);
TypePtr reshape(const Ctx& c);
TypePtr slice(const Ctx& c);       // (x, shape, offset, valid_shape?)
TypePtr assemble(const Ctx& c);    // (target, source, offset) → target
TypePtr read(const Ctx& c);        // (x, idx) → scalar
TypePtr write(const Ctx& c);       // (x, idx, value) → x
TypePtr transpose(const Ctx& c);   // (x, axis1, axis2[, tmp])
// Creation: shape = IndexList arg 0, dtype = kwarg "dtype"; tiles take "target_memory".
TypePtr create_tile(const Ctx& c);
TypePtr create_tensor(const Ctx& c);
// Rules of the data-movement, compare, gather / sort, index and cross-core ops (op_deduce_data.cpp).
TypePtr int_binary(const Ctx& c);        // binary on integer operands (bitwise, shifts)
TypePtr int_binary_scalar(const Ctx& c);
TypePtr int_unary(const Ctx& c);
TypePtr float_binary_scalar(const Ctx& c);
TypePtr float_unary(const Ctx& c);  // lrelu: (x, slope scalar), float x
TypePtr fp32_unary(const Ctx& c);   // sin / cos: FP32 elements only (their expansion is FP32 arithmetic)
TypePtr cmp_mask(const Ctx& c);          // tile.cmp / cmps: UINT8 packed bit mask [R, roundup(ceil(C/8), 32)]
TypePtr cmp_values(const Ctx& c);        // tensor.cmp: 0/1 of the operands' dtype, operand 0's shape
TypePtr select(const Ctx& c);            // tile.sel(mask, lhs, rhs, tmp) → lhs's type
TypePtr select_scalar(const Ctx& c);     // tile.sels(mask, src, tmp, scalar) → src's type
TypePtr row_arg_reduce(const Ctx& c);    // [.., R, C] → [.., R, 1] INT32 (column index)
TypePtr col_arg_reduce(const Ctx& c);    // [.., R, C] → [.., 1, C] INT32 (row index)
TypePtr gather(const Ctx& c);            // (src, indices[, tmp]) → indices' shape, src's dtype
TypePtr scatter(const Ctx& c);           // tile (dst, src, indexes) / tensor (input, index, src) → operand 0
TypePtr sort32(const Ctx& c);            // (src, idx) → [R, 2C] (value, index) pairs of src's dtype
TypePtr concat(const Ctx& c);            // (src0, src1) → [R, C0 + C1]
TypePtr mrgsort1(const Ctx& c);          // (src, block_len) → src's shape
TypePtr mrgsort2(const Ctx& c);          // tensors (src0..src3) → last axes joined; tiles (src0, src1, .., tmp) → tmp's shape
TypePtr transpose_view(const Ctx& c);    // trailing two dims swapped
TypePtr set_validshape(const Ctx& c);    // (x, valid_rows, valid_cols) → x with that valid shape
TypePtr fillpad(const Ctx& c);           // x with its whole shape valid
TypePtr fillpad_expand(const Ctx& c);    // (x, shape) → a larger x
TypePtr block_index(const Ctx& c);       // () → INDEX scalar
TypePtr shard(const Ctx& c);             // aiv_shard / aic_gather: split axis halved / doubled
TypePtr gather_row(const Ctx& c);        // (dst, src tensor, dst_offset, src_offset, shapes[, valid]) → dst
TypePtr ci(const Ctx& c);                // (start, shape; dtype) → an index sequence
TypePtr tri(const Ctx& c);               // (diagonal, shape; dtype) → a triangular 0/1 mask
TypePtr prelu(const Ctx& c);             // (x, slope tile, tmp) → x
TypePtr create_l1(const Ctx& c);          // tensor.create_l1(shape; dtype) → an L1-backed tensor
TypePtr carry3(const Ctx& c);            // addc / subc (tile, tile, tile), addsc / subsc (tile, scalar, tile)
TypePtr gatherb(const Ctx& c);           // (src, offset UINT32 [R, C']) → [R, C' * 32 / elem bytes]
TypePtr gather_mask(const Ctx& c);       // (src; mask_pattern 1..7) → the pattern's columns, compacted
TypePtr scatter_mask(const Ctx& c);      // (dst, src; mask_pattern) → dst
TypePtr random(const Ctx& c);            // (key0, key1, counter0..3, shape[, valid]; dtype) → a tile
// Matmul family.
TypePtr tile_matmul(const Ctx& c);      // Left [M,K] × Right [K,N] → Acc [M,N]
TypePtr tile_matmul_acc(const Ctx& c);  // (acc, lhs, rhs) → acc
TypePtr tensor_matmul(const Ctx& c);    // with a_trans / b_trans
TypePtr tensor_matmul_acc(const Ctx& c);
TypePtr tile_matmul_bias(const Ctx& c);  // (lhs, rhs, bias [1, N]) → Acc [M, N]
TypePtr tile_gemv(const Ctx& c);         // Left [1, K] × Right [K, N] → Acc [1, N]
TypePtr tile_batch_matmul(const Ctx& c); // [B.., M, K] × [B.., K, N] → Acc [B.., M, N]
// MX matmuls (op_deduce_mx.cpp): FP8E4M3FN data with FP8E8M0 scales per 32 elements of K.
TypePtr tile_matmul_mx(const Ctx& c);       // (lhs, lhs_scale, rhs, rhs_scale) → FP32 Acc [M, N]
TypePtr tile_matmul_mx_acc(const Ctx& c);   // (acc, lhs, lhs_scale, rhs, rhs_scale) → acc
TypePtr tile_matmul_mx_bias(const Ctx& c);  // (lhs, lhs_scale, rhs, rhs_scale, bias [1, N]) → FP32 Acc [M, N]
TypePtr tile_tget_scale_addr(const Ctx& c); // (dst_scale, src data) → dst_scale: LeftScale↔Left, RightScale↔Right
// tile.load of an MX scale tensor (layout MX_A_ZZ / MX_B_NN): checks the load (FP8E8M0 / UINT8,
// 2-D, into Mat, windows on the packing's boxes) and returns the Mat tile's box layout; nullopt
// for other tensors.
std::optional<TileView> mx_load_view(const Ctx& c, const TensorType& t, const std::vector<ExprPtr>& offsets,
                                     const std::vector<ExprPtr>& shapes, std::optional<MemorySpace> space);
// tile.move into LeftScale / RightScale: a 2-D FP8E8M0 (or UINT8) Mat tile in the matching box
// layout, no layout overrides. Other targets pass.
void check_scale_move(const Ctx& c, MemorySpace target);

}  // namespace pypto::ir::deduce
