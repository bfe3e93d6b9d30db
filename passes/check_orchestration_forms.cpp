// CheckOrchestrationForms — rejects, at their source line and before emission, the orchestration
// forms the PTO2 back end cannot write yet, so that the orchestration emitter only translates:
//   * control flow without a lowering: `while` loops, `break` / `continue`, an early `return`;
//   * scopes other than runtime scopes (after MaterializeRuntimeScopes every scope is one);
//   * tensor ops with no orchestration form (a tensor op outside a pl.at scope that is not a
//     creation, view, dim query or element access) and pl.tile / system ops in orchestration;
//   * tensor creations with a non-ND layout or an element type the runtime has no DataType for;
//   * views and element access whose index lists are not literal lists, transposes with
//     non-constant axes, slices with a valid_shape;
//   * a tensor creation, element read or dim query whose result is unused (an expression
//     statement);
//   * parameters that are neither tensors nor scalars.
// Each is an E501 "not supported yet" error naming the form. The program is not changed.
// Requires RuntimeScopesMaterialized (it runs right after MaterializeRuntimeScopes).
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/visitor.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

[[noreturn]] void reject(const Span& sp, const std::string& what, const std::string& hint = {}) {
  throw CompileError("E501", sp, what + " is not supported yet in orchestration code", hint);
}

bool literal_list(const ExprPtr& e) { return e && as<MakeTuple>(e) != nullptr; }

class FormChecker : public IRVisitor {
 protected:
  void visit_while(const WhileStmt& s) override {
    reject(s.span, "a while loop", "write the loop as a pl.range loop with a bound");
  }
  void visit_break(const BreakStmt& s) override { reject(s.span, "break"); }
  void visit_continue(const ContinueStmt& s) override { reject(s.span, "continue"); }
  void visit_return(const ReturnStmt& s) override { reject(s.span, "an early return"); }
  void visit_scope(const ScopeStmt& s) override {
    if (s.scope != ScopeKind::Runtime)
      reject(s.span, fmt::format("a {} scope", to_string(s.scope)), "run the full pass pipeline (it outlines kernels)");
    IRVisitor::visit_scope(s);
  }

  void visit_eval(const EvalStmt& s) override {
    const auto* c = as<Call>(s.expr);
    if (c && c->op && (c->is_op("tensor.create") || as_scalar(c->type)))
      reject(s.span, fmt::format("pl.{} with an unused result", c->op->name), "assign the result to a variable and use it");
    IRVisitor::visit_eval(s);
  }

  void visit_call(const Call& c) override {
    IRVisitor::visit_call(c);
    if (!c.op) return;
    const std::string& n = c.op->name;
    const Span& sp = c.span;
    if (!c.op->orchestration)
      reject(sp, fmt::format("pl.{}", n),
             c.op->family() == "tensor" ? "put tensor computation inside a `with pl.at(level=pl.Level.CORE_GROUP)` scope"
                                        : std::string());
    if (n == "tensor.create") {
      const auto* t = as_tensor(c.type);
      if (const AttrValue* l = c.kwarg("layout"); l && std::get_if<TensorLayout>(l) && *std::get_if<TensorLayout>(l) != TensorLayout::ND)
        reject(sp, "pl.tensor.create with a non-ND layout");
      if (t && dtype_runtime_name(t->dtype).empty())
        reject(sp, fmt::format("a {} tensor", dtype_name(t->dtype)));
      return;
    }
    for (size_t i = 1; i < c.args.size(); ++i)
      if (i < c.op->args.size() && c.op->args[i].kind == ArgKind::IndexList && c.args[i] && !literal_list(c.args[i]))
        reject(sp, fmt::format("pl.{} with a non-literal index list", n));
    if (n == "tensor.slice" && c.args.size() > 3 && c.args[3]) reject(sp, "pl.tensor.slice with a valid_shape");
    if (n == "tensor.transpose" || n == "tensor.dim")
      for (size_t i = 1; i < c.args.size(); ++i)
        if (!const_int_value(c.args[i])) reject(sp, fmt::format("pl.{} with a non-constant axis", n));
  }
};

void check_function(const Function& f) {
  for (const auto& p : f.params)
    if (!as_tensor(p->type) && !as_scalar(p->type))
      reject(p->span, fmt::format("orchestration parameter '{}' of a type other than tensor or scalar", p->name));
  FormChecker checker;
  visit_body_except_trailing_return(checker, f);
}

}  // namespace

Pass check_orchestration_forms_pass() {
  return Pass{"CheckOrchestrationForms",
              "Rejects, at their source line, the orchestration forms the PTO2 back end cannot write yet (while / "
              "break / continue / early return, scopes other than runtime scopes, tensor ops outside pl.at without "
              "an orchestration form, tile and system ops, non-ND or runtime-less tensor creations, non-literal "
              "index lists, non-constant axes, slices with a valid_shape, unused creations / reads, odd "
              "parameters); changes nothing.",
              {{Property::RuntimeScopesMaterialized}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions)
                  if (f->type == FunctionType::Orchestration) check_function(*f);
                return p;
              }};
}

}  // namespace pypto::passes
