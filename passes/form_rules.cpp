// The form rules both back-end checks share (form_rules.h).
#include "passes/form_rules.h"

#include <fmt/format.h>

#include "ir/tensor_roots.h"
#include "passes/pass_util.h"

namespace pypto::passes {

using namespace ir;

void FormRules::check_function(const Program& p, const Function& f, std::string_view param_noun) {
  for (const auto& prm : f.params)
    if (!as_tensor(prm->type) && !as_scalar(prm->type))
      reject(prm->span, fmt::format("{} '{}' of a type other than tensor or scalar", param_noun, prm->name));
  visit_body_except_trailing_return(*this, f);
  const TensorRoots roots(p, f);
  if (roots.conflicts().empty()) return;
  const auto& c = roots.conflicts().front();
  if (c.loop)
    reject(c.span, fmt::format("a loop whose carried tensor '{}' changes buffer ('{}' becomes '{}')", c.target->name,
                               c.carried->name, c.other->name),
           "yield the carried tensor itself (write into it: pass it as the Out / InOut argument)");
  reject(c.span, fmt::format("an if whose arms yield different tensors for '{}' ('{}' and '{}')", c.target->name,
                             c.carried->name, c.other->name),
         "yield the same tensor in both arms (write into it in each)");
}

void FormRules::visit_while(const WhileStmt& s) {
  reject(s.span, "a while loop", "write the loop as a pl.range loop with a bound");
}
void FormRules::visit_break(const BreakStmt& s) { reject(s.span, "break"); }
void FormRules::visit_continue(const ContinueStmt& s) { reject(s.span, "continue"); }
void FormRules::visit_return(const ReturnStmt& s) { reject(s.span, "an early return"); }

void FormRules::visit_for(const ForStmt& s) {
  if (s.kind == ForKind::Pipeline) reject(s.span, "a pl.pipeline loop", "write it as a pl.range loop");
  IRVisitor::visit_for(s);
}

void FormRules::visit_assign(const AssignStmt& s) {
  if (as<MakeTuple>(s.value)) reject(s.span, "a tuple value bound to a variable", "use the elements directly");
  IRVisitor::visit_assign(s);
}

void FormRules::visit_binary(const Binary& e) {
  IRVisitor::visit_binary(e);
  const auto* t = as_scalar(e.type);
  if (e.op == BinOp::Pow) reject(e.span, "the scalar operator **");
  if ((e.op == BinOp::FloorDiv || e.op == BinOp::FloorMod) && t && !dtype_is_int(t->dtype))
    reject(e.span, fmt::format("{} of floating-point scalars", e.op == BinOp::FloorDiv ? "floor division" : "modulo"),
           "divide with `/` and round explicitly");
}

}  // namespace pypto::passes
