// DeriveCallDirections — the direction of every argument of every call to a program function
// (Call::arg_directions), which the runtime uses to order tasks (ir-and-passes.md §6):
//   phase 1: every Var is mapped to its buffer root — a parameter, a tensor created in the
//            function, or (through a kernel's return convention, ReturnParamsExplicit) the
//            argument the callee writes; copies, loop carries and if results follow their source,
//            except a loop result whose yield names another buffer than its carry (ping-pong) and
//            an if result whose arms yield different buffers: its own root, counted as written;
//   phase 2: statements are scanned top-down with the set of roots already written in the current
//            scope (copied into loop / if bodies; a body's writes are added after it);
//   phase 3: scalar arguments → scalar; a pl.no_dep(...) argument → no_dep; callee In → input; callee InOut → inout; callee Out →
//            inout when the call is inside a sequential loop, an earlier call in scope wrote the
//            same root, or the root is an InOut parameter of the caller; otherwise
//            output_existing. Directions already present are kept (idempotent).
// Produces CallDirectionsResolved.
#include <algorithm>
#include <unordered_set>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class Deriver : public IRMutator {
 public:
  Deriver(const Program& p, const Function& f) : prog_(p) {
    for (size_t i = 0; i < f.params.size(); ++i) {
      root_[f.params[i].get()] = f.params[i].get();
      if (f.param_directions[i] == ParamDirection::InOut) inout_params_.insert(f.params[i].get());
    }
  }

 private:
  const Program& prog_;
  std::unordered_map<const Var*, const Var*> root_;
  std::unordered_map<const Var*, std::vector<const Var*>> tuple_roots_;
  std::unordered_set<const Var*> inout_params_;
  std::unordered_set<const Var*> seen_;     // roots written earlier in the current scope
  std::unordered_set<const Var*> written_;  // roots written in the current subtree
  int seq_loop_depth_ = 0;

  const Var* root_of(const ExprPtr& e) {
    if (const auto* v = as<Var>(e)) {
      auto it = root_.find(v);
      return it == root_.end() ? v : it->second;
    }
    if (const auto* g = as<TupleGetItem>(e)) {
      if (const auto* tv = as<Var>(g->tuple)) {
        auto it = tuple_roots_.find(tv);
        if (it != tuple_roots_.end() && g->index >= 0 && g->index < int(it->second.size())) return it->second[g->index];
      }
    }
    return nullptr;
  }

  // Roots of a function call's results: the arguments passed for the params the callee returns.
  std::vector<const Var*> result_roots(const Call& c) {
    std::vector<const Var*> out;
    FunctionPtr callee = prog_.find(c.callee);
    if (!callee) return out;
    std::vector<StmtPtr> body = flatten_body(callee->body);
    const ReturnStmt* ret = body.empty() ? nullptr : as<ReturnStmt>(body.back());
    if (!ret) return out;
    // A returned parameter names its argument; otherwise (before NormalizeReturnOrder) result k is
    // taken to be the k-th Out/InOut parameter, the kernel return convention.
    std::vector<size_t> outs;
    for (size_t i = 0; i < callee->params.size() && i < callee->param_directions.size(); ++i)
      if (callee->param_directions[i] != ParamDirection::In) outs.push_back(i);
    for (size_t k = 0; k < ret->values.size(); ++k) {
      const Var* r = nullptr;
      bool found = false;
      for (size_t i = 0; i < callee->params.size() && i < c.args.size(); ++i)
        if (as<Var>(ret->values[k]) == callee->params[i].get()) r = root_of(c.args[i]), found = true;
      if (!found && k < outs.size() && outs[k] < c.args.size()) r = root_of(c.args[outs[k]]);
      out.push_back(r);
    }
    return out;
  }

  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    if (e->op || e->callee.empty()) return IRMutator::mutate_call(e);
    FunctionPtr callee = prog_.find(e->callee);
    if (!callee) return e;
    std::vector<ArgDirection> dirs = e->arg_directions;
    bool fresh = dirs.size() != e->args.size();
    if (fresh) dirs.clear();
    for (size_t i = 0; i < e->args.size(); ++i) {
      const ExprPtr& a = e->args[i];
      ParamDirection pd = i < callee->param_directions.size() ? callee->param_directions[i] : ParamDirection::In;
      const Var* r = root_of(a);
      if (fresh) {
        ArgDirection d;
        const bool no_dep = e->dispatch && std::find(e->dispatch->no_dep_args.begin(), e->dispatch->no_dep_args.end(),
                                                     static_cast<int>(i)) != e->dispatch->no_dep_args.end();
        if (as_scalar(a->type)) d = ArgDirection::scalar;
        else if (no_dep) d = ArgDirection::no_dep;  // pl.no_dep(x): the runtime derives no edge from it
        else if (pd == ParamDirection::In) d = ArgDirection::input;
        else if (pd == ParamDirection::InOut) d = ArgDirection::inout;
        else if (seq_loop_depth_ > 0 || (r && (seen_.count(r) || inout_params_.count(r)))) d = ArgDirection::inout;
        else d = ArgDirection::output_existing;
        dirs.push_back(d);
      }
      if (pd != ParamDirection::In && r) {
        seen_.insert(r);
        written_.insert(r);
      }
    }
    if (!fresh) return e;
    auto n = std::make_shared<Call>(e->op, e->callee, e->args, e->kwargs, e->type, e->span, std::move(dirs));
    n->dispatch = e->dispatch;
    return n;
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    StmtPtr r = IRMutator::mutate_assign(s);
    const Var* v = s->var.get();
    if (as<Var>(s->value) || as<TupleGetItem>(s->value)) {
      if (const Var* src = root_of(s->value)) root_[v] = src;
    } else if (const auto* c = as<Call>(s->value); c && !c->op) {
      auto roots = result_roots(*c);
      if (as_tuple(s->var->type)) tuple_roots_[v] = roots;
      else if (!roots.empty() && roots[0]) root_[v] = roots[0];
    }
    return r;
  }

  // Runs `fn` on a nested body with a copy of the seen set; afterwards the body's writes count.
  template <class F>
  auto nested(bool sequential_loop, F fn) {
    auto saved = seen_;
    seq_loop_depth_ += sequential_loop;
    auto r = fn();
    seq_loop_depth_ -= sequential_loop;
    seen_ = saved;
    for (const Var* w : written_) seen_.insert(w);
    return r;
  }

  void carry_roots(const std::vector<IterArgPtr>& ias, const std::vector<VarPtr>& rvs) {
    for (size_t i = 0; i < ias.size(); ++i) {
      if (const Var* r = root_of(ias[i]->init)) root_[ias[i].get()] = r;
      if (i < rvs.size()) root_[rvs[i].get()] = root_of(ias[i]) ? root_of(ias[i]) : ias[i].get();
    }
  }

  // A result that may name another buffer than it started with (a loop yielding a buffer other
  // than the one it carries — ping-pong —, an if whose arms yield different buffers) is its own
  // root, and counts as written: a later call writing it may follow the loop's / arm's writer.
  void rebound(const Var* rv) {
    root_[rv] = rv;
    seen_.insert(rv);
    written_.insert(rv);
  }
  template <class Loop>
  void rebound_carries(const Loop& l) {
    const YieldStmt* y = trailing_yield(l.body);
    for (size_t i = 0; y && i < l.iter_args.size() && i < l.return_vars.size() && i < y->values.size(); ++i)
      if (as_tensor(l.return_vars[i]->type) && root_of(y->values[i]) != root_of(l.iter_args[i])) rebound(l.return_vars[i].get());
  }

  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    carry_roots(s->iter_args, s->return_vars);
    StmtPtr r = nested(s->kind != ForKind::Parallel, [&] { return IRMutator::mutate_for(s); });
    rebound_carries(*s);
    return r;
  }
  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    carry_roots(s->iter_args, s->return_vars);
    StmtPtr r = nested(true, [&] { return IRMutator::mutate_while(s); });
    rebound_carries(*s);
    return r;
  }
  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    ExprPtr c = mutate(s->cond);
    StmtPtr t = nested(false, [&] { return mutate(s->then_body); });
    StmtPtr e = nested(false, [&] { return mutate(s->else_body); });
    auto y = split_trailing_yield(s->then_body).second;
    auto ye = s->else_body ? split_trailing_yield(s->else_body).second : nullptr;
    for (size_t i = 0; y && i < s->return_vars.size() && i < y->values.size(); ++i) {
      const Var* r = root_of(y->values[i]);
      if (ye && i < ye->values.size() && as_tensor(s->return_vars[i]->type) && root_of(ye->values[i]) != r)
        rebound(s->return_vars[i].get());
      else if (r)
        root_[s->return_vars[i].get()] = r;
    }
    if (c == s->cond && t == s->then_body && e == s->else_body) return s;
    return with_comments(std::make_shared<IfStmt>(c, t, e, s->return_vars, s->span), *s);
  }
};

}  // namespace

Pass derive_call_directions_pass() {
  return Pass{"DeriveCallDirections",
              "Tags every argument of every call to a program function with its direction (input, "
              "output_existing, inout, scalar) from the callee's parameter directions, enclosing "
              "sequential loops and earlier writers of the same buffer.",
              {{}, {Property::CallDirectionsResolved}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [&](const FunctionPtr& f) {
                  Deriver d(*p, *f);
                  return d.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
