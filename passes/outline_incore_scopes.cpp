// OutlineIncoreScopes — class (b) outlines each `with pl.at(level=pl.Level.CORE_GROUP)` body into
// an InCore function called from its (now Orchestration) parent. Feature class (a) writes kernels
// as InCore functions directly, so this version only establishes SplitIncoreOrch: an InCore scope
// that is still present is reported as "not supported yet" at its span.
#include <fmt/format.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class ScopeFinder : public IRVisitor {
 protected:
  void visit_scope(const ScopeStmt& s) override {
    if (s.scope == ScopeKind::InCore)
      throw CompileError("E500", s.span,
                         "outlining 'with pl.at(level=pl.Level.CORE_GROUP)' scopes is not supported yet",
                         "write the kernel as a @pl.function(type=pl.FunctionType.InCore) method and call it "
                         "from the orchestration function");
    IRVisitor::visit_scope(s);
  }
};

}  // namespace

Pass outline_incore_scopes_pass() {
  return Pass{"OutlineIncoreScopes",
              "Outlines InCore scopes into kernels (class b, not supported yet); for programs whose kernels "
              "are InCore functions it checks that no InCore scope remains.",
              {{Property::SSAForm}, {Property::SplitIncoreOrch}, {}},
              [](const ProgramPtr& p, PassContext&) {
                ScopeFinder f;
                f.visit_program(*p);
                return p;
              }};
}

}  // namespace pypto::passes
