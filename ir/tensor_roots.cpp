// Tensor buffer roots of a function (tensor_roots.h).
#include "ir/tensor_roots.h"

#include "ir/op_registry.h"

namespace pypto::ir {

TensorRoots::TensorRoots(const Program& p, const Function& f) : program_(p) {
  for (const auto& prm : f.params) roots_[prm.get()] = prm.get();
  stmt(f.body);
}

const Var* TensorRoots::root(const ExprPtr& e) const {
  const auto* v = as<Var>(e);
  if (!v) return nullptr;
  auto it = roots_.find(v);
  return it == roots_.end() ? nullptr : it->second;
}

const Var* TensorRoots::of_value(const Var& dst, const ExprPtr& e) {
  if (const auto* g = as<TupleGetItem>(e)) {
    const auto* t = as<Var>(g->tuple);
    auto it = t ? tuples_.find(t) : tuples_.end();
    if (it == tuples_.end() || g->index < 0 || size_t(g->index) >= it->second.size()) return nullptr;
    return it->second[g->index];
  }
  const auto* c = as<Call>(e);
  if (!c) return root(e);
  if (!c->op) {  // a kernel call: its Out / InOut tensor arguments
    const auto callee = program_.find(c->callee);
    std::vector<const Var*> outs;
    for (size_t i = 0; callee && i < c->args.size() && i < callee->param_directions.size(); ++i)
      if (as_tensor(c->args[i]->type) && callee->param_directions[i] != ParamDirection::In)
        outs.push_back(root(c->args[i]));
    if (as_tuple(dst.type)) tuples_[&dst] = outs;
    return outs.empty() ? nullptr : outs[0];
  }
  if (c->op->written_tensor >= 0 && size_t(c->op->written_tensor) < c->args.size())
    return root(c->args[size_t(c->op->written_tensor)]);
  if (c->op->output_reuses_input >= 0 && size_t(c->op->output_reuses_input) < c->args.size())
    return root(c->args[c->op->output_reuses_input]);
  if (c->op->orchestration && as_tensor(dst.type)) return &dst;  // a creation or a view
  return nullptr;
}

template <class Loop>
void TensorRoots::loop(const Loop& l) {
  for (const auto& ia : l.iter_args)
    if (ia) roots_[ia.get()] = root(ia->init);
  stmt(l.body);
  if (const YieldStmt* y = trailing_yield(l.body))
    for (size_t i = 0; i < l.iter_args.size() && i < y->values.size(); ++i) {
      const Var* carried = roots_[l.iter_args[i].get()];
      const Var* other = root(y->values[i]);
      if (as_tensor(l.iter_args[i]->type) && carried && other && carried != other)
        conflicts_.push_back({l.iter_args[i].get(), carried, other, y->span, true});
    }
  for (size_t i = 0; i < l.return_vars.size() && i < l.iter_args.size(); ++i)
    roots_[l.return_vars[i].get()] = roots_[l.iter_args[i].get()];
}

void TensorRoots::stmt(const StmtPtr& s) {
  if (!s) return;
  if (const auto* a = as<AssignStmt>(s)) {
    roots_[a->var.get()] = of_value(*a->var, a->value);
  } else if (const auto* q = as<SeqStmts>(s)) {
    for (const auto& c : q->stmts) stmt(c);
  } else if (const auto* sc = as<ScopeStmt>(s)) {
    stmt(sc->body);
  } else if (const auto* l = as<ForStmt>(s)) {
    loop(*l);
  } else if (const auto* w = as<WhileStmt>(s)) {
    loop(*w);
  } else if (const auto* i = as<IfStmt>(s)) {
    stmt(i->then_body);
    stmt(i->else_body);
    const auto* yt = trailing_yield(i->then_body);
    const auto* ye = trailing_yield(i->else_body);
    for (size_t k = 0; k < i->return_vars.size(); ++k) {
      const Var* rt = yt && k < yt->values.size() ? root(yt->values[k]) : nullptr;
      const Var* re = ye && k < ye->values.size() ? root(ye->values[k]) : nullptr;
      if (as_tensor(i->return_vars[k]->type) && rt && re && rt != re)
        conflicts_.push_back({i->return_vars[k].get(), rt, re, ye->span, false});
      roots_[i->return_vars[k].get()] = rt == re ? rt : nullptr;
    }
  }
}

}  // namespace pypto::ir
