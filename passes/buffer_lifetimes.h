// Lifetimes of on-chip buffers in one kernel, shared by MemoryReuse (which packs buffers whose
// lifetimes do not overlap) and the memory plan (memory_plan.h, which draws them): statements are
// numbered in a linear walk of the body (nested bodies included; a loop or if counts a statement
// on entry and one on exit); a buffer lives from the first binding of any Var it is keyed by to the
// last use of any of them, and a buffer defined outside a loop and used inside stays live until the
// loop's end. What a Var's buffer is comes from the caller's key (MemoryReuse: the MemRef's base
// allocation; the plan: the Var itself).
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "ir/visitor.h"

namespace pypto::passes {

class BufferLifetimes : public ir::IRVisitor {
 public:
  // The buffer `v` lives in, or nullptr when it has none here.
  using Key = std::function<const ir::Var*(const ir::Var& v)>;
  explicit BufferLifetimes(Key key) : key_(std::move(key)) {}
  // Called for every assignment after its value was visited and its Var defined.
  std::function<void(const ir::AssignStmt&)> on_assign;

  std::unordered_map<const ir::Var*, int> def, last;  // per buffer
  int counter = 0;

 protected:
  void visit_var(const ir::Var& v) override { use(key_(v)); }
  void visit_iter_arg(const ir::IterArg& v) override { use(key_(v)); }
  void visit_assign(const ir::AssignStmt& s) override;
  void visit_eval(const ir::EvalStmt& s) override;
  void visit_return(const ir::ReturnStmt& s) override;
  void visit_yield(const ir::YieldStmt& s) override;
  void visit_for(const ir::ForStmt& s) override;
  void visit_while(const ir::WhileStmt& s) override;
  void visit_if(const ir::IfStmt& s) override;

 private:
  struct Loop {
    int start;
    std::vector<const ir::Var*> extend;  // buffers used inside that were defined before
  };
  Key key_;
  std::vector<Loop> loops_;
  void define(const ir::Var& v);
  void use(const ir::Var* b);
  void loop_body(const std::vector<ir::IterArgPtr>& ias, const ir::ExprPtr& cond, const ir::StmtPtr& body,
                 const std::vector<ir::VarPtr>& rvs);
};

}  // namespace pypto::passes
