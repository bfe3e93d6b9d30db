// The structured-statement C++ printer both emitters derive from (model: Halide's
// CodeGen_C : IRPrinter). It owns what kernel and orchestration code print alike — indented
// lines, names, scalar expressions, sequences, `for` and `if` with their loop-carried values and
// yields, scalar assignments — and the one fact both kinds of code keep about tensors: which C++
// handle (a GM pointer in a kernel, a ChipTensor in orchestration) each tensor-valued SSA name
// stands for, through loop carries, if results and plain copies. A subclass prints the
// statements that are its own (op calls, task submissions, scopes) and the carried values of
// other types (tiles) through the hooks below.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "emit/c_expr.h"
#include "emit/c_names.h"
#include "ir/function.h"

namespace pypto::emit {

class CStmtPrinter {
 public:
  virtual ~CStmtPrinter() = default;

 protected:
  explicit CStmtPrinter(std::string where) : where_(std::move(where)) {}
  // The function's closing return (ir::trailing_return), which prints nothing.
  const ir::Stmt* closing_return_ = nullptr;

  // ---- output ----
  void line(const std::string& s) { body_ += std::string(4 * indent_, ' ') + s + "\n"; }
  std::string expr(const ir::ExprPtr& e);  // a scalar expression; a Var must be named already

  // ---- tensor handles ----
  // The C++ handle `e` (a tensor Var) stands for; an InternalError when it has none.
  const std::string& handle(const ir::ExprPtr& e);
  void bind_handle(const ir::Var& v, std::string h) { handles_[&v] = std::move(h); }
  bool has_handle(const ir::Var& v) const { return handles_.count(&v) != 0; }

  // ---- statements ----
  void stmt(const ir::StmtPtr& s);
  void body(const ir::StmtPtr& s);  // the statements of a body, each through stmt()
  // A scalar assignment (declares the variable on its first assignment).
  void assign_scalar(const ir::Var& v, const ir::ExprPtr& value);

  // Hooks. Assignments and expression statements are the subclass's; so are scopes and carried
  // values of types other than scalars and tensors.
  virtual void assign(const ir::AssignStmt& s) = 0;
  virtual void eval(const ir::EvalStmt& s) = 0;
  virtual void scope(const ir::ScopeStmt& s) = 0;
  // A body whose last statement is a scope that holds the trailing yield: print the scope with
  // `yielding(body)` inside it. Returns false when the subclass has no such scopes.
  virtual bool trailing_scope(const ir::ScopeStmt&, const std::vector<const ir::Var*>&) { return false; }
  virtual void carry_in(const ir::Var& iter_arg, const ir::ExprPtr& init, const ir::Span& sp);
  virtual void carry_out(const ir::Var& target, const ir::ExprPtr& yielded, const ir::Span& sp);
  virtual void declare_result(const ir::Var& rv, const ir::Span& sp);   // an if result, before the if
  virtual void bind_result(const ir::Var& rv, const ir::Var& from, const ir::Span& sp);  // a loop result

  // Prints a body that ends in a yield of `targets`: the statements, then the carry updates.
  void yielding(const ir::StmtPtr& body, const std::vector<const ir::Var*>& targets, const ir::Span& sp);

  NameTable names_;
  std::string body_;
  int indent_ = 1;

 private:
  void for_stmt(const ir::ForStmt& s);
  void while_stmt(const ir::WhileStmt& s);
  void carried_loop(const std::function<std::string()>& header, const std::vector<ir::IterArgPtr>& iter_args,
                    const ir::StmtPtr& body, const std::vector<ir::VarPtr>& return_vars, const ir::Span& sp);
  void if_stmt(const ir::IfStmt& s);
  void yield_updates(const ir::YieldStmt* y, const std::vector<const ir::Var*>& targets, const ir::Span& sp);

  std::string where_;  // "a kernel", "orchestration code": for messages
  std::unordered_map<const ir::Var*, std::string> handles_;
};

// A dimension of a tensor parameter that is a Var no earlier parameter binds: read at run time
// from the tensor's descriptor (kernel_entry's ChipTensor, the orchestration's argument).
struct DescriptorDim {
  const ir::Var* var;
  int tensor;  // index among the function's tensor parameters
  int axis;
};
// In parameter order; `bound` says whether a Var already has a value (a scalar parameter).
std::vector<DescriptorDim> descriptor_dims(const ir::Function& f, const NameTable& bound);

}  // namespace pypto::emit
