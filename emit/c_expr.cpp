// Scalar expression translation (c_expr.h).
#include "emit/c_expr.h"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "ir/dtype.h"

namespace pypto::emit {

using namespace ir;

void unreachable_form(std::string_view emitter, const Span& span, const std::string& what, std::string_view by) {
  throw InternalError(std::string(emitter), fmt::format("{} ({} rejects it before emission)", what, by), span);
}

std::string source_comment(const Span& sp) {
  if (!sp.valid()) return {};
  std::string text(sp.file->line(sp.line));
  const auto b = text.find_first_not_of(" \t");
  text = b == std::string::npos ? std::string() : text.substr(b);
  // A Python line continuation's trailing backslash would continue the // comment onto the next
  // C++ line (the statement the comment annotates): it is dropped.
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t' || text.back() == '\\'))
    text.pop_back();
  return fmt::format("// {}:{}: {}", std::filesystem::path(sp.filename()).filename().string(), sp.line, text);
}

std::string c_type(DataType t) {
  const auto s = dtype_c_type(t);
  if (s.empty()) unreachable_form("emit", {}, fmt::format("element type {}", dtype_name(t)), kFormChecks);
  return std::string(s);
}

std::string floor_helpers(const std::string& q) {
  const std::string p = q.empty() ? "" : q + " ";
  return fmt::format(
      "// Python floor semantics for `//` and `%` on integers (C++ truncates towards zero).\n"
      "static inline {0}int64_t pypto_floordiv(int64_t a, int64_t b) {{\n"
      "    int64_t q = a / b;\n"
      "    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;\n"
      "    return q;\n"
      "}}\n"
      "static inline {0}int64_t pypto_floormod(int64_t a, int64_t b) {{\n"
      "    int64_t r = a % b;\n"
      "    if (r != 0 && ((r < 0) != (b < 0))) r += b;\n"
      "    return r;\n"
      "}}\n",
      p);
}

namespace {

DataType dtype_of(const ExprPtr& e) {
  const auto* s = as_scalar(e->type);
  if (!s) unreachable_form("emit", e->span, "a non-scalar value in a scalar expression", "its type rule");
  return s->dtype;
}

std::string int_literal(int64_t v) {
  if (v > 2147483647LL || v < -2147483647LL) return fmt::format("INT64_C({})", v);
  return v < 0 ? fmt::format("({})", v) : fmt::format("{}", v);
}

std::string float_literal(double v, DataType dt, const Span& sp) {
  std::string f;
  if (std::isnan(v)) f = "__builtin_nanf(\"\")";
  else if (std::isinf(v)) f = v > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
  else {
    f = fmt::format("{:.9g}", v);
    if (f.find_first_of(".eE") == std::string::npos) f += ".0";
    f += "f";
    if (v < 0) f = "(" + f + ")";
  }
  if (dt == DataType::FP32) return f;
  if (dt == DataType::FP16 || dt == DataType::BF16) return fmt::format("static_cast<{}>({})", c_type(dt), f);
  unreachable_form("emit", sp, fmt::format("a {} literal", dtype_name(dt)), kFormChecks);
}

const char* infix(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::Lt: return "<";
    case BinOp::Le: return "<=";
    case BinOp::Gt: return ">";
    case BinOp::Ge: return ">=";
    case BinOp::And: return "&&";
    case BinOp::Or: return "||";
    case BinOp::Xor: return "!=";
    case BinOp::BitAnd: return "&";
    case BinOp::BitOr: return "|";
    case BinOp::BitXor: return "^";
    case BinOp::Shl: return "<<";
    case BinOp::Shr: return ">>";
    default: return nullptr;
  }
}

}  // namespace

std::string c_expr(const ExprPtr& e, const VarNamer& name_of) {
  switch (e->kind) {
    case NodeKind::Var:
    case NodeKind::IterArg: return name_of(static_cast<const Var&>(*e));
    case NodeKind::ConstInt: return int_literal(static_cast<const ConstInt&>(*e).value);
    case NodeKind::ConstFloat: {
      const auto& c = static_cast<const ConstFloat&>(*e);
      return float_literal(c.value, c.dtype(), e->span);
    }
    case NodeKind::ConstBool: return static_cast<const ConstBool&>(*e).value ? "true" : "false";
    case NodeKind::Binary: {
      const auto& b = static_cast<const Binary&>(*e);
      const std::string x = c_expr(b.a, name_of), y = c_expr(b.b, name_of);
      if (const char* op = infix(b.op)) return fmt::format("({} {} {})", x, op, y);
      const DataType t = dtype_of(e);
      switch (b.op) {
        case BinOp::FloorDiv:
        case BinOp::FloorMod:
          if (!dtype_is_int(t))  // the form checks reject it (passes/form_rules.h)
            throw InternalError("emit", "floor division of floating-point scalars reached the emitter", e->span);
          return fmt::format("static_cast<{}>({}({}, {}))", c_type(t),
                             b.op == BinOp::FloorDiv ? "pypto_floordiv" : "pypto_floormod", x, y);
        case BinOp::FloatDiv:
          return fmt::format("(static_cast<{0}>({1}) / static_cast<{0}>({2}))", c_type(t), x, y);
        case BinOp::Min: return fmt::format("(({0}) < ({1}) ? ({0}) : ({1}))", x, y);
        case BinOp::Max: return fmt::format("(({0}) > ({1}) ? ({0}) : ({1}))", x, y);
        default:  // Pow: the form checks reject it (passes/form_rules.h)
          throw InternalError("emit", fmt::format("the scalar operator {} reached the emitter", to_string(b.op)), e->span);
      }
    }
    case NodeKind::Unary: {
      const auto& u = static_cast<const Unary&>(*e);
      const std::string x = c_expr(u.a, name_of);
      switch (u.op) {
        case UnOp::Neg: return fmt::format("(-{})", x);
        case UnOp::Not: return fmt::format("(!{})", x);
        case UnOp::BitNot: return fmt::format("(~{})", x);
        case UnOp::Abs: return fmt::format("(({0}) < 0 ? -({0}) : ({0}))", x);
        case UnOp::Cast: return fmt::format("static_cast<{}>({})", c_type(dtype_of(e)), x);
      }
      break;
    }
    default: break;
  }
  unreachable_form("emit", e->span, "this expression form (calls, tuples) inside a scalar expression",
                   "NoNestedCall (verified before emission)");
}

}  // namespace pypto::emit
