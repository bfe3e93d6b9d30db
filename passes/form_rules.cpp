// The form rules both back-end checks share (form_rules.h).
#include "passes/form_rules.h"

#include <fmt/format.h>

#include "ir/tensor_roots.h"
#include "ir/verify_util.h"
#include "passes/pass_util.h"

namespace pypto::passes {

using namespace ir;

void FormRules::check_function(const Program& p, const Function& f, std::string_view param_noun) {
  bound_.clear();
  for (const auto& prm : f.params) {
    const auto* t = as_tensor(prm->type);
    if (!t && !as_scalar(prm->type))
      reject(prm->span, fmt::format("{} '{}' of a type other than tensor or scalar", param_noun, prm->name));
    for (const auto& d : t ? t->shape : std::vector<ExprPtr>{}) {
      if (const auto* v = as<Var>(d)) bound_.insert(v);  // read from the tensor's descriptor
      else if (!const_int_value(d))
        reject(prm->span, fmt::format("a computed dimension of {} '{}'", param_noun, prm->name),
               "give the dimension its own pl.dynamic symbol");
    }
  }
  verify_detail::for_each_binding(f, [&](const Var& v, const Span&) { bound_.insert(&v); });
  visit_body_except_trailing_return(*this, f);
  // After the body, whose op rules name the forms more precisely.
  verify_detail::for_each_binding(f, [&](const Var& v, const Span& sp) { check_binding(v, sp); });
  const TensorRoots roots(p, f);
  // A loop carry ClassifyIterArgCarry marked a rebind changes buffer by design (orchestration).
  const TensorRoots::Conflict* first = nullptr;
  for (const auto& c : roots.conflicts()) {
    const auto* ia = c.loop && c.target->kind == NodeKind::IterArg ? static_cast<const IterArg*>(c.target) : nullptr;
    if (!(ia && ia->rebind)) {
      first = &c;
      break;
    }
  }
  if (!first) return;
  const auto& c = *first;
  if (c.loop)
    reject(c.span, fmt::format("a loop whose carried tensor '{}' changes buffer ('{}' becomes '{}')", c.target->name,
                               c.carried->name, c.other->name),
           "yield the carried tensor itself (write into it: pass it as the Out / InOut argument)");
  reject(c.span, fmt::format("an if whose arms yield different tensors for '{}' ('{}' and '{}')", c.target->name,
                             c.carried->name, c.other->name),
         "yield the same tensor in both arms (write into it in each)");
}

void FormRules::visit_while(const WhileStmt& s) {
  stmt_span_ = s.span;
  for (const auto& ia : s.iter_args) check_carry(*ia, s.span, "a loop-carried value");
  for (const auto& rv : s.return_vars) check_carry(*rv, s.span, "a loop result");
  IRVisitor::visit_while(s);
}
// CtrlFlowTransform has rewritten both into flags in kernel and orchestration loops; one left is
// in a loop it does not rewrite.
void FormRules::visit_break(const BreakStmt& s) { reject(s.span, "break", "restructure the loop"); }
void FormRules::visit_continue(const ContinueStmt& s) {
  reject(s.span, "continue", "guard the rest of the body with an if");
}
void FormRules::visit_return(const ReturnStmt& s) { reject(s.span, "an early return"); }

void FormRules::visit_for(const ForStmt& s) {
  stmt_span_ = s.span;
  for (const auto& ia : s.iter_args) check_carry(*ia, s.span, "a loop-carried value");
  for (const auto& rv : s.return_vars) check_carry(*rv, s.span, "a loop result");
  IRVisitor::visit_for(s);
}

void FormRules::visit_if(const IfStmt& s) {
  stmt_span_ = s.span;
  for (const auto& rv : s.return_vars) check_carry(*rv, s.span, "an if result");
  IRVisitor::visit_if(s);
}

bool FormRules::carries(const TypePtr& t) const { return as_tensor(t) || as_scalar(t); }

void FormRules::check_carry(const Var& v, const Span& sp, const char* what) {
  if (!carries(v.type)) reject(sp, fmt::format("{} that is {} ('{}')", what, type_noun(v.type), v.name));
}

void FormRules::check_c_type(DataType dt, const Span& sp) {
  if (dtype_c_type(dt).empty()) reject(sp, fmt::format("the element type {}", dtype_name(dt)));
}

void FormRules::check_binding(const Var& v, const Span& sp) {
  if (const auto* t = as_scalar(v.type)) check_c_type(t->dtype, sp);
  else if (const auto* t = as_tensor(v.type)) check_c_type(t->dtype, sp);
  else if (const auto* t = as_tile(v.type)) check_c_type(t->dtype, sp);
}

// A variable no binding of the function and no parameter's shape gives a value: a program-level
// pl.dynamic symbol used where nothing passes it in.
void FormRules::visit_var(const Var& v) {
  if (!bound_.count(&v))
    reject(stmt_span_, fmt::format("the dynamic dimension '{}' where no parameter's shape carries it", v.name),
           "pass a tensor with that dimension, or the value as a pl.Scalar parameter");
}

void FormRules::visit_const(const Expr& e) {
  const auto* f = as<ConstFloat>(&e);
  if (f && f->dtype() != DataType::FP32 && f->dtype() != DataType::FP16 && f->dtype() != DataType::BF16)
    reject(e.span, fmt::format("a {} literal", dtype_name(f->dtype())));
}

void FormRules::visit_unary(const Unary& e) {
  IRVisitor::visit_unary(e);
  if (const auto* t = as_scalar(e.type)) check_c_type(t->dtype, e.span);
}

void FormRules::visit_eval(const EvalStmt& s) {
  stmt_span_ = s.span;
  IRVisitor::visit_eval(s);
}

void FormRules::visit_yield(const YieldStmt& s) {
  stmt_span_ = s.span;
  IRVisitor::visit_yield(s);
}

void FormRules::visit_assign(const AssignStmt& s) {
  stmt_span_ = s.span;
  if (as<MakeTuple>(s.value)) reject(s.span, "a tuple value bound to a variable", "use the elements directly");
  IRVisitor::visit_assign(s);
}

void FormRules::visit_binary(const Binary& e) {
  IRVisitor::visit_binary(e);
  const auto* t = as_scalar(e.type);
  if (t) check_c_type(t->dtype, e.span);
  if (e.op == BinOp::Pow) reject(e.span, "the scalar operator **");
  if ((e.op == BinOp::FloorDiv || e.op == BinOp::FloorMod) && t && !dtype_is_int(t->dtype))
    reject(e.span, fmt::format("{} of floating-point scalars", e.op == BinOp::FloorDiv ? "floor division" : "modulo"),
           "divide with `/` and round explicitly");
}

}  // namespace pypto::passes
