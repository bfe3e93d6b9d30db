// The form rules the two back-end checks share (CheckKernelForms, CheckOrchestrationForms): both
// back ends print their statements with one C++ printer (emit/c_printer.h), so both lack the same
// lowerings. A FormRules visitor rejects, through its checker's reject():
//   * control flow without a lowering: `break` and `continue` (left in orchestration code: in
//     kernels CtrlFlowTransform rewrites them), an early `return`;
//   * a tuple value bound to a variable (`t = (a, b)`);
//   * scalar operators the C++ printer has no spelling for: `**`, `//` and `%` on floating-point
//     scalars;
//   * a loop or an if whose carried tensor would change buffers (a yield of another root than
//     the carried one, arms yielding different roots: ir/tensor_roots.h) — both back ends print a
//     carried tensor as the one handle it stands for;
//   * values the printer cannot name or spell: a loop-carried value or if result of a type the
//     back end does not carry (carries()), an element type with no C++ spelling (HF4, HF8), a
//     float literal of another type than FP32 / FP16 / BF16, a program-level dynamic dimension
//     the function uses but no parameter's shape carries (nothing gives it a value).
// check_function() adds the parameter rules (tensors and scalars only, tensor dimensions that
// are constants or plain symbols) and the carry rule, checks every binding's type
// (check_binding()) and visits the body without its trailing return.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

#include "ir/visitor.h"

namespace pypto::passes {

class FormRules : public ir::IRVisitor {
 public:
  // Throws the checker's "not supported yet" CompileError for `what` at `sp`.
  [[noreturn]] virtual void reject(const ir::Span& sp, const std::string& what, const std::string& hint = {}) = 0;
  // Checks `f` of `p`; `param_noun` names its parameters in messages ("kernel parameter").
  void check_function(const ir::Program& p, const ir::Function& f, std::string_view param_noun);

 protected:
  void visit_while(const ir::WhileStmt& s) override;
  void visit_break(const ir::BreakStmt& s) override;
  void visit_continue(const ir::ContinueStmt& s) override;
  void visit_return(const ir::ReturnStmt& s) override;
  void visit_for(const ir::ForStmt& s) override;
  void visit_assign(const ir::AssignStmt& s) override;
  void visit_eval(const ir::EvalStmt& s) override;
  void visit_yield(const ir::YieldStmt& s) override;
  void visit_binary(const ir::Binary& e) override;
  void visit_unary(const ir::Unary& e) override;
  void visit_if(const ir::IfStmt& s) override;
  void visit_var(const ir::Var& v) override;
  void visit_const(const ir::Expr& e) override;

  // Whether the back end carries a value of type `t` through a loop / if (default: tensors and
  // scalars).
  virtual bool carries(const ir::TypePtr& t) const;
  // Checks the type of a variable bound at `sp` (a parameter, an assignment target, a loop
  // variable, a carry, a result); the default rejects element types without a C++ spelling.
  virtual void check_binding(const ir::Var& v, const ir::Span& sp);
  // Rejects `dt` at `sp` when it has no C++ spelling.
  void check_c_type(ir::DataType dt, const ir::Span& sp);

 private:
  void check_carry(const ir::Var& v, const ir::Span& sp, const char* what);

  std::unordered_set<const ir::Var*> bound_;  // variables with a value in the function being checked

 protected:
  ir::Span stmt_span_;  // the statement being visited: where a variable use is reported
};

}  // namespace pypto::passes
