// Compile-time constant evaluation over the CST with Python semantics (see const_eval.h).
#include "parser/const_eval.h"

#include <cmath>
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "ir/expr.h"

namespace pypto::parser {

namespace {

bool numeric(const ConstValue& v) { return v.is_int() || v.is_float() || v.is_bool(); }
double to_f(const ConstValue& v) {
  if (v.is_float()) return v.as_float();
  if (v.is_bool()) return std::get<bool>(v.v) ? 1.0 : 0.0;
  return double(v.as_int());
}
int64_t to_i(const ConstValue& v) { return v.is_bool() ? (std::get<bool>(v.v) ? 1 : 0) : v.as_int(); }
bool is_intlike(const ConstValue& v) { return v.is_int() || v.is_bool(); }

bool truthy(const ConstValue& v) {
  if (v.is_bool()) return std::get<bool>(v.v);
  if (v.is_int()) return v.as_int() != 0;
  if (v.is_float()) return v.as_float() != 0.0;
  if (v.is_str()) return !std::get<std::string>(v.v).empty();
  if (v.is_list()) return !v.as_list().empty();
  if (v.is_none()) return false;
  return true;
}

std::string fmt_float(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string ConstValue::repr() const {
  if (is_none()) return "None";
  if (is_int()) return std::to_string(as_int());
  if (is_float()) return fmt_float(as_float());
  if (is_bool()) return std::get<bool>(v) ? "True" : "False";
  if (is_str()) return "'" + std::get<std::string>(v) + "'";
  if (is_dyn()) return std::get<ir::VarPtr>(v)->name;
  std::string s = "(";
  const auto& l = as_list();
  for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + l[i].repr();
  if (l.size() == 1) s += ",";
  return s + ")";
}

void ConstEvaluator::fail(TSNode n, const std::string& msg) {
  throw ir::CompileError("E304", span_of(n, file_), msg);
}

ConstValue ConstEvaluator::eval(TSNode n, const std::string& what) {
  auto v = try_eval(n);
  if (!v)
    throw ir::CompileError("E304", span_of(n, file_),
                           fmt::format("{} must be a compile-time constant, got '{}'", what, text(n, *file_)),
                           "use literals, module constants or -D NAME=VALUE");
  return *v;
}

std::optional<ConstValue> ConstEvaluator::try_eval(TSNode n) {
  NestingGuard guard(depth_, n, file_);
  n = unparen(n);
  const auto k = kind(n);
  const auto& f = *file_;
  if (k == "integer") {
    std::string t = text(n, f);
    std::string digits;
    for (char c : t)
      if (c != '_') digits += c;
    try {
      size_t used = 0;
      int64_t v = 0;
      if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
        v = std::stoll(digits.substr(2), &used, 16), used += 2;
      else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B'))
        v = std::stoll(digits.substr(2), &used, 2), used += 2;
      else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'o' || digits[1] == 'O'))
        v = std::stoll(digits.substr(2), &used, 8), used += 2;
      else
        v = std::stoll(digits, &used, 10);
      if (used != digits.size()) fail(n, fmt::format("invalid integer literal '{}'", t));
      return ConstValue{v};
    } catch (const std::out_of_range&) {
      fail(n, fmt::format("integer literal '{}' does not fit in 64 bits", t));
    } catch (const std::invalid_argument&) {
      fail(n, fmt::format("invalid integer literal '{}'", t));
    }
  }
  if (k == "float") {
    std::string t;
    for (char c : text(n, f))
      if (c != '_') t += c;
    if (!t.empty() && (t.back() == 'j' || t.back() == 'J')) fail(n, "complex literals are not supported");
    return ConstValue{std::strtod(t.c_str(), nullptr)};
  }
  if (k == "true") return ConstValue{true};
  if (k == "false") return ConstValue{false};
  if (k == "none") return ConstValue{ConstValue::None{}};
  if (k == "string") {
    std::string s;
    if (!string_value(n, f, s)) return std::nullopt;
    return ConstValue{s};
  }
  if (k == "concatenated_string") {
    std::string all;
    for (TSNode c : children(n)) {
      std::string s;
      if (!string_value(c, f, s)) return std::nullopt;
      all += s;
    }
    return ConstValue{all};
  }
  if (k == "identifier") return lookup_(text(n, f), n);
  if (k == "tuple" || k == "list" || k == "expression_list") {
    ConstList l;
    for (TSNode c : children(n)) {
      auto v = try_eval(c);
      if (!v) return std::nullopt;
      l.push_back(*v);
    }
    return ConstValue::of_list(std::move(l));
  }
  if (k == "unary_operator") {
    auto a = try_eval(field(n, "argument"));
    if (!a) return std::nullopt;
    std::string op = text(field(n, "operator"), f);
    if (!numeric(*a)) fail(n, fmt::format("bad operand for unary {}: {}", op, a->repr()));
    if (op == "+") return a->is_bool() ? ConstValue{to_i(*a)} : *a;
    if (op == "-") return a->is_float() ? ConstValue{-a->as_float()} : ConstValue{-to_i(*a)};
    if (op == "~") {
      if (a->is_float()) fail(n, "bad operand for unary ~: float");
      return ConstValue{~to_i(*a)};
    }
    return std::nullopt;
  }
  if (k == "not_operator") {
    auto a = try_eval(field(n, "argument"));
    if (!a) return std::nullopt;
    return ConstValue{!truthy(*a)};
  }
  if (k == "boolean_operator") {
    auto a = try_eval(field(n, "left"));
    auto b = try_eval(field(n, "right"));
    if (!a || !b) return std::nullopt;
    std::string op = text(field(n, "operator"), f);
    if (op == "and") return truthy(*a) ? *b : *a;
    return truthy(*a) ? *a : *b;
  }
  if (k == "comparison_operator") {
    auto ops = field_children(n, "operators");
    auto operands = children(n);
    if (operands.size() != 2 || ops.size() != 1) return std::nullopt;
    auto a = try_eval(operands[0]);
    auto b = try_eval(operands[1]);
    if (!a || !b) return std::nullopt;
    std::string op = text(ops[0], f);
    if (numeric(*a) && numeric(*b)) {
      double x = to_f(*a), y = to_f(*b);
      if (op == "==") return ConstValue{x == y};
      if (op == "!=") return ConstValue{x != y};
      if (op == "<") return ConstValue{x < y};
      if (op == "<=") return ConstValue{x <= y};
      if (op == ">") return ConstValue{x > y};
      if (op == ">=") return ConstValue{x >= y};
    }
    if (a->is_str() && b->is_str()) {
      if (op == "==") return ConstValue{a->v == b->v};
      if (op == "!=") return ConstValue{a->v != b->v};
    }
    return std::nullopt;
  }
  if (k == "binary_operator") return binary(n);
  if (k == "conditional_expression") {
    auto c = children(n);
    if (c.size() != 3) return std::nullopt;
    auto cond = try_eval(c[1]);
    if (!cond) return std::nullopt;
    return try_eval(truthy(*cond) ? c[0] : c[2]);
  }
  if (k == "subscript") {
    auto subs = field_children(n, "subscript");
    if (subs.size() != 1 || is(subs[0], "slice")) return std::nullopt;
    auto base = try_eval(field(n, "value"));
    if (!base || !base->is_list()) return std::nullopt;
    auto idx = try_eval(subs[0]);
    if (!idx || !is_intlike(*idx)) return std::nullopt;
    int64_t i = to_i(*idx);
    int64_t len = int64_t(base->as_list().size());
    if (i < 0) i += len;
    if (i < 0 || i >= len) fail(n, "tuple index out of range");
    return base->as_list()[size_t(i)];
  }
  if (k == "call") return call(n);
  return std::nullopt;
}

std::optional<ConstValue> ConstEvaluator::binary(TSNode n) {
  const auto& f = *file_;
  auto a = try_eval(field(n, "left"));
  if (!a) return std::nullopt;
  auto b = try_eval(field(n, "right"));
  if (!b) return std::nullopt;
  std::string op = text(field(n, "operator"), f);
  if (a->is_list() && b->is_list() && op == "+") {
    ConstList l = a->as_list();
    for (const auto& x : b->as_list()) l.push_back(x);
    return ConstValue::of_list(std::move(l));
  }
  if (a->is_list() && is_intlike(*b) && op == "*") {
    ConstList l;
    for (int64_t i = 0; i < to_i(*b); ++i)
      for (const auto& x : a->as_list()) l.push_back(x);
    return ConstValue::of_list(std::move(l));
  }
  if (a->is_str() && b->is_str() && op == "+") return ConstValue{std::get<std::string>(a->v) + std::get<std::string>(b->v)};
  if (!numeric(*a) || !numeric(*b)) {
    if (a->is_dyn() || b->is_dyn()) return std::nullopt;  // symbolic: not a constant
    fail(n, fmt::format("unsupported operand types for {}: {} and {}", op, a->repr(), b->repr()));
  }
  const bool ints = is_intlike(*a) && is_intlike(*b);
  if (op == "/") {
    if (to_f(*b) == 0.0) fail(n, "division by zero in a constant expression");
    return ConstValue{to_f(*a) / to_f(*b)};
  }
  if (ints) {
    int64_t x = to_i(*a), y = to_i(*b);
    if (op == "+") return ConstValue{x + y};
    if (op == "-") return ConstValue{x - y};
    if (op == "*") return ConstValue{x * y};
    if (op == "//" || op == "%") {
      if (y == 0) fail(n, "division by zero in a constant expression");
      return ConstValue{op == "//" ? ir::floor_div(x, y) : ir::floor_mod(x, y)};
    }
    if (op == "**") {
      if (y < 0) return ConstValue{std::pow(double(x), double(y))};
      int64_t r = 1;
      for (int64_t i = 0; i < y; ++i) r *= x;
      return ConstValue{r};
    }
    if (op == "<<") return ConstValue{x << y};
    if (op == ">>") return ConstValue{x >> y};
    if (op == "&") return ConstValue{x & y};
    if (op == "|") return ConstValue{x | y};
    if (op == "^") return ConstValue{x ^ y};
    return std::nullopt;
  }
  double x = to_f(*a), y = to_f(*b);
  if (op == "+") return ConstValue{x + y};
  if (op == "-") return ConstValue{x - y};
  if (op == "*") return ConstValue{x * y};
  if (op == "//" || op == "%") {
    if (y == 0.0) fail(n, "division by zero in a constant expression");
    double q = std::floor(x / y);
    return ConstValue{op == "//" ? q : x - q * y};
  }
  if (op == "**") return ConstValue{std::pow(x, y)};
  fail(n, fmt::format("unsupported operand types for {}: float", op));
}

std::optional<ConstValue> ConstEvaluator::call(TSNode n) {
  const auto& f = *file_;
  std::string fn = dotted_name(field(n, "function"), f);
  std::vector<TSNode> args;
  for (TSNode a : children(field(n, "arguments"))) {
    if (is(a, "keyword_argument") || is(a, "list_splat") || is(a, "dictionary_splat")) return std::nullopt;
    args.push_back(a);
  }
  if (fn == "min" || fn == "max") {
    std::vector<ConstValue> vals;
    for (TSNode a : args) {
      auto v = try_eval(a);
      if (!v) return std::nullopt;
      vals.push_back(*v);
    }
    if (vals.size() == 1 && vals[0].is_list()) vals = vals[0].as_list();
    if (vals.empty()) fail(n, fn + "() arg is an empty sequence");
    ConstValue best = vals[0];
    for (size_t i = 1; i < vals.size(); ++i) {
      if (!numeric(vals[i]) || !numeric(best)) fail(n, fn + "() of non-numbers");
      bool better = fn == "min" ? to_f(vals[i]) < to_f(best) : to_f(vals[i]) > to_f(best);
      if (better) best = vals[i];
    }
    return best;
  }
  if (fn == "abs" && args.size() == 1) {
    auto v = try_eval(args[0]);
    if (!v) return std::nullopt;
    if (v->is_float()) return ConstValue{std::fabs(v->as_float())};
    if (is_intlike(*v)) return ConstValue{std::abs(to_i(*v))};
    fail(n, "bad operand type for abs()");
  }
  if (fn == "len" && args.size() == 1) {
    auto v = try_eval(args[0]);
    if (!v) return std::nullopt;
    if (v->is_list()) return ConstValue{int64_t(v->as_list().size())};
    if (v->is_str()) return ConstValue{int64_t(std::get<std::string>(v->v).size())};
    fail(n, "object has no len()");
  }
  if ((fn == "int" || fn == "float" || fn == "bool") && args.size() == 1) {
    auto v = try_eval(args[0]);
    if (!v) return std::nullopt;
    if (!numeric(*v)) return std::nullopt;
    if (fn == "int") return ConstValue{v->is_float() ? int64_t(v->as_float()) : to_i(*v)};
    if (fn == "float") return ConstValue{to_f(*v)};
    return ConstValue{truthy(*v)};
  }
  return std::nullopt;
}

ConstValue eval_expression_text(const std::string& src, const std::string& origin, ConstLookup lookup) {
  auto file = std::make_shared<const ir::SourceFile>(origin, src);
  CstTree tree(file);
  TSNode root = tree.root();
  auto stmts = children(root);
  if (ts_node_has_error(root) || stmts.size() != 1 || !is(stmts[0], "expression_statement") ||
      children(stmts[0]).size() != 1)
    throw ir::CompileError("E304", ir::Span{}, fmt::format("{}: '{}' is not a Python expression", origin, src));
  ConstEvaluator ev(file, std::move(lookup));
  auto v = ev.try_eval(children(stmts[0])[0]);
  if (!v)
    throw ir::CompileError("E304", ir::Span{},
                           fmt::format("{}: '{}' is not a compile-time constant", origin, src),
                           "use a literal, e.g. -D N=128 or -D SHAPE=(64, 128)");
  return *v;
}

}  // namespace pypto::parser
