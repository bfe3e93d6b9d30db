// UnrollLoops — expands every `pl.unroll` loop (ForKind::Unroll): the body is repeated once per
// iteration with the loop variable replaced by the iteration's constant. Runs before SSA
// conversion, so the copies may rebind the same names (ConvertToSSA renames them). Bounds that are
// not compile-time constants, a zero step or carried values are CompileErrors.
#include <fmt/format.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class Unroller : public IRMutator {
 protected:
  // The copies of an unrolled loop are spliced into the enclosing statement list.
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr& c) { return as<ForStmt>(c) != nullptr; });
  }
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    if (s->kind != ForKind::Unroll) return IRMutator::mutate_for(s);
    auto a = const_int_value(s->start), b = const_int_value(s->stop), c = const_int_value(s->step);
    if (!a || !b || !c || *c == 0)
      throw CompileError("E507", s->span, "pl.unroll needs compile-time constant bounds and a non-zero step",
                         "use pl.range for loops with runtime bounds");
    if (!s->iter_args.empty())
      throw CompileError("E507", s->span, "pl.unroll loops cannot carry values (init_values)",
                         "use pl.range with init_values, or rebind names inside the unrolled body");
    StmtPtr body = mutate(s->body);  // inner unroll loops first
    std::vector<StmtPtr> out;
    const auto* lt = as_scalar(s->loop_var->type);
    DataType dt = lt ? lt->dtype : DataType::INDEX;
    for (int64_t i = *a; *c > 0 ? i < *b : i > *b; i += *c) {
      IRMutator sub;
      sub.var_map[s->loop_var.get()] = make_int(i, s->span, dt);
      for (const auto& st : flatten_body(sub.mutate(body))) out.push_back(st);
    }
    return make_body(std::move(out), s->span);
  }
};

}  // namespace

Pass unroll_loops_pass() {
  return Pass{"UnrollLoops",
              "Expands pl.unroll loops: one copy of the body per iteration with the loop variable "
              "replaced by its constant value.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [](const FunctionPtr& f) {
                  Unroller u;
                  return u.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
