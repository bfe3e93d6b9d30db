// The broadcast lowering of ConvertTensorToTileOps (broadcast_lowering.h): a 2-D tensor binary op
// with a [1, C] or an [R, 1] operand becomes the registry's col_broadcast / row_broadcast form
// (tile.col_expand_add(full, vec), tile.row_expand_mul(full, vec), ...), which compute
// full op vec broadcast exactly as the interpreter's numpy broadcasting does. A broadcast lhs is
// swapped only for a commutative op; the forms the expand ops cannot express (a broadcast lhs of
// sub / div, both operands broadcast, a [1, 1] operand against [R, C], ranks other than 2, ops
// without broadcast forms) are rejected at the call rather than lowered to wrong code.
#include "passes/broadcast_lowering.h"

#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "ir/type.h"

namespace pypto::passes {

using namespace ir;

namespace {

std::string dims(const std::vector<int64_t>& s) {
  std::string out;
  for (auto d : s) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return "[" + out + "]";
}

enum class Vec { None, Rows, Cols };

// How `vec` broadcasts against `full` (both 2-D): [R, 1] → Rows, [1, C] → Cols.
Vec vector_kind(const std::vector<int64_t>& full, const std::vector<int64_t>& vec) {
  if (vec[0] == full[0] && vec[1] == 1 && full[1] != 1) return Vec::Rows;
  if (vec[0] == 1 && vec[1] == full[1] && full[0] != 1) return Vec::Cols;
  return Vec::None;
}

// How the hint names an operand: its variable, else `fallback`.
std::string operand_name(const Call& c, size_t i, const char* fallback) {
  const auto* v = as<Var>(c.args[i]);
  return v ? v->name : fallback;
}

[[noreturn]] void fail(const Call& c, const std::string& what, const std::string& why, const std::string& hint) {
  throw CompileError("E501", c.span, fmt::format("{}{}{} is not supported yet inside a kernel", what, why.empty() ? "" : " ", why),
                     hint);
}

}  // namespace

BroadcastLowering broadcast_lowering(const Call& c) {
  const OpDef* tile = c.op->tile_op;
  if (!tile || !tile->same_shapes || c.args.size() < 2) return {tile, false};
  const auto* a = as_shaped(c.args[0]->type);
  const auto* b = as_shaped(c.args[1]->type);
  if (!a || !b) return {tile, false};
  const auto sa = static_shape(a->shape), sb = static_shape(b->shape);
  if (!sa || !sb || *sa == *sb) return {tile, false};
  const std::string op = op_spelling(c.op->name);
  const std::string what = fmt::format("'{}' of shapes {} and {} (broadcasting)", op, dims(*sa), dims(*sb));
  if (!c.op->row_broadcast || !c.op->col_broadcast)
    fail(c, what, "", fmt::format("'{}' has no broadcast form: give both operands one shape (pl.tensor.row_expand / "
                                  "pl.tensor.col_expand broadcast a vector to a full shape)", op));
  if (sa->size() != 2 || sb->size() != 2)
    fail(c, what, "between operands that are not both 2-D",
         "broadcast between 2-D operands, [R, C] with [1, C] or [R, 1] (pl.reshape a vector to [1, C])");
  const std::string row = op_spelling(c.op->row_broadcast->name), col = op_spelling(c.op->col_broadcast->name);
  if (auto k = vector_kind(*sa, *sb); k != Vec::None) return {k == Vec::Rows ? c.op->row_broadcast : c.op->col_broadcast, false};
  if (auto k = vector_kind(*sb, *sa); k != Vec::None) {
    if (c.op->commutative) return {k == Vec::Rows ? c.op->row_broadcast : c.op->col_broadcast, true};
    const std::string form = k == Vec::Rows ? "pl.tensor.row_expand" : "pl.tensor.col_expand";
    const std::string lhs = operand_name(c, 0, "lhs"), rhs = operand_name(c, 1, "rhs");
    fail(c, what, "with the broadcast operand first",
         fmt::format("'{}' is not commutative and {}(full, vec) applies vec second: broadcast {} to the full shape "
                     "first, {}({}({}, {}), {})",
                     op, k == Vec::Rows ? row : col, lhs, op, form, rhs, lhs, rhs));
  }
  const bool unit = (*sa == std::vector<int64_t>{1, 1}) || (*sb == std::vector<int64_t>{1, 1});
  if (unit)
    fail(c, what, "with a [1, 1] operand", fmt::format("pass the element as a scalar: {}(x, pl.tensor.read(v, [0, 0]))", op));
  fail(c, what, "other than [R, C] with [1, C] or [R, 1]",
       fmt::format("broadcast one operand to the result shape first (pl.tensor.row_expand / pl.tensor.col_expand), "
                   "or use {}(t, [R, 1] vector) / {}(t, [1, C] vector)", row, col));
}

}  // namespace pypto::passes
