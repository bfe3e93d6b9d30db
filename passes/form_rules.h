// The form rules the two back-end checks share (CheckKernelForms, CheckOrchestrationForms): both
// back ends print their statements with one C++ printer (emit/c_printer.h), so both lack the same
// lowerings. A FormRules visitor rejects, through its checker's reject():
//   * control flow without a lowering: `while` loops, `break`, `continue`, an early `return`;
//   * pl.pipeline loops (pl.unroll loops are expanded by UnrollLoops before);
//   * a tuple value bound to a variable (`t = (a, b)`);
//   * scalar operators the C++ printer has no spelling for: `**`, `//` and `%` on floating-point
//     scalars;
//   * a loop or an if whose carried tensor would change buffers (a yield of another root than
//     the carried one, arms yielding different roots: ir/tensor_roots.h) — both back ends print a
//     carried tensor as the one handle it stands for.
// check_function() adds the parameter rule (tensors and scalars only) and the carry rule, and
// visits the body without its trailing return.
#pragma once

#include <string>
#include <string_view>

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
  void visit_binary(const ir::Binary& e) override;
};

}  // namespace pypto::passes
