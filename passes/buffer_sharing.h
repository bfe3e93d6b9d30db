// Which Vars of a kernel denote one buffer (the sharing rules InitMemRef gives one MemRef, and
// PreserveOverwrittenValues checks reads against): a tile.store result ↔ the tensor it writes; an
// in-place op's or a view's result (registry `output_reuses_input`, e.g. tile.assemble,
// tile.reshape) ↔ that input; `a = b`; a loop's init, iter_arg, yielded value and return_var; an
// if's return_var and both yielded values.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/function.h"
#include "ir/visitor.h"

namespace pypto::passes {

class UnionFind {
 public:
  const ir::Var* find(const ir::Var* v);
  void unite(const ir::Var* a, const ir::Var* b);

 private:
  std::unordered_map<const ir::Var*, const ir::Var*> parent_;
};

// The buffer classes of one function's tile / tensor Vars (parameters included). `without` names
// an in-place op's statement whose result-input link is left out (what the classes would be if
// that op wrote another buffer).
class BufferSharing : public ir::IRVisitor {
 public:
  explicit BufferSharing(const ir::Function& f, const ir::Stmt* without = nullptr);
  UnionFind uf;
  std::vector<ir::VarPtr> order;  // tile/tensor Vars in order of first binding
  std::unordered_map<const ir::Var*, ir::Span> def_span;

 protected:
  void visit_assign(const ir::AssignStmt& s) override;
  void visit_for(const ir::ForStmt& s) override;
  void visit_while(const ir::WhileStmt& s) override;
  void visit_if(const ir::IfStmt& s) override;

 private:
  void bind(const ir::VarPtr& v, const ir::Span& at);
  void share(const ir::VarPtr& a, const ir::ExprPtr& b);
  void carry(const std::vector<ir::IterArgPtr>& ias, const ir::StmtPtr& body, const std::vector<ir::VarPtr>& rvs,
             const ir::Span& at);
  const ir::Stmt* without_ = nullptr;
};

}  // namespace pypto::passes
