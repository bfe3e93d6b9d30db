// NormalizeStmtStructure — canonical statement structure: nested SeqStmts are flattened into their
// parent, a single-statement SeqStmts is replaced by the statement, in every body (function, loop,
// if arm, scope). Produces NoRedundantBlocks.
#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class Normalizer : public IRMutator {
 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    std::vector<StmtPtr> out;
    bool changed = false;
    for (const auto& c : s->stmts) {
      StmtPtr m = mutate(c);
      changed |= m != c;
      if (!m) continue;
      if (const auto* inner = as<SeqStmts>(m)) {
        changed = true;
        for (const auto& x : inner->stmts) out.push_back(x);
      } else {
        out.push_back(m);
      }
    }
    if (out.size() == 1) return out[0];
    if (!changed) return s;
    return with_comments(std::make_shared<SeqStmts>(std::move(out), s->span), *s);
  }
};

FunctionPtr normalize_function(const FunctionPtr& f) {
  Normalizer n;
  return n.mutate_function(f);
}

}  // namespace

Pass normalize_stmt_structure_pass() {
  return Pass{"NormalizeStmtStructure",
              "Flattens nested SeqStmts and replaces single-statement SeqStmts by the statement, in "
              "every body.",
              {{}, {Property::NoRedundantBlocks}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, normalize_function); }};
}

}  // namespace pypto::passes
