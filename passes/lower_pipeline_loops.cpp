// LowerPipelineLoops — `for i in pl.pipeline(start, stop, step, stage=F)` asks for F overlapped
// stages (the reference replicates the body F times per iteration and keeps each stage's load
// buffers apart, so the loads of iteration i+1 run while iteration i computes). This pass does
// the part every later stage relies on and no more yet: each pipeline loop becomes the sequential
// pl.range loop it computes the same values as, and a warning at the loop says the stages are not
// overlapped (correct results, no double buffering). Runs right after UnrollLoops, before SSA
// conversion, in every function. Requires nothing; produces and destroys nothing.
#include <fmt/format.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class Demoter : public IRMutator {
 public:
  explicit Demoter(DiagnosticSink& sink) : sink_(sink) {}

 protected:
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    StmtPtr inner = IRMutator::mutate_for(s);
    const auto* f = as<ForStmt>(inner);
    if (!f || f->kind != ForKind::Pipeline) return inner;
    sink_.warning("W501", s->span,
                  fmt::format("pl.pipeline(stage={}): the stages are not overlapped yet; the loop runs as a pl.range "
                              "loop (the same results, without double buffering)",
                              f->stage),
                  "nothing to change in the program; the buffering comes with the pipelining work");
    return with_comments(std::make_shared<ForStmt>(f->loop_var, f->start, f->stop, f->step, f->iter_args, f->body,
                                                   f->return_vars, ForKind::Sequential, f->span),
                         *s);
  }

 private:
  DiagnosticSink& sink_;
};

}  // namespace

Pass lower_pipeline_loops_pass() {
  return Pass{"LowerPipelineLoops",
              "Turns each pl.pipeline(stage=F) loop into the sequential loop it computes the same values as, with a "
              "warning that the stages are not overlapped yet (no body replication or per-stage buffers).",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!f->body) return f;
                  Demoter d(ctx.diagnostics);
                  return d.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
