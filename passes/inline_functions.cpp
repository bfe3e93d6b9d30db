// InlineFunctions — splices the body of every `Inline` function (`@pl.inline`) into each call
// site and removes the Inline functions from the program; likewise an Orchestration function
// called from another Orchestration function (the task graph it submits becomes part of its
// caller's, in call order: one orchestration entry submits every task), which is removed once
// no call to it is left. The spliced body is alpha-renamed (its locals become fresh Vars,
// parameters are replaced by the call's arguments: a parameter the body rebinds by a local copy
// of its argument, or, for an Out / InOut parameter or a pl.Array (passed by reference) handed a
// variable, by that variable); its
// final `return v` becomes `x = v` for the call's target (several values: a tuple; none when v is
// the target itself). A call to an inline function that is not a whole
// statement or assignment right-hand side, or an inline body whose return is not its last
// statement, is reported as not supported yet.
#include <fmt/format.h>

#include <set>
#include <unordered_set>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// Clone of a body with fresh Vars at every binding site.
// The Vars a statement binds (assignments, loop and if results).
std::unordered_set<const Var*> bound_in(const StmtPtr& s) {
  struct B : IRVisitor {
    std::unordered_set<const Var*> out;
    void visit_assign(const AssignStmt& a) override {
      out.insert(a.var.get());
      IRVisitor::visit_assign(a);
    }
  } b;
  if (s) b.visit(s);
  return b.out;
}

class Inliner : public IRMutator {
 public:
  explicit Inliner(const Program& p) : prog_(p) {}
  bool changed = false;

 private:
  const Program& prog_;

  bool in_orchestration_ = false;

  FunctionPtr inline_target(const ExprPtr& e) {
    const auto* c = as<Call>(e);
    if (!c || c->op) return nullptr;
    FunctionPtr f = prog_.find(c->callee);
    if (!f) return nullptr;
    if (f->type == FunctionType::Inline) return f;
    return f->type == FunctionType::Orchestration && in_orchestration_ ? f : nullptr;
  }

 public:
  FunctionPtr mutate_function(const FunctionPtr& f) override {
    in_orchestration_ = f->type == FunctionType::Orchestration;
    return IRMutator::mutate_function(f);
  }

 private:

  // The spliced statements; `target` receives the return value (may be null).
  std::vector<StmtPtr> splice(const Function& f, const Call& call, const VarPtr& target, const Span& at) {
    FreshCloner cl;
    std::vector<StmtPtr> out;
    const auto rebound = bound_in(f.body);
    // A dynamic extent of a tensor parameter (a pl.dynamic symbol of the callee's module, not a
    // parameter itself) is, in this copy, the extent of the tensor the call hands over: an inline
    // helper declared over its own module's B_DYN reads the caller's tensor's rows.
    std::unordered_set<const Var*> params;
    for (const auto& p : f.params) params.insert(p.get());
    for (size_t i = 0; i < f.params.size() && i < call.args.size(); ++i) {
      const auto* pt = as_tensor(f.params[i]->type);
      const auto* at = call.args[i] ? as_tensor(call.args[i]->type) : nullptr;
      if (!pt || !at || pt->shape.size() != at->shape.size()) continue;
      for (size_t k = 0; k < pt->shape.size(); ++k)
        if (const auto* d = as<Var>(pt->shape[k]); d && !params.count(d) && !cl.var_map.count(d) && pt->shape[k] != at->shape[k])
          cl.var_map[d] = at->shape[k];
    }
    for (size_t i = 0; i < f.params.size() && i < call.args.size(); ++i) {
      const Var& p = *f.params[i];
      if (!rebound.count(&p)) {
        cl.var_map[&p] = call.args[i];
        continue;
      }
      // An Out / InOut parameter the body rebinds (out = pl.assemble(out, ...)) rebinds the
      // caller's variable it was handed: the write is the caller's, as the parameter says. A
      // pl.Array is passed by reference, whatever its direction: an element the callee sets
      // (`done[0] = tid`) is set in the caller's array.
      const bool written = (i < f.param_directions.size() && f.param_directions[i] != ParamDirection::In) ||
                           as_array(p.type);
      if (const auto arg = std::dynamic_pointer_cast<const Var>(call.args[i]); written && arg && !as<IterArg>(call.args[i])) {
        cl.bind_param_to(p, arg);
        continue;
      }
      VarPtr local = copy_var_with_type(p, cl.mutate_type(p.type));
      out.push_back(std::make_shared<AssignStmt>(local, call.args[i], at));
      cl.bind_param_to(p, local);
    }
    std::vector<StmtPtr> stmts = flatten_body(f.body);
    std::vector<ExprPtr> ret;
    bool has_ret = !stmts.empty() && as<ReturnStmt>(stmts.back());
    if (has_ret) stmts.pop_back();
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
      if (value != target) out.push_back(std::make_shared<AssignStmt>(target, value, at));  // no `a = a`
    }
    return out;
  }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    if (auto pre = hoisted(s, s->value); !pre.empty()) return pre_then(std::move(pre), s);
    if (FunctionPtr f = inline_target(s->value)) {
      changed = true;
      return make_body(splice(*f, *as<Call>(s->value), s->var, s->span), s->span);
    }
    return IRMutator::mutate_assign(s);
  }
  StmtPtr mutate_eval(const std::shared_ptr<const EvalStmt>& s) override {
    if (auto pre = hoisted(s, s->expr); !pre.empty()) return pre_then(std::move(pre), s);
    if (FunctionPtr f = inline_target(s->expr)) {
      changed = true;
      return make_body(splice(*f, *as<Call>(s->expr), nullptr, s->span), s->span);
    }
    return IRMutator::mutate_eval(s);
  }
  // Inline calls nested in a return / yield, an if's condition or a loop's bounds and inits:
  // each is bound to a fresh variable right before the statement, which reads that instead.
  StmtPtr mutate_return(const std::shared_ptr<const ReturnStmt>& s) override {
    std::vector<StmtPtr> pre;
    std::vector<ExprPtr> vals;
    for (const auto& v : s->values) vals.push_back(hoist(v, pre, true));
    if (pre.empty()) return IRMutator::mutate_return(s);
    return pre_then(std::move(pre), with_comments(std::make_shared<ReturnStmt>(std::move(vals), s->span), *s));
  }
  StmtPtr mutate_yield(const std::shared_ptr<const YieldStmt>& s) override {
    std::vector<StmtPtr> pre;
    std::vector<ExprPtr> vals;
    for (const auto& v : s->values) vals.push_back(hoist(v, pre, true));
    if (pre.empty()) return IRMutator::mutate_yield(s);
    return pre_then(std::move(pre), with_comments(std::make_shared<YieldStmt>(std::move(vals), s->span), *s));
  }
  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    std::vector<StmtPtr> pre;
    ExprPtr c = hoist(s->cond, pre, true);
    if (pre.empty()) return IRMutator::mutate_if(s);
    return pre_then(std::move(pre), with_comments(std::make_shared<IfStmt>(c, s->then_body, s->else_body, s->return_vars, s->span), *s));
  }
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    std::vector<StmtPtr> pre;
    ExprPtr a = hoist(s->start, pre, true), b = hoist(s->stop, pre, true), c = hoist(s->step, pre, true);
    std::vector<IterArgPtr> ias;
    for (const auto& ia : s->iter_args) {
      ExprPtr init = hoist(ia->init, pre, true);
      ias.push_back(init == ia->init ? ia : std::make_shared<IterArg>(ia->name, ia->type, init, ia->span));
    }
    if (pre.empty()) return IRMutator::mutate_for(s);
    for (size_t i = 0; i < ias.size(); ++i)
      if (ias[i] != s->iter_args[i]) var_map[s->iter_args[i].get()] = ias[i];
    return pre_then(std::move(pre), with_comments(std::make_shared<ForStmt>(s->loop_var, a, b, c, std::move(ias), s->body,
                                                                            s->return_vars, s->kind, s->span, s->stage), *s));
  }

 private:
  // `e` with its inline calls (`e` itself too when `top`) replaced by fresh variables, each call
  // assigned to its variable in `pre` (inner calls first: their order of evaluation).
  ExprPtr hoist(const ExprPtr& e, std::vector<StmtPtr>& pre, bool top) {
    if (!e) return e;
    struct H : IRMutator {
      Inliner& in;
      std::vector<StmtPtr>& pre;
      const Expr* keep;
      H(Inliner& i, std::vector<StmtPtr>& p, const Expr* k) : in(i), pre(p), keep(k) {}
      ExprPtr mutate_call(const std::shared_ptr<const Call>& c) override {
        ExprPtr m = IRMutator::mutate_call(c);
        FunctionPtr f = in.inline_target(m);
        if (!f || c.get() == keep) return m;
        const int n = in.hoisted_count_++;
        auto v = make_var(f->name + "_result" + (n ? "_" + std::to_string(n) : std::string()), m->type, c->span);
        pre.push_back(std::make_shared<AssignStmt>(v, m, c->span));
        return v;
      }
    } h(*this, pre, top ? nullptr : e.get());
    return h.mutate(e);
  }
  // The inline calls nested in a statement's value (not the value itself).
  std::vector<StmtPtr> hoisted(const std::shared_ptr<const Stmt>&, const ExprPtr& value) {
    std::vector<StmtPtr> pre;
    ExprPtr v = hoist(value, pre, false);
    if (!pre.empty()) hoisted_value_ = v;
    return pre;
  }
  // The hoisted assignments (each spliced), then `s` (its value replaced by the hoisted form).
  StmtPtr pre_then(std::vector<StmtPtr> pre, const StmtPtr& s) {
    StmtPtr last = s;
    if (hoisted_value_) {
      if (const auto* a = as<AssignStmt>(s)) last = with_comments(std::make_shared<AssignStmt>(a->var, hoisted_value_, a->span), *s);
      else if (const auto* e = as<EvalStmt>(s)) last = with_comments(std::make_shared<EvalStmt>(hoisted_value_, e->span), *s);
      hoisted_value_ = nullptr;
    }
    std::vector<StmtPtr> out;
    for (const auto& p : pre) out.push_back(mutate(p));
    out.push_back(mutate(last));
    return make_body(std::move(out), s->span);
  }
  ExprPtr hoisted_value_;
  int hoisted_count_ = 0;

 protected:
  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    if (FunctionPtr f = inline_target(e))
      throw CompileError("E506", e->span,
                         fmt::format("a call to inline function '{}' inside a while condition is not supported yet", f->name),
                         "assign the call's result to a name before the loop and at the end of its body");
    return IRMutator::mutate_call(e);
  }
};

// Orchestration functions some Orchestration function calls.
std::set<std::string> called_orchestrations(const Program& p) {
  std::set<std::string> out;
  for (const auto& f : p.functions) {
    if (f->type != FunctionType::Orchestration) continue;
    struct V : IRVisitor {
      const Program& p;
      std::set<std::string>& out;
      V(const Program& p, std::set<std::string>& o) : p(p), out(o) {}
      void visit_call(const Call& c) override {
        if (!c.op)
          if (FunctionPtr g = p.find(c.callee); g && g->type == FunctionType::Orchestration) out.insert(g->name);
        IRVisitor::visit_call(c);
      }
    } v(p, out);
    if (f->body) v.visit(f->body);
  }
  return out;
}

ProgramPtr inline_program(const ProgramPtr& p) {
  bool any = false;
  for (const auto& f : p->functions) any |= f->type == FunctionType::Inline;
  const std::set<std::string> nested = called_orchestrations(*p);
  if (!any && nested.empty()) return p;
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
    if (round == 15)
      throw CompileError("E506", p->span, "inline (or orchestration) functions call each other recursively");
  }
  std::vector<FunctionPtr> keep;
  for (const auto& f : cur->functions)
    if (f->type != FunctionType::Inline && !nested.count(f->name)) keep.push_back(f);
  return make_program(cur->name, std::move(keep), cur->dynamic_dims, cur->span);
}

}  // namespace

Pass inline_functions_pass() {
  return Pass{"InlineFunctions",
              "Splices the bodies of Inline functions, and of Orchestration functions called from "
              "orchestration, into their call sites (alpha-renamed, parameters replaced by arguments, the "
              "return value assigned to the call's target) and removes them.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return inline_program(p); }};
}

}  // namespace pypto::passes
