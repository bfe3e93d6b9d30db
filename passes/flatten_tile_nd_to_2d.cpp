// FlattenTileNdTo2D — class (b) reshapes rank > 2 tiles to [prod(leading dims), last dim].
// Tile-level kernels (class a) use 2-D tiles, so this version only checks: a tile of rank > 2 in
// a kernel is reported as "not supported yet" at the span of its definition.
#include <fmt/format.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class RankChecker : public IRVisitor {
 public:
  void check(const Var& v, const Span& at) {
    if (const auto* t = as_tile(v.type); t && t->shape.size() > 2)
      throw CompileError("E502", at.valid() ? at : v.span,
                         fmt::format("tile '{}' has rank {}; tiles of rank > 2 are not supported yet", v.name,
                                     t->shape.size()),
                         "load and compute 2-D tiles ([rows, cols])");
  }

 protected:
  void visit_assign(const AssignStmt& s) override {
    check(*s.var, s.span);
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ForStmt& s) override {
    for (const auto& ia : s.iter_args) check(*ia, s.span);
    IRVisitor::visit_for(s);
  }
};

}  // namespace

Pass flatten_tile_nd_to_2d_pass() {
  return Pass{"FlattenTileNdTo2D",
              "Flattens rank > 2 tiles to 2-D (class b, not supported yet); for tile-level kernels it "
              "checks that every tile is at most 2-D.",
              {{Property::TileOpsOnly}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions) {
                  if (!is_incore_like(f->type)) continue;
                  RankChecker v;
                  for (const auto& prm : f->params) v.check(*prm, f->span);
                  v.visit_function(*f);
                }
                return p;
              }};
}

}  // namespace pypto::passes
