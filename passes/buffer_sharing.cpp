// Buffer classes of a kernel's Vars (see buffer_sharing.h).
#include "passes/buffer_sharing.h"

#include "ir/op_registry.h"
#include "passes/pass_util.h"

namespace pypto::passes {

using namespace ir;

const Var* UnionFind::find(const Var* v) {
  auto it = parent_.find(v);
  if (it == parent_.end()) {
    parent_[v] = v;
    return v;
  }
  if (it->second == v) return v;
  const Var* r = find(it->second);
  parent_[v] = r;
  return r;
}

void UnionFind::unite(const Var* a, const Var* b) {
  const Var* ra = find(a);
  const Var* rb = find(b);
  if (ra != rb) parent_[rb] = ra;
}

namespace {
bool shaped_var(const ExprPtr& e) { return as<Var>(e) && as_shaped(e->type); }
}  // namespace

BufferSharing::BufferSharing(const Function& f, const Stmt* without) : without_(without) {
  for (const auto& p : f.params) bind(p, f.span);
  visit_function(f);
}

void BufferSharing::bind(const VarPtr& v, const Span& at) {
  if (!v || !as_shaped(v->type)) return;
  if (def_span.emplace(v.get(), at).second) order.push_back(v);
  uf.find(v.get());
}

void BufferSharing::share(const VarPtr& a, const ExprPtr& b) {
  if (a && as_shaped(a->type) && shaped_var(b)) uf.unite(a.get(), as<Var>(b));
}

void BufferSharing::visit_assign(const AssignStmt& s) {
  bind(s.var, s.span);
  if (as<Var>(s.value)) {
    share(s.var, s.value);
  } else if (const auto* c = as<Call>(s.value); c && c->op) {
    if (as_tensor(c->type) && c->op->family() == "tile") {  // tile.store-like: writes its tensor operand
      ExprPtr out;
      for (const auto& a : c->args)
        if (as_tensor(a->type)) out = a;
      share(s.var, out);
    } else if (c->op->output_reuses_input >= 0 && c->op->output_reuses_input < int(c->args.size())) {
      if (&s != without_) share(s.var, c->args[c->op->output_reuses_input]);
    }
  }
  IRVisitor::visit_assign(s);
}

void BufferSharing::visit_for(const ForStmt& s) {
  for (const auto& ia : s.iter_args) {
    bind(ia, s.span);
    share(ia, ia->init);
  }
  IRVisitor::visit_for(s);
  carry(s.iter_args, s.body, s.return_vars, s.span);
}

void BufferSharing::visit_while(const WhileStmt& s) {
  for (const auto& ia : s.iter_args) {
    bind(ia, s.span);
    share(ia, ia->init);
  }
  IRVisitor::visit_while(s);
  carry(s.iter_args, s.body, s.return_vars, s.span);
}

void BufferSharing::carry(const std::vector<IterArgPtr>& ias, const StmtPtr& body, const std::vector<VarPtr>& rvs,
                          const Span& at) {
  auto y = split_trailing_yield(body).second;
  for (size_t i = 0; i < rvs.size(); ++i) {
    bind(rvs[i], at);
    if (i < ias.size()) share(rvs[i], ias[i]);
    if (y && i < y->values.size()) share(rvs[i], y->values[i]);
  }
}

void BufferSharing::visit_if(const IfStmt& s) {
  IRVisitor::visit_if(s);
  auto ty = split_trailing_yield(s.then_body).second, ey = split_trailing_yield(s.else_body).second;
  for (size_t i = 0; i < s.return_vars.size(); ++i) {
    bind(s.return_vars[i], s.span);
    if (ty && i < ty->values.size()) share(s.return_vars[i], ty->values[i]);
    if (ey && i < ey->values.size()) share(s.return_vars[i], ey->values[i]);
  }
}

}  // namespace pypto::passes
