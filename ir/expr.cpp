// Expression node helpers: Var ids, operator names, integer floor division, builders.
#include "ir/expr.h"

#include "ir/op_registry.h"

namespace pypto::ir {

static std::atomic<uint64_t> g_next_var_id{1};

Var::Var(NodeKind k, std::string n, TypePtr t, Span s)
    : Expr(k, std::move(t), std::move(s)), name(std::move(n)), id(g_next_var_id++) {}

std::string_view to_string(BinOp op) {
  switch (op) {
    case BinOp::Add: return "Add";
    case BinOp::Sub: return "Sub";
    case BinOp::Mul: return "Mul";
    case BinOp::FloorDiv: return "FloorDiv";
    case BinOp::FloorMod: return "FloorMod";
    case BinOp::FloatDiv: return "FloatDiv";
    case BinOp::Min: return "Min";
    case BinOp::Max: return "Max";
    case BinOp::Pow: return "Pow";
    case BinOp::Eq: return "Eq";
    case BinOp::Ne: return "Ne";
    case BinOp::Lt: return "Lt";
    case BinOp::Le: return "Le";
    case BinOp::Gt: return "Gt";
    case BinOp::Ge: return "Ge";
    case BinOp::And: return "And";
    case BinOp::Or: return "Or";
    case BinOp::Xor: return "Xor";
    case BinOp::BitAnd: return "BitAnd";
    case BinOp::BitOr: return "BitOr";
    case BinOp::BitXor: return "BitXor";
    case BinOp::Shl: return "Shl";
    case BinOp::Shr: return "Shr";
  }
  return "?";
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

std::string_view to_string(UnOp op) {
  switch (op) {
    case UnOp::Neg: return "Neg";
    case UnOp::Not: return "Not";
    case UnOp::BitNot: return "BitNot";
    case UnOp::Abs: return "Abs";
    case UnOp::Cast: return "Cast";
  }
  return "?";
}

bool is_comparison(BinOp op) {
  return op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt || op == BinOp::Le ||
         op == BinOp::Gt || op == BinOp::Ge;
}

std::vector<ExprPtr> Dispatch::exprs() const {
  std::vector<ExprPtr> out;
  if (core_num) out.push_back(core_num);
  for (const auto& d : deps)
    if (d) out.push_back(d);
  for (const auto& v : dumps)
    if (v) out.push_back(v);
  if (predicate) out.push_back(predicate);
  if (device) out.push_back(device);
  return out;
}

bool Call::is_op(std::string_view n) const { return op != nullptr && op->name == n; }

const AttrValue* Call::kwarg(std::string_view n) const {
  for (const auto& [k, v] : kwargs)
    if (k == n) return &v;
  return nullptr;
}

std::optional<int64_t> const_int_value(const ExprPtr& e) {
  if (const auto* c = as<ConstInt>(e)) return c->value;
  return std::nullopt;
}

ExprPtr make_int(int64_t v, Span s, DataType dt) { return std::make_shared<ConstInt>(v, dt, std::move(s)); }
ExprPtr make_float(double v, Span s, DataType dt) { return std::make_shared<ConstFloat>(v, dt, std::move(s)); }
ExprPtr make_bool(bool v, Span s) { return std::make_shared<ConstBool>(v, std::move(s)); }
std::shared_ptr<const Var> make_var(std::string name, TypePtr t, Span s) {
  return std::make_shared<Var>(std::move(name), std::move(t), std::move(s));
}

}  // namespace pypto::ir
