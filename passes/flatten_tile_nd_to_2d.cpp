// FlattenTileNdTo2D — on-chip tiles are 2-D: every rank > 2 tile of a kernel (the tile form of
// tensor-level code on 3-D tensors: windows such as w[i : i + 1, n : n + N, k : k + K]) becomes
// [prod(leading dims), last dim], and every rank-1 tile (a window of a 1-D tensor such as
// norm_w[d : d + D]) becomes the one-row tile [1, N], its valid extent [1, v]. Per op:
//   * tile.load keeps its N-D GM window and gets the window's 2-D flattening as its type (a
//     TLOAD of a 5-D GlobalTensor view folds the leading dims into rows); tile.store of a
//     flattened tile states its N-D window explicitly (`shapes`);
//   * tile.create / tile.full / tile.reshape get flattened shape lists;
//   * elementwise ops and row-wise ops (reductions and broadcasts along the last axis) act on
//     the flattened rows unchanged;
//   * where every flattened tile has unit leading dims ([1, .., R, C] is [R, C]): any op,
//     matmuls and transposes included, the leading entries of its offset / index lists dropped
//     (they must be 0); a rank-1 tile's one-entry index lists get a leading 0 (row 0).
// Left as E502 "not supported yet" at the op: other ops on tiles with leading dims above 1
// (column reductions, transposes, batch matmuls, N-D windows of tiles), valid shapes or dynamic
// extents on a rank > 2 tile. Loop carries and if results follow their values.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tensor_access.h"

namespace pypto::passes {

using namespace ir;

namespace {

// A tile that is not 2-D: rank > 2, or rank 1.
bool high_rank(const TypePtr& t) {
  const auto* tl = as_tile(t);
  return tl && tl->shape.size() != 2 && !tl->shape.empty();
}

bool rank1(const TypePtr& t) {
  const auto* tl = as_tile(t);
  return tl && tl->shape.size() == 1;
}

[[noreturn]] void reject(const Span& sp, const std::string& what) {
  throw CompileError("E502", sp, what + " is not supported yet", "load and compute 2-D tiles ([rows, cols])");
}

// [prod(leading), last] of a static shape (E502 for a dynamic one or a valid shape).
std::vector<int64_t> flat_dims(const TileType& t, const Span& sp, const std::string& what) {
  const auto s = static_shape(t.shape);
  if (!s) reject(sp, fmt::format("{} of rank {} with a dynamic shape", what, t.shape.size()));
  if (s->size() == 1) return {1, s->front()};
  if (t.view && !t.view->valid_shape.empty()) reject(sp, fmt::format("{} of rank {} with a valid shape", what, t.shape.size()));
  int64_t lead = 1;
  for (size_t i = 0; i + 1 < s->size(); ++i) lead *= (*s)[i];
  return {lead, s->back()};
}

TypePtr flat_type(const TileType& t, const Span& sp, const std::string& what) {
  const auto d = flat_dims(t, sp, what);
  std::optional<TileView> v = t.view;
  if (t.shape.size() == 1 && v && v->valid_shape.size() == 1)  // [v] → [1, v]
    v->valid_shape.insert(v->valid_shape.begin(), make_int(1, sp));
  return std::make_shared<TileType>(t.dtype, std::vector<ExprPtr>{make_int(d[0], sp), make_int(d[1], sp)}, t.space, v);
}

bool unit_leading(const TypePtr& t) {
  const auto* tl = as_tile(t);
  if (!tl || tl->shape.size() <= 2) return true;  // rank 1 is [1, N]
  for (size_t i = 0; i + 2 < tl->shape.size(); ++i)
    if (const_int_value(tl->shape[i]) != 1) return false;
  return true;
}

// Ops that act row by row along the last axis, so that stacking the leading dims into rows
// changes nothing: elementwise (same-shape operands) and row-wise reductions / broadcasts.
bool row_wise(const OpDef& op) {
  const std::string_view n = op.short_name();
  if (n.rfind("col_", 0) == 0 || n.find("transpose") != std::string_view::npos || n.find("matmul") != std::string_view::npos ||
      n.find("gemv") != std::string_view::npos || n == "slice" || n == "assemble" || n == "read" || n == "write" ||
      n == "extract" || n == "concat" || n.rfind("gather", 0) == 0 || n.rfind("scatter", 0) == 0 || n.rfind("sort", 0) == 0 ||
      n.rfind("mrgsort", 0) == 0 || n == "ci" || n == "tri" || n.rfind("tpush", 0) == 0 || n.rfind("tpop", 0) == 0)
    return false;
  return true;
}

ExprPtr flat_list(const std::vector<int64_t>& d, const Span& sp) { return index_list({make_int(d[0], sp), make_int(d[1], sp)}, sp); }

class Flattener : public BindingMutator {
 protected:
  VarPtr rebind(const VarPtr& v) override {
    if (!high_rank(v->type)) return v;
    return copy_var_with_type(*v, flat_type(*as_tile(v->type), v->span, fmt::format("tile '{}'", v->name)));
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    const auto* c = as<Call>(s->value);
    bool involved = high_rank(s->var->type);
    if (c)
      for (const auto& a : c->args) involved |= high_rank(a->type);
    if (!c || !c->op || !involved) return BindingMutator::mutate_assign(s);
    ExprPtr v = convert(*c, s->var->type, s->span);
    VarPtr var = bind(s->var);
    return with_comments(std::make_shared<AssignStmt>(var, v, s->span), *s);
  }

  StmtPtr mutate_eval(const std::shared_ptr<const EvalStmt>& s) override {
    const auto* c = as<Call>(s->expr);
    bool involved = false;
    if (c)
      for (const auto& a : c->args) involved |= high_rank(a->type);
    if (!c || !c->op || !involved) return BindingMutator::mutate_eval(s);
    return with_comments(std::make_shared<EvalStmt>(convert(*c, c->type, s->span), s->span), *s);
  }

 private:
  std::vector<ExprPtr> args_of(const Call& c) {
    std::vector<ExprPtr> out;
    for (const auto& a : c.args) out.push_back(mutate(a));
    return out;
  }

  // An index list with its leading `drop` entries removed (each must be the constant 0).
  ExprPtr drop_leading(const ExprPtr& list, size_t keep, const Span& sp, const std::string& what) {
    const auto* t = as<MakeTuple>(list);
    if (!t || t->elems.size() <= keep) return list;
    const size_t drop = t->elems.size() - keep;
    for (size_t i = 0; i < drop; ++i)
      if (const_int_value(t->elems[i]) != 0) reject(sp, fmt::format("{} at a non-zero offset in a unit leading dim", what));
    return index_list(std::vector<ExprPtr>(t->elems.begin() + static_cast<std::ptrdiff_t>(drop), t->elems.end()), sp);
  }

  ExprPtr convert(const Call& c, const TypePtr& result, const Span& sp) {
    const std::string& n = c.op->name;
    const std::string what = fmt::format("pl.{}", n);
    std::vector<ExprPtr> args = args_of(c);
    if (n == "tile.load") {
      // The N-D window stays; the tile is its 2-D flattening.
      const auto* t = as_tile(c.type);
      return std::make_shared<Call>(c.op, c.callee, std::move(args), c.kwargs, flat_type(*t, sp, "a loaded tile"), sp,
                                    c.arg_directions);
    }
    if (n == "tile.store") {
      const auto* t = as_tile(c.args[0]->type);
      if (args.size() < 4 || !args[3]) {  // the N-D window the flattened tile fills
        args.resize(4);
        args[3] = index_list(t->shape, sp);
      }
      return rebuild_checked(c, std::move(args), sp, what);
    }
    if (n == "tile.create" || n == "tile.full") {
      const auto d = flat_dims(*as_tile(c.type), sp, what);
      args[0] = flat_list(d, sp);
      return rebuild_checked(c, std::move(args), sp, what);
    }
    if (n == "tile.reshape") {
      if (const auto* t = as_tile(c.type); t && high_rank(c.type)) args[1] = flat_list(flat_dims(*t, sp, what), sp);
      return rebuild_checked(c, std::move(args), sp, what);
    }
    bool units = unit_leading(result);
    for (const auto& a : c.args) units &= unit_leading(a->type);
    if (units) {
      // [1, .., R, C] is [R, C] and [N] is [1, N]: 2-D offset / index lists.
      bool one_d = rank1(result);
      for (const auto& a : c.args) one_d |= rank1(a->type);
      for (size_t i = 0; i < args.size(); ++i) {
        const auto* t = as<MakeTuple>(args[i]);
        if (!t || i >= c.op->args.size() || c.op->args[i].kind != ArgKind::IndexList) continue;
        if (t->elems.size() > 2) args[i] = drop_leading(args[i], 2, sp, what);
        else if (t->elems.size() == 1 && one_d) args[i] = index_list({make_int(0, sp), t->elems[0]}, sp);
      }
      return rebuild_checked(c, std::move(args), sp, what);
    }
    if (!row_wise(*c.op)) reject(sp, fmt::format("{} on a tile of rank above 2 with leading dims other than 1", what));
    return rebuild_checked(c, std::move(args), sp, what);
  }

  // The call rebuilt over flattened operands; its deduced type must be the result's flattening.
  ExprPtr rebuild_checked(const Call& c, std::vector<ExprPtr> args, const Span& sp, const std::string& what) {
    ExprPtr out;
    try {
      out = make_call(*c.op, args, c.kwargs, sp);
    } catch (const CompileError&) {
      reject(sp, fmt::format("{} on tiles of rank above 2 (its 2-D form does not type)", what));
    }
    if (const auto* t = as_tile(c.type); t && high_rank(c.type)) {
      const auto want = flat_dims(*t, sp, what);
      const auto got = static_shape(as_tile(out->type) ? as_tile(out->type)->shape : std::vector<ExprPtr>{});
      if (!got || *got != want) reject(sp, fmt::format("{} on tiles of rank above 2 (its 2-D form has another shape)", what));
    }
    if (!c.arg_directions.empty()) {
      auto m = std::make_shared<Call>(*as<Call>(out));
      m->arg_directions = c.arg_directions;
      return m;
    }
    return out;
  }
};

FunctionPtr flatten_function(const FunctionPtr& f) {
  if (!is_incore_like(f->type)) return f;
  for (const auto& p : f->params)
    if (high_rank(p->type)) reject(p->span, fmt::format("tile parameter '{}' of rank {}", p->name, as_tile(p->type)->shape.size()));
  Flattener fl;
  return fl.mutate_function(f);
}

}  // namespace

Pass flatten_tile_nd_to_2d_pass() {
  return Pass{"FlattenTileNdTo2D",
              "Flattens rank > 2 kernel tiles to 2-D [prod(leading dims), last dim] and rank-1 tiles to [1, N]: loads keep their N-D window, "
              "stores state theirs, creations and reshapes get 2-D shapes, row-wise ops act on the stacked rows, "
              "tiles with unit leading dims take any op; other forms are not supported yet.",
              {{Property::TileOpsOnly}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, flatten_function); }};
}

}  // namespace pypto::passes
