// GM-tensor access analysis and small index-list builders (see tensor_access.h).
#include "passes/tensor_access.h"

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

}  // namespace pypto::passes
