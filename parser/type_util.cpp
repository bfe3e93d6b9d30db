// Type/expression spelling for diagnostics and structural type comparison (see builder.h).
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

std::string expr_str(const ir::ExprPtr& e) {
  if (!e) return "?";
  if (const auto* c = ir::as<ir::ConstInt>(e)) return std::to_string(c->value);
  if (const auto* c = ir::as<ir::ConstFloat>(e)) return fmt::format("{}", c->value);
  if (const auto* c = ir::as<ir::ConstBool>(e)) return c->value ? "True" : "False";
  if (const auto* v = ir::as<ir::Var>(e)) return v->name;
  if (const auto* b = ir::as<ir::Binary>(e)) {
    const char* op = "?";
    switch (b->op) {
      case ir::BinOp::Add: op = "+"; break;
      case ir::BinOp::Sub: op = "-"; break;
      case ir::BinOp::Mul: op = "*"; break;
      case ir::BinOp::FloorDiv: op = "//"; break;
      case ir::BinOp::FloorMod: op = "%"; break;
      case ir::BinOp::FloatDiv: op = "/"; break;
      default: return fmt::format("{}({}, {})", ir::to_string(b->op), expr_str(b->a), expr_str(b->b));
    }
    return fmt::format("({} {} {})", expr_str(b->a), op, expr_str(b->b));
  }
  return "<expr>";
}

static std::string shape_str(const std::vector<ir::ExprPtr>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + expr_str(s[i]);
  return r + "]";
}

std::string type_str(const ir::TypePtr& t) {
  if (!t) return "no value";
  if (const auto* s = ir::as_scalar(t)) return fmt::format("pl.Scalar[pl.{}]", ir::dtype_name(s->dtype));
  if (const auto* s = ir::as_tensor(t)) return fmt::format("pl.Tensor[{}, pl.{}]", shape_str(s->shape), ir::dtype_name(s->dtype));
  if (const auto* s = ir::as_tile(t)) {
    std::string sp = s->space ? fmt::format(", pl.Mem.{}", ir::to_string(*s->space)) : "";
    return fmt::format("pl.Tile[{}, pl.{}{}]", shape_str(s->shape), ir::dtype_name(s->dtype), sp);
  }
  if (const auto* s = ir::as_tuple(t)) {
    std::string r = "pl.Tuple[";
    for (size_t i = 0; i < s->elems.size(); ++i) r += (i ? ", " : "") + type_str(s->elems[i]);
    return r + "]";
  }
  return "pl.Ptr";
}

bool same_expr(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (auto x = ir::const_int_value(a)) return x == ir::const_int_value(b);
  if (const auto* x = ir::as<ir::Binary>(a)) {
    const auto* y = ir::as<ir::Binary>(b);
    return x->op == y->op && same_expr(x->a, y->a) && same_expr(x->b, y->b);
  }
  if (const auto* x = ir::as<ir::Unary>(a)) {
    const auto* y = ir::as<ir::Unary>(b);
    return x->op == y->op && same_expr(x->a, y->a);
  }
  // An extent query written in an annotation, pl.Tensor[[pl.tensor.dim(x, 0), 64], ...]: the same
  // op on the same operands.
  if (const auto* x = ir::as<ir::Call>(a)) {
    const auto* y = ir::as<ir::Call>(b);
    if (x->op != y->op || x->callee != y->callee || x->args.size() != y->args.size() || x->kwargs != y->kwargs) return false;
    for (size_t i = 0; i < x->args.size(); ++i)
      if (!same_expr(x->args[i], y->args[i])) return false;
    return true;
  }
  return false;  // distinct Vars / other nodes
}

bool same_type(const ir::TypePtr& a, const ir::TypePtr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (const auto* x = ir::as_scalar(a)) return x->dtype == ir::as_scalar(b)->dtype;
  if (const auto* x = ir::as_shaped(a)) {
    const auto* y = ir::as_shaped(b);
    if (x->dtype != y->dtype || x->shape.size() != y->shape.size()) return false;
    for (size_t i = 0; i < x->shape.size(); ++i)
      if (!same_expr(x->shape[i], y->shape[i])) return false;
    return true;
  }
  if (const auto* x = ir::as_tuple(a)) {
    const auto* y = ir::as_tuple(b);
    if (x->elems.size() != y->elems.size()) return false;
    for (size_t i = 0; i < x->elems.size(); ++i)
      if (!same_type(x->elems[i], y->elems[i])) return false;
    return true;
  }
  return true;  // Ptr
}

namespace {
const std::vector<ir::ExprPtr>* valid_shape_of(const ir::TypePtr& t) {
  if (const auto* x = ir::as_tile(t)) return x->view ? &x->view->valid_shape : nullptr;
  if (const auto* x = ir::as_tensor(t)) return x->view ? &x->view->valid_shape : nullptr;
  return nullptr;
}
}  // namespace

bool valid_shape_differs(const ir::TypePtr& a, const ir::TypePtr& b) {
  static const std::vector<ir::ExprPtr> none;
  const auto* va = valid_shape_of(a);
  const auto* vb = valid_shape_of(b);
  const auto& x = va ? *va : none;
  const auto& y = vb ? *vb : none;
  if (x.size() != y.size()) return true;
  for (size_t i = 0; i < x.size(); ++i)
    if (!same_expr(x[i], y[i])) return true;
  return false;
}

void attach_comments(const ir::StmtPtr& s, const std::vector<std::string>& comments) {
  if (!s || comments.empty()) return;
  // The statement was created by this front end a moment ago and is not shared yet.
  auto& lc = const_cast<ir::Stmt*>(s.get())->leading_comments;
  lc.insert(lc.begin(), comments.begin(), comments.end());
}

}  // namespace pypto::parser
