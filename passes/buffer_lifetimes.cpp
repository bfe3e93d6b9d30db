// Lifetimes of on-chip buffers (see buffer_lifetimes.h).
#include "passes/buffer_lifetimes.h"

#include <algorithm>

#include "ir/ir.h"

namespace pypto::passes {

using namespace ir;

void BufferLifetimes::define(const Var& v) {
  const Var* b = key_(v);
  if (!b) return;
  if (!def.count(b)) def[b] = counter;
  last[b] = std::max(last.count(b) ? last[b] : counter, counter);
}

void BufferLifetimes::use(const Var* b) {
  if (!b) return;
  last[b] = std::max(last.count(b) ? last[b] : counter, counter);
  for (auto& l : loops_)
    if (def.count(b) && def[b] < l.start) l.extend.push_back(b);
}

void BufferLifetimes::visit_assign(const AssignStmt& s) {
  ++counter;
  IRVisitor::visit_assign(s);
  define(*s.var);
  if (on_assign) on_assign(s);
}

void BufferLifetimes::visit_eval(const EvalStmt& s) {
  ++counter;
  IRVisitor::visit_eval(s);
}

void BufferLifetimes::visit_return(const ReturnStmt& s) {
  ++counter;
  IRVisitor::visit_return(s);
}

void BufferLifetimes::visit_yield(const YieldStmt& s) {
  ++counter;
  IRVisitor::visit_yield(s);
}

void BufferLifetimes::loop_body(const std::vector<IterArgPtr>& ias, const ExprPtr& cond, const StmtPtr& body,
                                const std::vector<VarPtr>& rvs) {
  ++counter;
  for (const auto& ia : ias) {
    visit(ia->init);
    define(*ia);
  }
  loops_.push_back({counter, {}});
  visit(cond);
  visit(body);
  ++counter;
  Loop l = loops_.back();
  loops_.pop_back();
  for (const Var* b : l.extend) last[b] = std::max(last[b], counter);
  for (const auto& rv : rvs) define(*rv);
}

void BufferLifetimes::visit_for(const ForStmt& s) {
  visit(s.start);
  visit(s.stop);
  visit(s.step);
  loop_body(s.iter_args, nullptr, s.body, s.return_vars);
}

void BufferLifetimes::visit_while(const WhileStmt& s) { loop_body(s.iter_args, s.cond, s.body, s.return_vars); }

void BufferLifetimes::visit_if(const IfStmt& s) {
  ++counter;
  IRVisitor::visit_if(s);
  ++counter;
  for (const auto& rv : s.return_vars) define(*rv);
}

}  // namespace pypto::passes
