// ResolveBackendOpLayouts — the backend computes most vector ops on row-major tiles only; a
// `[N, 1]` tile (N > 1) is column-major by its implicit view. The reference rewrites such uses
// into `[1, N]` reshapes or layout moves. This version only checks: an elementwise vector op whose
// operand or result is such a column tile is reported as "not supported yet" at the op's span.
// Reductions and broadcasts (row_* / col_* / *_expand*) and data movement take column tiles
// natively and pass.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool is_column_tile(const TypePtr& t) {
  const auto* tl = as_tile(t);
  if (!tl || tl->shape.size() != 2) return false;
  auto r = const_int_value(tl->shape[0]), c = const_int_value(tl->shape[1]);
  bool vec = !tl->space || *tl->space == MemorySpace::Vec;
  return vec && r && c && *r > 1 && *c == 1;
}

bool layout_agnostic(std::string_view short_name) {
  static const char* prefixes[] = {"row_", "col_", "load", "store", "move", "create", "alloc", "reshape",
                                   "full", "expands", "read", "write", "slice", "assemble", "extract",
                                   "get_", "tpush", "tpop", "tfree", "ci", "set_validshape", "fillpad"};
  for (const char* p : prefixes)
    if (short_name.rfind(p, 0) == 0) return true;
  return short_name.find("expand") != std::string_view::npos;
}

class LayoutChecker : public IRVisitor {
 protected:
  void visit_assign(const AssignStmt& s) override {
    if (const auto* c = as<Call>(s.value); c && c->op && c->op->family() == "tile" &&
                                           call_affinity(*c) == CoreAffinity::Vector &&
                                           !layout_agnostic(c->op->short_name())) {
      bool col = is_column_tile(s.var->type);
      for (const auto& a : c->args) col |= is_column_tile(a->type);
      if (col)
        throw CompileError("E503", s.span,
                           fmt::format("'pl.{}' on a [N, 1] column tile is not supported yet", c->op->name),
                           "keep per-row values in [N, 1] tiles only for row reductions and row_expand_* "
                           "broadcasts, or reshape to [1, N]");
    }
    IRVisitor::visit_assign(s);
  }
};

}  // namespace

Pass resolve_backend_op_layouts_pass() {
  return Pass{"ResolveBackendOpLayouts",
              "Repairs row-major-only vector ops applied to [N, 1] column tiles (not supported yet: "
              "reported as an error); everything else passes unchanged.",
              {{Property::TileMemoryInferred}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions) {
                  if (!is_incore_like(f->type)) continue;
                  LayoutChecker v;
                  v.visit_function(*f);
                }
                return p;
              }};
}

}  // namespace pypto::passes
