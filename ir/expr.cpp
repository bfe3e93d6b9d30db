// Expression node helpers: Var ids, operator names, integer floor division, constant differences of
// linear index expressions (slice extents), builders.
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
  for (const auto& v : compiler_deps)
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

bool Call::kwarg_true(std::string_view n) const {
  const AttrValue* v = kwarg(n);
  const auto* b = v ? std::get_if<bool>(v) : nullptr;
  return b && *b;
}

std::string_view Call::kwarg_string(std::string_view n) const {
  const AttrValue* v = kwarg(n);
  const auto* s = v ? std::get_if<std::string>(v) : nullptr;
  return s ? std::string_view(*s) : std::string_view();
}

std::optional<int64_t> const_int_value(const ExprPtr& e) {
  if (const auto* c = as<ConstInt>(e)) return c->value;
  return std::nullopt;
}

namespace {

// Same value by construction: one Var, equal constants, or the same operator over such operands.
bool same_term(const ExprPtr& a, const ExprPtr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (auto x = const_int_value(a)) return x == const_int_value(b);
  if (const auto* x = as<Binary>(a)) {
    const auto* y = as<Binary>(b);
    return x->op == y->op && same_term(x->a, y->a) && same_term(x->b, y->b);
  }
  if (const auto* x = as<Unary>(a)) {
    const auto* y = as<Unary>(b);
    const auto *tx = as_scalar(x->type), *ty = as_scalar(y->type);
    return x->op == y->op && (!tx || !ty || tx->dtype == ty->dtype) && same_term(x->a, y->a);
  }
  return false;  // distinct Vars, calls, ...
}

// c0 + Σ coeff·term, accumulated with a sign/scale; false on overflow.
struct Linear {
  int64_t c0 = 0;
  std::vector<std::pair<ExprPtr, int64_t>> terms;

  static bool mul(int64_t a, int64_t b, int64_t& r) { return !__builtin_mul_overflow(a, b, &r); }
  static bool add(int64_t a, int64_t b, int64_t& r) { return !__builtin_add_overflow(a, b, &r); }

  bool add_term(const ExprPtr& t, int64_t k) {
    for (auto& [e, c] : terms)
      if (same_term(e, t)) return add(c, k, c);
    terms.emplace_back(t, k);
    return true;
  }
  // this += k * e
  bool accumulate(const ExprPtr& e, int64_t k, int depth = 0) {
    if (depth > 64) return add_term(e, k);
    if (auto v = const_int_value(e)) {
      int64_t p;
      return mul(*v, k, p) && add(c0, p, c0);
    }
    if (const auto* b = as<Binary>(e)) {
      if (b->op == BinOp::Add) return accumulate(b->a, k, depth + 1) && accumulate(b->b, k, depth + 1);
      if (b->op == BinOp::Sub) {
        int64_t nk;
        return accumulate(b->a, k, depth + 1) && mul(k, -1, nk) && accumulate(b->b, nk, depth + 1);
      }
      if (b->op == BinOp::Mul) {
        int64_t nk;
        if (auto c = const_int_value(b->b)) return mul(k, *c, nk) && accumulate(b->a, nk, depth + 1);
        if (auto c = const_int_value(b->a)) return mul(k, *c, nk) && accumulate(b->b, nk, depth + 1);
      }
    }
    if (const auto* u = as<Unary>(e); u && u->op == UnOp::Neg) {
      int64_t nk;
      return mul(k, -1, nk) && accumulate(u->a, nk, depth + 1);
    }
    return add_term(e, k);
  }
};

}  // namespace

std::optional<int64_t> const_difference(const ExprPtr& a, const ExprPtr& b) {
  if (!a || !b) return std::nullopt;
  const auto *sa = as_scalar(a->type), *sb = as_scalar(b->type);
  if (!sa || !sb || !dtype_is_int(sa->dtype) || !dtype_is_int(sb->dtype)) return std::nullopt;
  Linear l;
  if (!l.accumulate(a, 1) || !l.accumulate(b, -1)) return std::nullopt;
  for (const auto& [t, c] : l.terms)
    if (c != 0) return std::nullopt;
  return l.c0;
}

ExprPtr make_int(int64_t v, Span s, DataType dt) { return std::make_shared<ConstInt>(v, dt, std::move(s)); }
ExprPtr make_float(double v, Span s, DataType dt) { return std::make_shared<ConstFloat>(v, dt, std::move(s)); }
ExprPtr make_bool(bool v, Span s) { return std::make_shared<ConstBool>(v, std::move(s)); }
std::shared_ptr<const Var> make_var(std::string name, TypePtr t, Span s) {
  return std::make_shared<Var>(std::move(name), std::move(t), std::move(s));
}

}  // namespace pypto::ir
