// ResolveBackendOpLayouts — the backend computes most vector ops on row-major tiles only, and a
// `[N, 1]` Vec tile (N > 1) is column-major by its implicit layout (ir-and-passes.md §1.3). An
// elementwise vector op on such column tiles is rewritten to run on `[1, N]` row tiles over the
// same bytes (a column vector's N elements are contiguous either way, so `tile.reshape` is a view):
//     y = op(a, b, s)      with a, b, y : [N, 1]
//  →  a_row = tile.reshape(a, [1, N]); b_row = tile.reshape(b, [1, N])
//     y_row = op(a_row, b_row, s);     y = tile.reshape(y_row, [N, 1])
// A column operand that is a window of a wider tile (`p[0:N, c:c + 1]` of an [N, W] tile) is not
// contiguous: it is first gathered into a column tile of its own by a row reduction over its one
// column (`tile.row_max`, exact for every value), which the reshape then views.
// Reductions and broadcasts (row_* / col_* / *_expand*) and data movement take column tiles
// natively and pass. Left as an E503 "not supported yet" at the op's span: a column tile mixed
// with tiles of another shape (a broadcast the row form would change) or one with a valid shape.
#include <fmt/format.h>

#include <unordered_set>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tensor_access.h"

namespace pypto::passes {

using namespace ir;

namespace {

// The N of a [N, 1] Vec tile (N > 1), else nullopt.
std::optional<int64_t> column_rows(const TypePtr& t) {
  const auto* tl = as_tile(t);
  if (!tl || tl->shape.size() != 2) return std::nullopt;
  auto r = const_int_value(tl->shape[0]), c = const_int_value(tl->shape[1]);
  bool vec = !tl->space || *tl->space == MemorySpace::Vec;
  if (!vec || !r || !c || *r <= 1 || *c != 1) return std::nullopt;
  return r;
}

bool layout_agnostic(std::string_view short_name) {
  static const char* prefixes[] = {"row_", "col_", "load", "store", "move", "create", "alloc", "reshape",
                                   "full", "expands", "read", "write", "slice", "assemble", "extract",
                                   "get_", "tpush", "tpop", "tfree", "ci", "set_validshape", "fillpad"};
  for (const char* p : prefixes)
    if (short_name.rfind(p, 0) == 0) return true;
  return short_name.find("expand") != std::string_view::npos;
}

// A row-major-only vector op (the calls this pass looks at).
bool row_major_only(const Call* c) {
  return c && c->op && c->op->family() == "tile" && call_affinity(*c) == CoreAffinity::Vector &&
         !layout_agnostic(c->op->short_name());
}

ExprPtr shape_list(int64_t r, int64_t c, const Span& sp) { return index_list({make_int(r, sp), make_int(c, sp)}, sp); }

class LayoutResolver : public IRMutator {
 public:
  explicit LayoutResolver(const Function& f) {
    if (!f.body) return;
    static const OpDef* const slice = OpRegistry::instance().find("tile.slice");
    for (const AssignStmt* a : collect_assign_stmts(f.body)) {
      const auto* c = as<Call>(a->value);
      if (!c || c->op != slice || c->args.empty()) continue;
      const auto* src = as_tile(c->args[0]->type);
      const auto w = src && src->shape.size() == 2 ? const_int_value(src->shape[1]) : std::nullopt;
      // TROWMAX gathers floating-point columns (FP32, FP16); other windows stay as they are.
      const auto* t = as_tile(a->var->type);
      const bool fp = t && (t->dtype == DataType::FP32 || t->dtype == DataType::FP16);
      if (w && *w > 1 && fp && column_rows(a->var->type)) strided_.insert(a->var.get());
    }
  }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    auto r = IRMutator::mutate_assign(s);
    const auto* a = as<AssignStmt>(r);
    const auto* c = a ? as<Call>(a->value) : nullptr;
    if (!row_major_only(c)) return r;
    const auto n = column_rows(a->var->type);
    bool any = n.has_value();
    for (const auto& x : c->args) any |= column_rows(x->type).has_value();
    if (!any) return r;
    // Every tile operand and the result: the same [N, 1] column tile shape, no valid shape.
    std::optional<int64_t> rows = n;
    auto fits = [&](const TypePtr& t) {
      const auto* tl = as_tile(t);
      if (!tl) return true;  // scalars, shapes
      const auto cr = column_rows(t);
      if (!cr || (rows && *cr != *rows) || (tl->view && !tl->view->valid_shape.empty())) return false;
      rows = cr;
      return true;
    };
    bool ok = fits(a->var->type);
    for (const auto& x : c->args) ok &= fits(x->type);
    if (!ok)
      throw CompileError("E503", s->span,
                         fmt::format("'pl.{}' on a [N, 1] column tile together with tiles of another shape or a valid "
                                     "shape is not supported yet", c->op->name),
                         "keep per-row values in [N, 1] tiles only for row reductions and row_expand_* "
                         "broadcasts, or reshape to [1, N]");
    const Span& sp = s->span;
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> args;
    for (const auto& x : c->args) {
      if (!as_tile(x->type)) {
        args.push_back(x);
        continue;
      }
      const auto* xv = as<Var>(x);
      ExprPtr col = x;
      if (xv && strided_.count(xv)) {  // a column window of a wider tile: gather it first
        const auto* t = as_tile(x->type);
        auto tmp = make_call("tile.create", {shape_list(*rows, 1, sp)},
                             {{"dtype", t->dtype}, {"target_memory", MemorySpace::Vec}}, sp);
        auto tv = make_var(xv->name + "_tmp", tmp->type, sp);
        out.push_back(std::make_shared<AssignStmt>(tv, tmp, sp));
        auto gather = make_call("tile.row_max", {x, tv}, {}, sp);
        auto gv = make_var(xv->name + "_col", gather->type, sp);
        out.push_back(std::make_shared<AssignStmt>(gv, gather, sp));
        col = gv;
      }
      auto v = make_var((xv ? xv->name : a->var->name) + "_row", nullptr, sp);
      auto call = make_call("tile.reshape", {col, shape_list(1, *rows, sp)}, {}, sp);
      v = make_var(v->name, call->type, sp);
      out.push_back(std::make_shared<AssignStmt>(v, call, sp));
      args.push_back(v);
    }
    auto row_call = make_call(*c->op, args, c->kwargs, sp);
    if (!as_tile(a->var->type)) {  // a result that is not a tile (none today): keep the row call
      out.push_back(with_comments(std::make_shared<AssignStmt>(a->var, row_call, sp), *s));
      return std::make_shared<SeqStmts>(std::move(out), sp);
    }
    auto yr = make_var(a->var->name + "_row", row_call->type, sp);
    out.push_back(with_comments(std::make_shared<AssignStmt>(yr, row_call, sp), *s));
    out.push_back(std::make_shared<AssignStmt>(a->var, make_call("tile.reshape", {yr, shape_list(*rows, 1, sp)}, {}, sp), sp));
    return std::make_shared<SeqStmts>(std::move(out), sp);
  }

 private:
  std::unordered_set<const Var*> strided_;  // [N, 1] windows of wider tiles
};

FunctionPtr resolve_function(const FunctionPtr& f) {
  if (!is_incore_like(f->type)) return f;
  LayoutResolver r(*f);
  return r.mutate_function(f);
}

}  // namespace

Pass resolve_backend_op_layouts_pass() {
  return Pass{"ResolveBackendOpLayouts",
              "Rewrites row-major-only vector ops applied to [N, 1] column tiles into the same op on [1, N] "
              "reshapes of them (a view; a column window of a wider tile is gathered by a one-column row_max first), "
              "reshaping the result back; column tiles mixed with other shapes "
              "are reported as not supported yet.",
              {{Property::TileMemoryInferred}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, resolve_function); }};
}

}  // namespace pypto::passes
