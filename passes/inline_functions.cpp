// InlineFunctions — splices the body of every `Inline` function (`@pl.inline`) into each call
// site and removes the Inline functions from the program. The spliced body is alpha-renamed (its
// locals become fresh Vars, parameters are replaced by the call's arguments); its final
// `return v` becomes `x = v` for the call's target (several values: a tuple). A call to an inline
// function that is not a whole statement or assignment right-hand side, or an inline body whose
// return is not its last statement, is reported as not supported yet.
#include <fmt/format.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// Clone of a body with fresh Vars at every binding site.
class FreshCloner : public BindingMutator {
 protected:
  VarPtr rebind(const VarPtr& v) override { return copy_var_with_type(*v, v->type); }
};

class Inliner : public IRMutator {
 public:
  explicit Inliner(const Program& p) : prog_(p) {}
  bool changed = false;

 private:
  const Program& prog_;

  FunctionPtr inline_target(const ExprPtr& e) {
    const auto* c = as<Call>(e);
    if (!c || c->op) return nullptr;
    FunctionPtr f = prog_.find(c->callee);
    return f && f->type == FunctionType::Inline ? f : nullptr;
  }

  // The spliced statements; `target` receives the return value (may be null).
  std::vector<StmtPtr> splice(const Function& f, const Call& call, const VarPtr& target, const Span& at) {
    FreshCloner cl;
    for (size_t i = 0; i < f.params.size() && i < call.args.size(); ++i) cl.var_map[f.params[i].get()] = call.args[i];
    std::vector<StmtPtr> stmts = flatten_body(f.body);
    std::vector<ExprPtr> ret;
    bool has_ret = !stmts.empty() && as<ReturnStmt>(stmts.back());
    if (has_ret) stmts.pop_back();
    std::vector<StmtPtr> out;
    for (const auto& s : stmts) {
      StmtPtr m = cl.mutate(s);
      struct R : IRVisitor {
        bool found = false;
        void visit_return(const ReturnStmt&) override { found = true; }
      } r;
      r.visit(m);
      if (r.found)
        throw CompileError("E506", at, fmt::format("inline function '{}' returns from inside a loop or if; this is not supported yet", f.name),
                           "return once, at the end of the inline function");
      out.push_back(m);
    }
    if (has_ret) {
      const auto* rs = as<ReturnStmt>(flatten_body(f.body).back());
      for (const auto& v : rs->values) ret.push_back(cl.mutate(v));
    }
    if (target) {
      if (ret.empty())
        throw CompileError("E506", at, fmt::format("inline function '{}' returns no value", f.name));
      ExprPtr value = ret.size() == 1 ? ret[0] : nullptr;
      if (!value) {
        std::vector<TypePtr> ts;
        for (const auto& r : ret) ts.push_back(r->type);
        value = std::make_shared<MakeTuple>(ret, std::make_shared<TupleType>(ts), at);
      }
      out.push_back(std::make_shared<AssignStmt>(target, value, at));
    }
    return out;
  }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    if (FunctionPtr f = inline_target(s->value)) {
      changed = true;
      return make_body(splice(*f, *as<Call>(s->value), s->var, s->span), s->span);
    }
    return IRMutator::mutate_assign(s);
  }
  StmtPtr mutate_eval(const std::shared_ptr<const EvalStmt>& s) override {
    if (FunctionPtr f = inline_target(s->expr)) {
      changed = true;
      return make_body(splice(*f, *as<Call>(s->expr), nullptr, s->span), s->span);
    }
    return IRMutator::mutate_eval(s);
  }
  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    if (FunctionPtr f = inline_target(e))
      throw CompileError("E506", e->span,
                         fmt::format("a call to inline function '{}' inside an expression is not supported yet", f->name),
                         "assign the call's result to a name first");
    return IRMutator::mutate_call(e);
  }
};

ProgramPtr inline_program(const ProgramPtr& p) {
  bool any = false;
  for (const auto& f : p->functions) any |= f->type == FunctionType::Inline;
  if (!any) return p;
  ProgramPtr cur = p;
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    cur = map_functions(cur, [&](const FunctionPtr& f) {
      Inliner in(*cur);
      FunctionPtr g = in.mutate_function(f);
      changed |= in.changed;
      return g;
    });
    if (!changed) break;
    if (round == 15) throw CompileError("E506", p->span, "inline functions call each other recursively");
  }
  std::vector<FunctionPtr> keep;
  for (const auto& f : cur->functions)
    if (f->type != FunctionType::Inline) keep.push_back(f);
  return make_program(cur->name, std::move(keep), cur->dynamic_dims, cur->span);
}

}  // namespace

Pass inline_functions_pass() {
  return Pass{"InlineFunctions",
              "Splices the bodies of Inline functions into their call sites (alpha-renamed, parameters "
              "replaced by arguments, the return value assigned to the call's target) and removes them.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return inline_program(p); }};
}

}  // namespace pypto::passes
