// GM-tensor access analysis, computed loop carries and small index-list builders (see tensor_access.h).
#include "passes/tensor_access.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/op_registry.h"
#include "ir/visitor.h"

namespace pypto::passes {

using namespace ir;

namespace {

class AccessScan : public IRVisitor {
 public:
  explicit AccessScan(const Var& root) { alias_.insert(&root); }
  TensorAccess result;

 protected:
  bool is_alias(const ExprPtr& e) const {
    const auto* v = as<Var>(e);
    return v && alias_.count(v);
  }
  void visit_var(const Var& v) override {
    if (alias_.count(&v)) result.read = true;
  }
  void visit_iter_arg(const IterArg& v) override { visit_var(v); }
  void visit_call(const Call& c) override {
    int w = written_operand(c);
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (int(i) == w && is_alias(c.args[i])) {
        result.written = true;
        continue;
      }
      visit(c.args[i]);
    }
  }
  void visit_assign(const AssignStmt& s) override {
    if (const auto* c = as<Call>(s.value)) {
      int w = written_operand(*c);
      if (w >= 0 && w < int(c->args.size()) && is_alias(c->args[size_t(w)])) alias_.insert(s.var.get());
    } else if (is_alias(s.value)) {
      alias_.insert(s.var.get());  // plain copy
      return;
    }
    IRVisitor::visit_assign(s);
  }
  void visit_return(const ReturnStmt& s) override {
    for (const auto& v : s.values)
      if (!is_alias(v)) visit(v);
  }
  void visit_yield(const YieldStmt& s) override {
    for (const auto& v : s.values)
      if (!is_alias(v)) visit(v);
  }
  void visit_for(const ForStmt& s) override {
    visit(s.start);
    visit(s.stop);
    visit(s.step);
    carry(s.iter_args, s.return_vars);
    visit(s.body);
  }
  void visit_while(const WhileStmt& s) override {
    carry(s.iter_args, s.return_vars);
    visit(s.cond);
    visit(s.body);
  }
  void visit_if(const IfStmt& s) override {
    IRVisitor::visit_if(s);
    // An if-phi is an alias when a branch yields one.
    for (const auto& body : {s.then_body, s.else_body}) {
      if (!body) continue;
      auto stmts = flatten_body(body);
      const auto* y = stmts.empty() ? nullptr : as<YieldStmt>(stmts.back());
      for (size_t i = 0; y && i < y->values.size() && i < s.return_vars.size(); ++i)
        if (is_alias(y->values[i])) alias_.insert(s.return_vars[i].get());
    }
  }

 private:
  void carry(const std::vector<IterArgPtr>& ias, const std::vector<VarPtr>& rvs) {
    for (size_t i = 0; i < ias.size(); ++i) {
      if (is_alias(ias[i]->init)) {
        alias_.insert(ias[i].get());
        if (i < rvs.size()) alias_.insert(rvs[i].get());
      } else {
        visit(ias[i]->init);
      }
    }
  }
  std::unordered_set<const Var*> alias_;
};

}  // namespace

int written_operand(const Call& c) {
  return c.op ? c.op->written_tensor : -1;  // the registry's writes_tensor fact
}

TensorAccess analyze_access(const StmtPtr& body, const Var& root) {
  AccessScan s(root);
  s.visit(body);
  return s.result;
}

ParamDirection upgraded_direction(ParamDirection d, const TensorAccess& a) {
  if (d != ParamDirection::In || !a.written) return d;
  return a.read ? ParamDirection::InOut : ParamDirection::Out;
}

ExprPtr index_list(const std::vector<ExprPtr>& elems, const Span& span) {
  std::vector<TypePtr> ts;
  for (const auto& e : elems) ts.push_back(e->type);
  return std::make_shared<MakeTuple>(elems, std::make_shared<TupleType>(std::move(ts)), span);
}

ExprPtr zero_offsets(size_t rank, const Span& span) {
  std::vector<ExprPtr> z;
  for (size_t i = 0; i < rank; ++i) z.push_back(make_int(0, span));
  return index_list(z, span);
}

std::vector<bool> computed_carries(const StmtPtr& body, size_t n) {
  std::vector<bool> out(n, false);
  const YieldStmt* y = trailing_yield(body);
  if (!y) return out;
  struct Defs : IRVisitor {
    std::unordered_map<const Var*, const Expr*> value;  // an assignment's value
    std::unordered_map<const Var*, std::vector<const YieldStmt*>> from;  // an if / loop result: its yields
    std::unordered_map<const Var*, size_t> index;
    void results(const std::vector<VarPtr>& rvs, std::vector<const YieldStmt*> ys) {
      for (size_t i = 0; i < rvs.size(); ++i) from[rvs[i].get()] = ys, index[rvs[i].get()] = i;
    }
    void visit_assign(const AssignStmt& a) override {
      value[a.var.get()] = a.value.get();
      IRVisitor::visit_assign(a);
    }
    void visit_if(const IfStmt& s) override {
      results(s.return_vars, {trailing_yield(s.then_body), trailing_yield(s.else_body)});
      IRVisitor::visit_if(s);
    }
    void visit_for(const ForStmt& s) override {
      results(s.return_vars, {trailing_yield(s.body)});
      IRVisitor::visit_for(s);
    }
    void visit_while(const WhileStmt& s) override {
      results(s.return_vars, {trailing_yield(s.body)});
      IRVisitor::visit_while(s);
    }
    bool computed(const Expr* e, int depth = 0) const {
      const auto* v = as<Var>(e);
      if (!v || !as_tensor(v->type) || depth > 64) return false;
      if (auto it = value.find(v); it != value.end()) {
        const auto* c = as<Call>(it->second);
        if (c) return c->op && c->op->family() == "tensor" && c->op->written_tensor < 0;
        return computed(it->second, depth + 1);
      }
      auto it = from.find(v);
      if (it == from.end()) return false;
      const size_t k = index.at(v);
      return std::any_of(it->second.begin(), it->second.end(), [&](const YieldStmt* ys) {
        return ys && k < ys->values.size() && computed(ys->values[k].get(), depth + 1);
      });
    }
  } defs;
  defs.visit(body);
  for (size_t i = 0; i < n && i < y->values.size(); ++i) out[i] = defs.computed(y->values[i].get());
  return out;
}

}  // namespace pypto::passes
