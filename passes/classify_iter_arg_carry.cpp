// ClassifyIterArgCarry — how each orchestration loop carry is emitted. A tensor carry whose yield
// is the buffer it carries in (the usual in-place carry: a kernel writes the tensor and the loop
// yields the call's result) is an alias: the carried name is that buffer's handle. A carry whose
// yield holds another buffer (ping-pong buffers, `src, dst = dst, src`) is a rebind
// (IterArg::rebind): the emitter keeps a mutable ChipTensor for it and assigns it at each yield,
// so the runtime sees each iteration's tasks on the buffers they really touch. Every buffer a
// rebinding carry takes must exist before the loop (a parameter or a tensor made outside it): one
// the loop body makes belongs to that iteration's runtime scope, which ends while the carry still
// names it — that is a located error, as is a carry taking the result of an inner loop whose
// carry changes buffer (a nest of rebinding loops). Kernel loops are untouched (their carries never change
// buffer; CheckKernelForms rejects one that would). Requires RuntimeScopesMaterialized (it runs
// right after MaterializeRuntimeScopes, as the reference's does); produces IterArgCarryClassified.
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "ir/tensor_roots.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class Classify : public IRMutator {
 public:
  explicit Classify(const TensorRoots& roots) {
    for (const auto& c : roots.conflicts())
      if (c.loop) changes_[c.target] = &c;
  }

 protected:
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    ExprPtr a = mutate(s->start), b = mutate(s->stop), c = mutate(s->step);
    std::vector<IterArgPtr> ias;
    bool changed = classify(s->iter_args, s->body, ias) || a != s->start || b != s->stop || c != s->step;
    StmtPtr body = mutate(s->body);
    if (!changed && body == s->body) return s;
    return with_comments(std::make_shared<ForStmt>(s->loop_var, a, b, c, std::move(ias), body, s->return_vars, s->kind,
                                                   s->span, s->stage), *s);
  }
  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    std::vector<IterArgPtr> ias;
    bool changed = classify(s->iter_args, s->body, ias);
    ExprPtr c = mutate(s->cond);
    StmtPtr body = mutate(s->body);
    if (!changed && c == s->cond && body == s->body) return s;
    return with_comments(std::make_shared<WhileStmt>(c, std::move(ias), body, s->return_vars, s->span), *s);
  }

 private:
  // The loop's carries with their classification; true when one changed.
  bool classify(const std::vector<IterArgPtr>& in, const StmtPtr& body, std::vector<IterArgPtr>& out) {
    require_no_nested_rebind(in, body);
    bool changed = false;
    for (const auto& ia : in) {
      ExprPtr init = mutate(ia->init);
      auto it = changes_.find(ia.get());
      const bool rebind = it != changes_.end();
      if (rebind) require_outside(*it->second, body);
      if (init == ia->init && rebind == ia->rebind) {
        out.push_back(ia);
        continue;
      }
      auto fresh = std::make_shared<IterArg>(ia->name, ia->type, init, ia->span);
      fresh->rebind = rebind;
      var_map[ia.get()] = fresh;
      out.push_back(fresh);
      changed = true;
    }
    return changed;
  }

  // The buffer a rebinding carry takes must not be made in the loop body.
  static void require_outside(const TensorRoots::Conflict& c, const StmtPtr& body) {
    for (const AssignStmt* a : collect_assign_stmts(body))
      if (a->var.get() == c.other)
        throw CompileError("E501", c.span,
                           fmt::format("the loop carrying '{}' yields '{}', a tensor made in the loop body; a "
                                       "carried tensor that changes buffer must take buffers that exist before "
                                       "the loop", c.target->name, c.other->name),
                           "create the buffers before the loop and alternate between them (src, dst = dst, src)");
  }

  // A carry whose yield is the result of an inner loop whose own carry changes buffer: that
  // carry's handle lives in this loop's body (its runtime scope), so the nest is rejected.
  void require_no_nested_rebind(const std::vector<IterArgPtr>& carries, const StmtPtr& body) const {
    const std::vector<StmtPtr> stmts = body ? flatten_body(body) : std::vector<StmtPtr>{};
    const auto* y = stmts.empty() ? nullptr : as<YieldStmt>(stmts.back());
    if (!y) return;
    // Each inner loop's results, with the carries they leave the loop through.
    struct Inner : IRVisitor {
      std::unordered_map<const Var*, const IterArg*> carry_of;
      void loop(const std::vector<VarPtr>& rvs, const std::vector<IterArgPtr>& ias) {
        for (size_t i = 0; i < rvs.size() && i < ias.size(); ++i) carry_of[rvs[i].get()] = ias[i].get();
      }
      void visit_for(const ForStmt& f) override {
        loop(f.return_vars, f.iter_args);
        IRVisitor::visit_for(f);
      }
      void visit_while(const WhileStmt& w) override {
        loop(w.return_vars, w.iter_args);
        IRVisitor::visit_while(w);
      }
    } inner;
    inner.visit(body);
    for (size_t k = 0; k < carries.size() && k < y->values.size(); ++k) {
      const auto* v = as<Var>(y->values[k]);
      auto it = v ? inner.carry_of.find(v) : inner.carry_of.end();
      if (it != inner.carry_of.end() && changes_.count(it->second))
        throw CompileError("E501", y->span,
                           fmt::format("the loop carrying '{}' yields '{}', the result of an inner loop whose carried "
                                       "tensor changes buffer; such a nest is not supported yet", carries[k]->name, v->name),
                           "alternate the buffers in one loop, or keep each carried tensor in its own buffer");
    }
  }

  std::unordered_map<const Var*, const TensorRoots::Conflict*> changes_;
};

ProgramPtr classify_program(const ProgramPtr& p) {
  return map_functions(p, [&](const FunctionPtr& f) {
    if (f->type != FunctionType::Orchestration) return f;
    const TensorRoots roots(*p, *f);
    Classify c(roots);
    return c.mutate_function(f);
  });
}

}  // namespace

Pass classify_iter_arg_carry_pass() {
  return Pass{"ClassifyIterArgCarry",
              "Marks each orchestration loop carry an alias (its yield is the buffer it carries in) or a rebind "
              "(the yield holds another buffer, such as ping-pong buffers), which the emitter keeps in a mutable "
              "ChipTensor; a rebinding carry may only take buffers made before the loop.",
              {{Property::RuntimeScopesMaterialized}, {Property::IterArgCarryClassified}, {}},
              [](const ProgramPtr& p, PassContext&) { return classify_program(p); }};
}

}  // namespace pypto::passes
