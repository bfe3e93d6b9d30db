// Traversal over the IR.
//   IRVisitor  — read-only walk; override visit_* and call the base to keep descending.
//   IRMutator  — copy-on-write rewrite; each mutate_* returns the same pointer when nothing
//                below changed, so untouched subtrees stay shared. Vars are identities and are
//                returned as-is unless `var_map` substitutes them (substitution also reaches
//                types: shapes, views, MemRefs).
#pragma once

#include <unordered_map>

#include "ir/function.h"

namespace pypto::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  void visit(const ExprPtr& e);
  void visit(const StmtPtr& s);
  virtual void visit_function(const Function& f);
  void visit_program(const Program& p);

 protected:
  virtual void visit_var(const Var& v) {}
  virtual void visit_iter_arg(const IterArg& v);
  virtual void visit_const(const Expr& e) {}
  virtual void visit_binary(const Binary& e);
  virtual void visit_unary(const Unary& e);
  virtual void visit_call(const Call& e);
  virtual void visit_make_tuple(const MakeTuple& e);
  virtual void visit_tuple_get_item(const TupleGetItem& e);

  virtual void visit_assign(const AssignStmt& s);
  virtual void visit_eval(const EvalStmt& s);
  virtual void visit_return(const ReturnStmt& s);
  virtual void visit_yield(const YieldStmt& s);
  virtual void visit_seq(const SeqStmts& s);
  virtual void visit_if(const IfStmt& s);
  virtual void visit_for(const ForStmt& s);
  virtual void visit_while(const WhileStmt& s);
  virtual void visit_break(const BreakStmt& s) {}
  virtual void visit_continue(const ContinueStmt& s) {}
  virtual void visit_scope(const ScopeStmt& s);
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  ExprPtr mutate(const ExprPtr& e);
  StmtPtr mutate(const StmtPtr& s);
  TypePtr mutate_type(const TypePtr& t);
  virtual FunctionPtr mutate_function(const FunctionPtr& f);
  ProgramPtr mutate_program(const ProgramPtr& p);

  // Substitution applied to every Var occurrence (uses, not binding sites).
  std::unordered_map<const Var*, ExprPtr> var_map;

 protected:
  // Whether mutate_type has anything to do: types hold expressions only in shapes / views /
  // MemRefs, which by default change only through var_map. A mutator that rewrites other
  // expressions (a symbol for a computed extent) says so here.
  virtual bool rewrites_types() const { return !var_map.empty(); }
  virtual ExprPtr mutate_var(const std::shared_ptr<const Var>& v);
  virtual ExprPtr mutate_const(const ExprPtr& e) { return e; }
  virtual ExprPtr mutate_binary(const std::shared_ptr<const Binary>& e);
  virtual ExprPtr mutate_unary(const std::shared_ptr<const Unary>& e);
  virtual ExprPtr mutate_call(const std::shared_ptr<const Call>& e);
  // A call's dispatch options with their expressions mutated (the same pointer when unchanged).
  DispatchPtr mutate_dispatch(const DispatchPtr& d);
  virtual ExprPtr mutate_make_tuple(const std::shared_ptr<const MakeTuple>& e);
  virtual ExprPtr mutate_tuple_get_item(const std::shared_ptr<const TupleGetItem>& e);

  virtual StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s);
  virtual StmtPtr mutate_eval(const std::shared_ptr<const EvalStmt>& s);
  virtual StmtPtr mutate_return(const std::shared_ptr<const ReturnStmt>& s);
  virtual StmtPtr mutate_yield(const std::shared_ptr<const YieldStmt>& s);
  virtual StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s);
  virtual StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s);
  virtual StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s);
  virtual StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s);
  virtual StmtPtr mutate_break(const std::shared_ptr<const BreakStmt>& s) { return s; }
  virtual StmtPtr mutate_continue(const std::shared_ptr<const ContinueStmt>& s) { return s; }
  virtual StmtPtr mutate_scope(const std::shared_ptr<const ScopeStmt>& s);

  // Mutates a list; returns true if any element changed.
  bool mutate_list(const std::vector<ExprPtr>& in, std::vector<ExprPtr>& out);
  // Mutates the init values of loop iter_args; a changed init makes a fresh IterArg that
  // replaces the old one in the body (through var_map). Returns true if any changed.
  bool mutate_iter_args(const std::vector<IterArgPtr>& in, std::vector<IterArgPtr>& out);
};

// Copies `src`'s comments onto a freshly built statement.
template <class T>
std::shared_ptr<T> with_comments(std::shared_ptr<T> fresh, const Stmt& src) {
  fresh->leading_comments = src.leading_comments;
  return fresh;
}

}  // namespace pypto::ir
