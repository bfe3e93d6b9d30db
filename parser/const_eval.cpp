// Compile-time constant evaluation of expressions over the CST with Python semantics (see
// const_eval.h); calls, classes and function bodies are in const_call.cpp.
#include "parser/const_eval.h"

#include <cmath>
#include <map>
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "ir/expr.h"
#include "parser/const_budget.h"

namespace pypto::parser {

namespace {

bool numeric(const ConstValue& v) { return const_numeric(v); }
double to_f(const ConstValue& v) { return const_to_f(v); }
int64_t to_i(const ConstValue& v) { return const_to_i(v); }
bool is_intlike(const ConstValue& v) { return const_intlike(v); }

// str() of a constant, as an f-string or str() call prints it.
std::string str_of(const ConstValue& v) { return v.is_str() ? v.as_str() : v.repr(); }

}  // namespace

std::optional<ConstList> const_iterate(const ConstValue& v) {
  if (v.is_list()) return v.as_list();
  if (v.is_dict()) {
    ConstList keys;
    for (const auto& [k, _] : v.as_dict().items) keys.push_back(k);
    return keys;
  }
  if (v.is_str()) {
    ConstList chars;
    for (char c : v.as_str()) chars.push_back(ConstValue{std::string(1, c)});
    return chars;
  }
  return std::nullopt;
}

void ConstEvaluator::fail(TSNode n, const std::string& msg, const std::string& hint) {
  throw ir::CompileError("E304", span_of(n, file_), msg, hint);
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
    if (string_value(n, f, s)) return ConstValue{s};
    return fstring(n);
  }
  if (k == "concatenated_string") {
    std::string all;
    for (TSNode c : children(n)) {
      auto v = try_eval(c);
      if (!v || !v->is_str()) return std::nullopt;
      all += v->as_str();
    }
    return ConstValue{all};
  }
  if (k == "identifier") {
    std::string name = text(n, f);
    auto v = lookup_(name, n);
    // Type names as values (isinstance(x, int)); other builtins only as callees (call()) and
    // namespaces (attribute()), so a DSL local that shadows one is never taken for it.
    if (!v && (name == "int" || name == "float" || name == "bool" || name == "str" || name == "tuple" ||
               name == "list" || name == "dict"))
      v = builtin(name, Args{}, TSNode{});
    return v;
  }
  if (k == "tuple" || k == "list" || k == "expression_list") {
    ConstList l;
    for (TSNode c : children(n)) {
      if (is(c, "list_splat")) {
        auto v = try_eval(children(c).empty() ? TSNode{} : children(c)[0]);
        auto items = v ? const_iterate(*v) : std::nullopt;
        if (!items) return std::nullopt;
        l.insert(l.end(), items->begin(), items->end());
        continue;
      }
      auto v = try_eval(c);
      if (!v) return std::nullopt;
      l.push_back(*v);
    }
    return ConstValue::of_list(std::move(l));
  }
  if (k == "dictionary") {
    auto d = std::make_shared<ConstDict>();
    for (TSNode c : children(n)) {
      if (!is(c, "pair")) return std::nullopt;
      auto key = try_eval(field(c, "key"));
      auto val = key ? try_eval(field(c, "value")) : std::nullopt;
      if (!val) return std::nullopt;
      bool replaced = false;
      for (auto& [k2, v2] : d->items)
        if (const_equal(k2, *key)) v2 = *val, replaced = true;
      if (!replaced) d->items.emplace_back(*key, *val);
    }
    return ConstValue{std::shared_ptr<const ConstDict>(d)};
  }
  if (k == "list_comprehension" || k == "generator_expression" || k == "dictionary_comprehension" ||
      k == "set_comprehension")
    return comprehension(n);
  if (k == "unary_operator") {
    auto a = try_eval(field(n, "argument"));
    if (!a) return std::nullopt;
    std::string op = text(field(n, "operator"), f);
    if (a->is_host_data()) return a->is_host_tensor() ? *a : ConstValue{ConstHostUnknown{}};
    if (!numeric(*a)) {
      if (a->is_dyn()) return std::nullopt;
      fail(n, fmt::format("bad operand for unary {}: {}", op, a->repr()));
    }
    if (op == "+") return a->is_bool() ? ConstValue{to_i(*a)} : *a;
    if (op == "-") {
      if (a->is_float()) return ConstValue{-a->as_float()};
      if (to_i(*a) == INT64_MIN) fail(n, "integer overflow in a constant expression: -(-9223372036854775808) does not fit in 64 bits");
      return ConstValue{-to_i(*a)};
    }
    if (op == "~") {
      if (a->is_float()) fail(n, "bad operand for unary ~: float");
      return ConstValue{~to_i(*a)};
    }
    return std::nullopt;
  }
  if (k == "not_operator") {
    auto a = try_eval(field(n, "argument"));
    if (!a) return std::nullopt;
    if (a->is_host_data()) return ConstValue{ConstHostUnknown{}};
    return ConstValue{!const_truthy(*a)};
  }
  if (k == "boolean_operator") {  // short-circuit, as Python: `x is not None and x.y` is fine
    auto a = try_eval(field(n, "left"));
    if (!a || a->is_host_data()) return std::nullopt;
    std::string op = text(field(n, "operator"), f);
    if (op == "and" ? !const_truthy(*a) : const_truthy(*a)) return a;
    return try_eval(field(n, "right"));
  }
  if (k == "comparison_operator") return compare(n);
  if (k == "binary_operator") return binary(n);
  if (k == "conditional_expression") {
    auto c = children(n);
    if (c.size() != 3) return std::nullopt;
    auto cond = try_eval(c[1]);
    if (!cond || cond->is_host_data()) return std::nullopt;
    return try_eval(const_truthy(*cond) ? c[0] : c[2]);
  }
  if (k == "subscript") return subscript(n);
  if (k == "attribute") return attribute(n);
  if (k == "call") return call(n);
  return std::nullopt;
}

std::optional<ConstValue> ConstEvaluator::fstring(TSNode n) {
  const auto& f = *file_;
  std::string out;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode ch = ts_node_named_child(n, i);
    if (is(ch, "string_content") || is(ch, "escape_interpolation")) {
      std::string t = text(ch, f);
      for (size_t p = 0; p < t.size(); ++p) {
        out += t[p];
        if ((t[p] == '{' || t[p] == '}') && p + 1 < t.size() && t[p + 1] == t[p]) ++p;
      }
    } else if (is(ch, "escape_sequence")) {
      std::string t = text(ch, f);
      out += t == "\\n" ? "\n" : t == "\\t" ? "\t" : t;
    } else if (is(ch, "interpolation")) {
      TSNode e = field(ch, "expression");
      if (is_null(e)) return std::nullopt;
      auto v = try_eval(e);
      if (!v) return std::nullopt;
      TSNode spec = field(ch, "format_specifier");
      if (!is_null(spec)) {
        std::string s = text(spec, f);
        if (!s.empty() && s[0] == ':') s.erase(0, 1);
        try {
          if (v->is_float()) out += fmt::format(fmt::runtime("{:" + s + "}"), v->as_float());
          else if (is_intlike(*v)) out += fmt::format(fmt::runtime("{:" + s + "}"), to_i(*v));
          else out += fmt::format(fmt::runtime("{:" + s + "}"), str_of(*v));
        } catch (const fmt::format_error&) {
          return std::nullopt;
        }
      } else {
        out += str_of(*v);
      }
    }
  }
  return ConstValue{out};
}

std::optional<ConstValue> ConstEvaluator::compare(TSNode n) {
  const auto& f = *file_;
  auto ops = field_children(n, "operators");
  auto operands = children(n);
  if (operands.size() != ops.size() + 1 || ops.empty()) return std::nullopt;
  auto a = try_eval(operands[0]);
  if (!a) return std::nullopt;
  for (size_t i = 0; i < ops.size(); ++i) {
    auto b = try_eval(operands[i + 1]);
    if (!b) return std::nullopt;
    std::string op = text(ops[i], f);
    // "not in" / "is not" are one operator node whose text holds the words.
    std::string norm;
    for (char c : op)
      if (c != ' ' && c != '\t' && c != '\n') norm += c;
    if (a->is_host_data() || b->is_host_data()) {  // a bool tensor, or a value known only at run time
      if (ops.size() == 1)
        if (auto r = host_arith(*a, *b, norm)) return r;
      return ConstValue{ConstHostUnknown{}};
    }
    bool r = false;
    if (norm == "==" || norm == "!=") {
      if ((a->is_dyn() || b->is_dyn()) && a->v != b->v) return std::nullopt;
      r = const_equal(*a, *b) == (norm == "==");
    } else if (norm == "is" || norm == "isnot") {
      bool same = (a->is_none() && b->is_none()) || (!a->is_none() && !b->is_none() && a->v == b->v);
      r = same == (norm == "is");
    } else if (norm == "in" || norm == "notin") {
      bool found = false;
      if (b->is_str() && a->is_str()) found = b->as_str().find(a->as_str()) != std::string::npos;
      else if (b->is_dict()) found = b->as_dict().find(*a) != nullptr;
      else if (b->is_list()) {
        for (const auto& x : b->as_list()) found = found || const_equal(x, *a);
      } else {
        return std::nullopt;
      }
      r = found == (norm == "in");
    } else if (numeric(*a) && numeric(*b)) {
      double x = to_f(*a), y = to_f(*b);
      if (norm == "<") r = x < y;
      else if (norm == "<=") r = x <= y;
      else if (norm == ">") r = x > y;
      else if (norm == ">=") r = x >= y;
      else return std::nullopt;
    } else if (a->is_str() && b->is_str()) {
      int c = a->as_str().compare(b->as_str());
      if (norm == "<") r = c < 0;
      else if (norm == "<=") r = c <= 0;
      else if (norm == ">") r = c > 0;
      else if (norm == ">=") r = c >= 0;
      else return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (!r) return ConstValue{false};
    a = b;
  }
  return ConstValue{true};
}

std::optional<ConstValue> ConstEvaluator::subscript(TSNode n) {
  auto subs = field_children(n, "subscript");
  auto base = try_eval(field(n, "value"));
  if (!base) return std::nullopt;
  if (base->is_host_data()) return host_index(*base, subs);
  if (subs.size() != 1) return std::nullopt;
  if (base->is_dict()) {
    auto key = try_eval(subs[0]);
    if (!key) return std::nullopt;
    if (const ConstValue* v = base->as_dict().find(*key)) return *v;
    fail(n, fmt::format("KeyError: {}", key->repr()));
  }
  const bool str = base->is_str();
  if (!base->is_list() && !str) return std::nullopt;
  const int64_t len = str ? int64_t(base->as_str().size()) : int64_t(base->as_list().size());
  if (is(subs[0], "slice")) {
    // start:stop:step, each optional (children in order, separated by ':' tokens).
    std::optional<int64_t> part[3];
    int slot = 0;
    for (uint32_t i = 0; i < ts_node_child_count(subs[0]); ++i) {
      TSNode c = ts_node_child(subs[0], i);
      if (!ts_node_is_named(c)) {
        if (text(c, *file_) == ":") ++slot;
        continue;
      }
      if (slot > 2) return std::nullopt;
      auto v = try_eval(c);
      if (!v || (!is_intlike(*v) && !v->is_none())) return std::nullopt;
      if (!v->is_none()) part[slot] = to_i(*v);
    }
    int64_t step = part[2].value_or(1);
    if (step == 0) fail(n, "slice step cannot be zero");
    auto clamp = [&](std::optional<int64_t> x, int64_t dflt) {
      if (!x) return dflt;
      int64_t i = *x < 0 ? *x + len : *x;
      if (step > 0) return std::clamp<int64_t>(i, 0, len);
      return std::clamp<int64_t>(i, -1, len - 1);
    };
    int64_t start = clamp(part[0], step > 0 ? 0 : len - 1), stop = clamp(part[1], step > 0 ? len : -1);
    ConstList out;
    std::string sout;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (str) sout += base->as_str()[size_t(i)];
      else out.push_back(base->as_list()[size_t(i)]);
    }
    return str ? ConstValue{sout} : ConstValue::of_list(std::move(out));
  }
  auto idx = try_eval(subs[0]);
  if (!idx || !is_intlike(*idx)) return std::nullopt;
  int64_t i = to_i(*idx);
  if (i < 0) i += len;
  if (i < 0 || i >= len) fail(n, str ? "string index out of range" : "tuple index out of range");
  if (str) return ConstValue{std::string(1, base->as_str()[size_t(i)])};
  return base->as_list()[size_t(i)];
}

std::optional<ConstValue> ConstEvaluator::binary(TSNode n) {
  const auto& f = *file_;
  auto a = try_eval(field(n, "left"));
  if (!a) return std::nullopt;
  auto b = try_eval(field(n, "right"));
  if (!b) return std::nullopt;
  std::string op = text(field(n, "operator"), f);
  if (a->is_host_data() || b->is_host_data()) return host_arith(*a, *b, op);
  if (a->is_list() && b->is_list() && op == "+") {
    ConstList l = a->as_list();
    for (const auto& x : b->as_list()) l.push_back(x);
    return ConstValue::of_list(std::move(l));
  }
  if ((a->is_list() || a->is_str()) && is_intlike(*b) && op == "*") {
    const uint64_t unit = a->is_str() ? a->as_str().size() : a->as_list().size();
    if (to_i(*b) > const_budget::kMaxSequence ||
        (to_i(*b) > 0 && unit * uint64_t(to_i(*b)) > uint64_t(const_budget::kMaxSequence)))
      fail(n, "constant sequence repetition is too large");
    if (a->is_str()) {
      std::string s;
      for (int64_t i = 0; i < to_i(*b); ++i) s += a->as_str();
      return ConstValue{s};
    }
    ConstList l;
    for (int64_t i = 0; i < to_i(*b); ++i)
      for (const auto& x : a->as_list()) l.push_back(x);
    return ConstValue::of_list(std::move(l));
  }
  if (a->is_str() && b->is_str() && op == "+") return ConstValue{a->as_str() + b->as_str()};
  if (a->is_dict() && b->is_dict() && op == "|") {
    auto d = std::make_shared<ConstDict>(a->as_dict());
    for (const auto& [k2, v2] : b->as_dict().items) {
      bool replaced = false;
      for (auto& [k1, v1] : d->items)
        if (const_equal(k1, k2)) v1 = v2, replaced = true;
      if (!replaced) d->items.emplace_back(k2, v2);
    }
    return ConstValue{std::shared_ptr<const ConstDict>(d)};
  }
  if (!numeric(*a) || !numeric(*b)) {
    if (a->is_dyn() || b->is_dyn()) return std::nullopt;  // symbolic: not a constant
    fail(n, fmt::format("unsupported operand types for {}: {} and {}", op, a->type_name(), b->type_name()));
  }
  const bool ints = is_intlike(*a) && is_intlike(*b);
  if (op == "/") {
    if (to_f(*b) == 0.0) fail(n, "division by zero in a constant expression");
    return ConstValue{to_f(*a) / to_f(*b)};
  }
  if (ints) {
    int64_t x = to_i(*a), y = to_i(*b), r = 0;
    // Python integers have no bound; pypto's constants are 64-bit, so a result beyond is an error.
    auto overflow = [&]() {
      fail(n, fmt::format("integer overflow in a constant expression: {} {} {} does not fit in 64 bits", x, op, y));
    };
    if (op == "+") {
      if (__builtin_add_overflow(x, y, &r)) overflow();
      return ConstValue{r};
    }
    if (op == "-") {
      if (__builtin_sub_overflow(x, y, &r)) overflow();
      return ConstValue{r};
    }
    if (op == "*") {
      if (__builtin_mul_overflow(x, y, &r)) overflow();
      return ConstValue{r};
    }
    if (op == "//" || op == "%") {
      if (y == 0) fail(n, "division by zero in a constant expression");
      if (y == -1 && x == INT64_MIN) {
        if (op == "//") overflow();
        return ConstValue{int64_t(0)};
      }
      return ConstValue{op == "//" ? ir::floor_div(x, y) : ir::floor_mod(x, y)};
    }
    if (op == "**") {
      if (y < 0) return ConstValue{std::pow(double(x), double(y))};
      if (x == 0 || x == 1) return ConstValue{y == 0 ? int64_t(1) : x};  // y may be huge here
      if (x == -1) return ConstValue{y % 2 ? int64_t(-1) : int64_t(1)};
      if (y >= 64) overflow();  // |x| >= 2
      r = 1;
      for (int64_t i = 0; i < y; ++i)
        if (__builtin_mul_overflow(r, x, &r)) overflow();
      return ConstValue{r};
    }
    if ((op == "<<" || op == ">>") && y < 0) fail(n, "negative shift count in a constant expression");
    if (op == "<<") {
      if (x == 0) return ConstValue{int64_t(0)};
      if (y >= 64) overflow();
      r = int64_t(uint64_t(x) << y);
      if ((r >> y) != x) overflow();
      return ConstValue{r};
    }
    if (op == ">>") return ConstValue{y >= 64 ? (x < 0 ? int64_t(-1) : int64_t(0)) : x >> y};
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

std::optional<ConstValue> ConstEvaluator::attribute(TSNode n) {
  const auto& f = *file_;
  const std::string attr = text(field(n, "attribute"), f);
  TSNode on = unparen(field(n, "object"));
  auto obj = try_eval(on);
  if (!obj && is(on, "identifier")) obj = builtin(text(on, f), Args{}, TSNode{});  // pl, math, dataclasses
  if (!obj) return std::nullopt;
  if (obj->is_host_data()) return host_attribute(*obj, attr);
  if (obj->is_module()) return std::get<ConstModuleRef>(obj->v).env->global(attr, field(n, "attribute"));
  if (obj->is_builtin()) {
    const std::string& ns = std::get<ConstBuiltin>(obj->v).name;
    if (ns == "pl") {
      if (auto dt = ir::dtype_from_name(attr)) return ConstValue{*dt};
      if (attr == "dynamic") return ConstValue{ConstBuiltin{"pl.dynamic"}};
      return std::nullopt;  // pl.Level.X, pl.FunctionType.Y …: not constants of the evaluator
    }
    if (ns == "torch") {  // spec functions: torch.float32 → FP32; anything else stays opaque
      static const std::map<std::string, ir::DataType> kTorch = {
          {"float32", ir::DataType::FP32}, {"float", ir::DataType::FP32},    {"float16", ir::DataType::FP16},
          {"half", ir::DataType::FP16},    {"bfloat16", ir::DataType::BF16}, {"int8", ir::DataType::INT8},
          {"int16", ir::DataType::INT16},  {"int32", ir::DataType::INT32},   {"int", ir::DataType::INT32},
          {"int64", ir::DataType::INT64},  {"long", ir::DataType::INT64},    {"uint8", ir::DataType::UINT8},
          {"bool", ir::DataType::BOOL}};
      if (auto it = kTorch.find(attr); it != kTorch.end()) return ConstValue{it->second};
      return ConstValue{ConstBuiltin{"torch." + attr}};
    }
    if (ns == "math") {
      if (attr == "pi") return ConstValue{M_PI};
      if (attr == "e") return ConstValue{M_E};
      if (attr == "inf") return ConstValue{INFINITY};
      if (attr == "nan") return ConstValue{NAN};
    }
    if (ns == "math" || ns == "dataclasses" || ns == "functools" || ns == "operator")
      return ConstValue{ConstBuiltin{ns + "." + attr}};
    return std::nullopt;
  }
  if (obj->is_object()) {
    const ConstObject& o = obj->as_object();
    if (const ConstValue* v = o.field(attr)) return *v;
    if (o.cls->properties.count(attr)) {
      ConstFunction m{o.cls->name + "." + attr, o.cls->env, o.cls->methods.at(attr), nullptr, {}};
      return invoke(m, Args{}, n, &*obj);
    }
    if (auto it = o.cls->class_vars.find(attr); it != o.cls->class_vars.end()) {
      ConstEvaluator ev(o.cls->env->env_file(),
                        [env = o.cls->env, def = o.cls->node](const std::string& nm, TSNode at) {
                          return env->global_as_of(nm, at, def);
                        },
                        o.cls->env);
      return ev.try_eval(it->second);
    }
    if (o.cls->methods.count(attr)) return std::nullopt;  // a bound method: only as a call's callee
    fail(field(n, "attribute"), fmt::format("'{}' object has no attribute '{}'", o.cls->name, attr));
  }
  if (obj->is_class()) {
    const ConstClass* c = std::get<const ConstClass*>(obj->v);
    if (auto it = c->class_vars.find(attr); it != c->class_vars.end()) {
      ConstEvaluator ev(c->env->env_file(),
                        [env = c->env, def = c->node](const std::string& nm, TSNode at) {
                          return env->global_as_of(nm, at, def);
                        },
                        c->env);
      return ev.try_eval(it->second);
    }
    return std::nullopt;
  }
  if (obj->is_dtype() && attr == "bits") return ConstValue{int64_t(ir::dtype_bits(std::get<ir::DataType>(obj->v)))};
  return std::nullopt;
}

ConstValue eval_expression_text(const std::string& src, const std::string& origin, ConstLookup lookup, ConstEnv* env) {
  auto file = std::make_shared<const ir::SourceFile>(origin, src);
  CstTree tree(file);
  TSNode root = tree.root();
  auto stmts = children(root);
  if (ts_node_has_error(root) || stmts.size() != 1 || !is(stmts[0], "expression_statement") ||
      children(stmts[0]).size() != 1)
    throw ir::CompileError("E304", ir::Span{}, fmt::format("{}: '{}' is not a Python expression", origin, src));
  ConstEvaluator ev(file, std::move(lookup), env);
  std::optional<ConstValue> v;
  try {
    v = ev.try_eval(children(stmts[0])[0]);
  } catch (const ir::CompileError& e) {
    // The span points into the -D text, which has no file to show: say where it came from.
    throw ir::CompileError("E304", ir::Span{}, fmt::format("{}: {}", origin, e.diagnostics().front().message));
  }
  if (!v)
    throw ir::CompileError("E304", ir::Span{},
                           fmt::format("{}: '{}' is not a compile-time constant", origin, src),
                           "use a literal, e.g. -D N=128, -D SHAPE=(64, 128) or -D MODE='\"pro\"'");
  return *v;
}

}  // namespace pypto::parser
