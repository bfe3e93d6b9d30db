// Calls inside the constant evaluator (see const_eval.h): builtins, comprehensions, dataclass
// construction and `dataclasses.replace`; function bodies are interpreted in const_body.cpp.
// Budgets (const_budget.h) bound recursion depth, loop steps and sequence sizes, so a config that
// would not terminate is a diagnostic, not a hang.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "ir/diagnostic.h"
#include "parser/const_budget.h"
#include "parser/const_eval.h"

namespace pypto::parser {

namespace {

thread_local int g_host_specs = 0;

bool numeric(const ConstValue& v) { return const_numeric(v); }
double to_f(const ConstValue& v) { return const_to_f(v); }
int64_t to_i(const ConstValue& v) { return const_to_i(v); }
bool is_intlike(const ConstValue& v) { return const_intlike(v); }

const std::set<std::string>& builtin_names() {
  static const std::set<std::string> names = {
      "min", "max", "abs", "len", "int", "float", "bool", "str", "round", "sum", "range", "tuple", "list",
      "dict", "sorted", "any", "all", "zip", "enumerate", "reversed", "divmod", "isinstance", "pow"};
  return names;
}

}  // namespace

HostSpecScope::HostSpecScope() { ++g_host_specs; }
HostSpecScope::~HostSpecScope() { --g_host_specs; }
bool HostSpecScope::active() { return g_host_specs > 0; }

std::optional<ConstValue> ConstEvaluator::spec_record(TSNode n, const std::string& kind) {
  const auto& f = *file_;
  // TensorSpec(name, shape, dtype, ...) / ScalarSpec(name, dtype, value): only these slots and
  // is_output= are read; init_value= and the other host-side arguments are never evaluated.
  const std::vector<std::string> slots = kind == "TensorSpec" ? std::vector<std::string>{"name", "shape", "dtype"}
                                                              : std::vector<std::string>{"name", "dtype", "value"};
  auto d = std::make_shared<ConstDict>();
  d->items.emplace_back(ConstValue{std::string("__spec__")}, ConstValue{kind});
  size_t pos = 0;
  for (TSNode a : children(field(n, "arguments"))) {
    std::string key;
    TSNode val = a;
    if (is(a, "keyword_argument")) {
      key = text(field(a, "name"), f);
      val = field(a, "value");
    } else if (pos < slots.size()) {
      key = slots[pos++];
    } else {
      continue;
    }
    if (std::find(slots.begin(), slots.end(), key) == slots.end() && key != "is_output") continue;
    auto v = try_eval(val);
    if (!v) fail(val, fmt::format("{}() argument '{}' is not a compile-time constant: '{}'", kind, key, text(val, f)),
                 "pypto reads spec functions statically: shapes, dtypes and scalar values must be constants");
    d->items.emplace_back(ConstValue{key}, *v);
  }
  return ConstValue{std::shared_ptr<const ConstDict>(d)};
}

std::optional<ConstValue> ConstEvaluator::call(TSNode n) {
  const auto& f = *file_;
  TSNode fnode = field(n, "function");
  if (g_host_specs) {
    std::string callee = dotted_name(fnode, f);
    callee = callee.substr(callee.rfind('.') == std::string::npos ? 0 : callee.rfind('.') + 1);
    if (callee == "TensorSpec" || callee == "ScalarSpec") return spec_record(n, callee);
  }
  // Collect the arguments first (a generator argument `sum(x for x in ...)` is one positional).
  Args args;
  TSNode argn = field(n, "arguments");
  if (is(argn, "generator_expression")) {
    auto v = try_eval(argn);
    if (!v) return std::nullopt;
    args.pos.push_back(*v);
  } else {
    for (TSNode a : children(argn)) {
      if (is(a, "keyword_argument")) {
        auto v = try_eval(field(a, "value"));
        if (!v) return std::nullopt;
        args.kw.emplace_back(text(field(a, "name"), f), *v);
      } else if (is(a, "list_splat")) {
        auto v = children(a).empty() ? std::nullopt : try_eval(children(a)[0]);
        auto items = v ? const_iterate(*v) : std::nullopt;
        if (!items) return std::nullopt;
        args.pos.insert(args.pos.end(), items->begin(), items->end());
      } else if (is(a, "dictionary_splat")) {
        auto v = children(a).empty() ? std::nullopt : try_eval(children(a)[0]);
        if (!v || !v->is_dict()) return std::nullopt;
        for (const auto& [k, val] : v->as_dict().items) {
          if (!k.is_str()) return std::nullopt;
          args.kw.emplace_back(k.as_str(), val);
        }
      } else {
        auto v = try_eval(a);
        if (!v) return std::nullopt;
        args.pos.push_back(*v);
      }
    }
  }
  // obj.method(...) on a dataclass instance: the method with `self` bound.
  if (is(fnode, "attribute")) {
    TSNode on = unparen(field(fnode, "object"));
    auto obj = try_eval(on);
    if (!obj && is(on, "identifier")) obj = builtin(text(on, f), Args{}, TSNode{});
    if (!obj) return std::nullopt;
    const std::string attr = text(field(fnode, "attribute"), f);
    if (obj->is_host_data()) return host_method(*obj, attr, args, n);
    if (obj->is_object()) {
      const ConstObject& o = obj->as_object();
      if (auto it = o.cls->methods.find(attr); it != o.cls->methods.end() && !o.cls->properties.count(attr) &&
                                               !o.field(attr)) {
        ConstFunction m{o.cls->name + "." + attr, o.cls->env, it->second, nullptr, {}};
        return invoke(m, args, n, &*obj);
      }
    }
    if (obj->is_dict() && (attr == "get" || attr == "keys" || attr == "values" || attr == "items")) {
      const ConstDict& d = obj->as_dict();
      if (attr == "get") {
        if (args.pos.empty() || args.pos.size() > 2) return std::nullopt;
        if (const ConstValue* v = d.find(args.pos[0])) return *v;
        return args.pos.size() == 2 ? args.pos[1] : ConstValue{ConstValue::None{}};
      }
      ConstList out;
      for (const auto& [k, v] : d.items)
        out.push_back(attr == "keys" ? k : attr == "values" ? v : ConstValue::of_list({k, v}));
      return ConstValue::of_list(std::move(out));
    }
    if (obj->is_list() && (attr == "count" || attr == "index") && args.pos.size() == 1 && args.kw.empty()) {
      const ConstList& l = obj->as_list();
      int64_t hits = 0;
      for (size_t i = 0; i < l.size(); ++i)
        if (const_equal(l[i], args.pos[0])) {
          if (attr == "index") return ConstValue{int64_t(i)};
          ++hits;
        }
      if (attr == "index") fail(n, fmt::format("{} is not in the sequence", args.pos[0].repr()));
      return ConstValue{hits};
    }
    if (obj->is_str() && (attr == "upper" || attr == "lower") && args.pos.empty()) {
      std::string s = obj->as_str();
      for (char& c : s) c = char(attr == "upper" ? std::toupper(c) : std::tolower(c));
      return ConstValue{s};
    }
  }
  auto callee = try_eval(fnode);
  if (!callee && is(unparen(fnode), "identifier")) callee = builtin(text(unparen(fnode), f), Args{}, TSNode{});
  if (!callee) return std::nullopt;
  return apply(*callee, args, n);
}

std::optional<ConstValue> ConstEvaluator::apply(const ConstValue& callee, const Args& args, TSNode at) {
  if (callee.is_builtin()) return builtin(std::get<ConstBuiltin>(callee.v).name, args, at);
  if (callee.is_class()) return construct(*std::get<const ConstClass*>(callee.v), args, at);
  if (callee.is_function()) return invoke(*std::get<const ConstFunction*>(callee.v), args, at);
  return std::nullopt;
}

std::optional<ConstValue> ConstEvaluator::builtin(const std::string& fn, const Args& args, TSNode at) {
  // Without a call site (`at` null) this is a name lookup: the builtin's own value.
  if (ts_node_is_null(at)) {
    if (builtin_names().count(fn)) return ConstValue{ConstBuiltin{fn}};
    if (fn == "pl" || fn == "math" || fn == "dataclasses") return ConstValue{ConstBuiltin{fn}};
    if (fn == "torch" && g_host_specs) return ConstValue{ConstBuiltin{fn}};
    return std::nullopt;
  }
  const auto& p = args.pos;
  if (g_host_specs && fn.rfind("torch.", 0) == 0) return torch_call(fn.substr(6), args, at);
  if (g_host_specs && std::any_of(p.begin(), p.end(), [](const ConstValue& v) { return v.is_host_data(); })) {
    // int(t.item()), min(n, t.shape[0]) …: a host value stays one; len(t) is its first dimension.
    if (fn == "len" && p.size() == 1 && p[0].is_host_tensor() && !p[0].as_host_tensor().shape.empty())
      return p[0].as_host_tensor().shape[0];
    if (fn == "int" || fn == "float" || fn == "abs" || fn == "round" || fn == "min" || fn == "max" || fn == "bool")
      return ConstValue{ConstHostUnknown{}};
    return std::nullopt;
  }
  auto need = [&](size_t lo, size_t hi) {
    if (p.size() < lo || p.size() > hi || !args.kw.empty()) fail(at, fmt::format("{}() got the wrong arguments", fn));
  };
  if (fn == "pl.dynamic") {
    if (p.size() != 1 || !p[0].is_str()) fail(at, "pl.dynamic() takes one string literal");
    if (!env_) return std::nullopt;
    return ConstValue{env_->dynamic_symbol(p[0].as_str(), span_of(at, file_))};
  }
  if (fn == "min" || fn == "max") {
    ConstList vals = p;
    if (vals.size() == 1) {
      auto items = const_iterate(vals[0]);
      if (!items) return std::nullopt;
      vals = *items;
    }
    if (vals.empty()) {
      for (const auto& [k, v] : args.kw)
        if (k == "default") return v;
      fail(at, fn + "() arg is an empty sequence");
    }
    ConstValue best = vals[0];
    for (size_t i = 1; i < vals.size(); ++i) {
      if (!numeric(vals[i]) || !numeric(best)) {
        if (vals[i].is_dyn() || best.is_dyn()) return std::nullopt;
        fail(at, fn + "() of non-numbers");
      }
      bool better = fn == "min" ? to_f(vals[i]) < to_f(best) : to_f(vals[i]) > to_f(best);
      if (better) best = vals[i];
    }
    return best;
  }
  if (fn == "abs") {
    need(1, 1);
    if (p[0].is_float()) return ConstValue{std::fabs(p[0].as_float())};
    if (is_intlike(p[0])) return ConstValue{std::abs(to_i(p[0]))};
    if (p[0].is_dyn()) return std::nullopt;
    fail(at, "bad operand type for abs()");
  }
  if (fn == "len") {
    need(1, 1);
    if (p[0].is_list()) return ConstValue{int64_t(p[0].as_list().size())};
    if (p[0].is_str()) return ConstValue{int64_t(p[0].as_str().size())};
    if (p[0].is_dict()) return ConstValue{int64_t(p[0].as_dict().items.size())};
    fail(at, fmt::format("object of type '{}' has no len()", p[0].type_name()));
  }
  if (fn == "int" || fn == "float" || fn == "bool" || fn == "str") {
    if (p.empty()) return fn == "int" ? ConstValue{int64_t(0)} : fn == "float" ? ConstValue{0.0}
                          : fn == "bool" ? ConstValue{false} : ConstValue{std::string()};
    need(1, 1);
    if (fn == "str") return ConstValue{p[0].is_str() ? p[0].as_str() : p[0].repr()};
    if (fn == "bool") return ConstValue{const_truthy(p[0])};
    if (p[0].is_str()) {
      try {
        if (fn == "int") return ConstValue{int64_t(std::stoll(p[0].as_str()))};
        return ConstValue{std::stod(p[0].as_str())};
      } catch (const std::exception&) {
        fail(at, fmt::format("invalid literal for {}(): {}", fn, p[0].repr()));
      }
    }
    if (!numeric(p[0])) return std::nullopt;
    if (fn == "int") return ConstValue{p[0].is_float() ? int64_t(std::trunc(p[0].as_float())) : to_i(p[0])};
    return ConstValue{to_f(p[0])};
  }
  if (fn == "round") {
    need(1, 2);
    if (!numeric(p[0])) return std::nullopt;
    if (p.size() == 1) return ConstValue{int64_t(std::nearbyint(to_f(p[0])))};  // banker's rounding
    double scale = std::pow(10.0, double(to_i(p[1])));
    return ConstValue{std::nearbyint(to_f(p[0]) * scale) / scale};
  }
  if (fn == "pow" || fn == "divmod") {
    need(2, 2);
    if (!numeric(p[0]) || !numeric(p[1])) return std::nullopt;
    if (fn == "pow") {
      if (is_intlike(p[0]) && is_intlike(p[1]) && to_i(p[1]) >= 0) {
        int64_t r = 1;
        for (int64_t i = 0; i < to_i(p[1]) && r != 0; ++i) r *= to_i(p[0]);
        return ConstValue{r};
      }
      return ConstValue{std::pow(to_f(p[0]), to_f(p[1]))};
    }
    if (!is_intlike(p[0]) || !is_intlike(p[1])) return std::nullopt;
    if (to_i(p[1]) == 0) fail(at, "integer division or modulo by zero");
    return ConstValue::of_list({ConstValue{ir::floor_div(to_i(p[0]), to_i(p[1]))},
                                ConstValue{ir::floor_mod(to_i(p[0]), to_i(p[1]))}});
  }
  if (fn == "range") {
    need(1, 3);
    for (const auto& x : p)
      if (!is_intlike(x)) return std::nullopt;
    int64_t start = p.size() == 1 ? 0 : to_i(p[0]), stop = p.size() == 1 ? to_i(p[0]) : to_i(p[1]);
    int64_t step = p.size() == 3 ? to_i(p[2]) : 1;
    if (step == 0) fail(at, "range() arg 3 must not be zero");
    ConstList out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (int64_t(out.size()) >= const_budget::kMaxSequence)
        fail(at, "range() is too long for compile-time evaluation");
      out.push_back(ConstValue{i});
    }
    return ConstValue::of_list(std::move(out));
  }
  if (fn == "tuple" || fn == "list" || fn == "sorted" || fn == "reversed") {
    if (p.empty()) return ConstValue::of_list({});
    auto items = const_iterate(p[0]);
    if (!items) return std::nullopt;
    if (fn == "reversed") std::reverse(items->begin(), items->end());
    if (fn == "sorted") {
      for (const auto& x : *items)
        if (!numeric(x) && !x.is_str()) return std::nullopt;
      std::stable_sort(items->begin(), items->end(), [](const ConstValue& a, const ConstValue& b) {
        if (a.is_str() && b.is_str()) return a.as_str() < b.as_str();
        return numeric(a) && numeric(b) && to_f(a) < to_f(b);
      });
      for (const auto& [k, v] : args.kw)
        if (k == "reverse" && const_truthy(v)) std::reverse(items->begin(), items->end());
    }
    return ConstValue::of_list(std::move(*items));
  }
  if (fn == "dict") {
    auto d = std::make_shared<ConstDict>();
    if (!p.empty()) {
      if (p[0].is_dict()) *d = p[0].as_dict();
      else return std::nullopt;
    }
    for (const auto& [k, v] : args.kw) d->items.emplace_back(ConstValue{k}, v);
    return ConstValue{std::shared_ptr<const ConstDict>(d)};
  }
  if (fn == "sum") {
    need(1, 2);
    auto items = const_iterate(p[0]);
    if (!items) return std::nullopt;
    ConstValue acc = p.size() == 2 ? p[1] : ConstValue{int64_t(0)};
    for (const auto& x : *items) {
      if (!numeric(x) || !numeric(acc)) return std::nullopt;
      if (is_intlike(x) && is_intlike(acc)) acc = ConstValue{to_i(acc) + to_i(x)};
      else acc = ConstValue{to_f(acc) + to_f(x)};
    }
    return acc;
  }
  if (fn == "any" || fn == "all") {
    need(1, 1);
    auto items = const_iterate(p[0]);
    if (!items) return std::nullopt;
    bool r = fn == "all";
    for (const auto& x : *items) r = fn == "all" ? r && const_truthy(x) : r || const_truthy(x);
    return ConstValue{r};
  }
  if (fn == "zip") {
    std::vector<ConstList> seqs;
    for (const auto& x : p) {
      auto items = const_iterate(x);
      if (!items) return std::nullopt;
      seqs.push_back(*items);
    }
    size_t n = seqs.empty() ? 0 : seqs[0].size();
    for (const auto& s : seqs) n = std::min(n, s.size());
    ConstList out;
    for (size_t i = 0; i < n; ++i) {
      ConstList row;
      for (const auto& s : seqs) row.push_back(s[i]);
      out.push_back(ConstValue::of_list(std::move(row)));
    }
    return ConstValue::of_list(std::move(out));
  }
  if (fn == "enumerate") {
    if (p.empty()) return std::nullopt;
    auto items = const_iterate(p[0]);
    if (!items) return std::nullopt;
    int64_t start = p.size() > 1 && is_intlike(p[1]) ? to_i(p[1]) : 0;
    ConstList out;
    for (size_t i = 0; i < items->size(); ++i)
      out.push_back(ConstValue::of_list({ConstValue{start + int64_t(i)}, (*items)[i]}));
    return ConstValue::of_list(std::move(out));
  }
  if (fn == "isinstance") {
    need(2, 2);
    if (!p[1].is_builtin() && !p[1].is_class()) return std::nullopt;
    if (p[1].is_class()) return ConstValue{p[0].is_object() && p[0].as_object().cls == std::get<const ConstClass*>(p[1].v)};
    const std::string& t = std::get<ConstBuiltin>(p[1].v).name;
    bool r = t == "int" ? p[0].is_int() || p[0].is_bool() : t == "float" ? p[0].is_float()
             : t == "bool" ? p[0].is_bool() : t == "str" ? p[0].is_str()
             : (t == "tuple" || t == "list") ? p[0].is_list() : t == "dict" ? p[0].is_dict() : false;
    return ConstValue{r};
  }
  if (fn == "dataclasses.replace" || fn == "replace") {
    if (p.size() != 1 || !p[0].is_object()) return std::nullopt;
    Args a;
    for (const auto& field : p[0].as_object().fields) {
      const auto& k = field.first;  // not a structured binding: clang < 16 cannot capture one in a lambda
      auto it = std::find_if(args.kw.begin(), args.kw.end(), [&](const auto& kv) { return kv.first == k; });
      a.kw.emplace_back(k, it == args.kw.end() ? field.second : it->second);
    }
    for (const auto& [k, v] : args.kw)
      if (!p[0].as_object().field(k)) fail(at, fmt::format("replace() got an unexpected field '{}'", k));
    return construct(*p[0].as_object().cls, a, at);
  }
  if (fn.rfind("math.", 0) == 0) {
    const std::string m = fn.substr(5);
    for (const auto& x : p)
      if (!numeric(x)) return std::nullopt;
    if ((m == "ceil" || m == "floor" || m == "trunc") && p.size() == 1) {
      double x = to_f(p[0]);
      return ConstValue{int64_t(m == "ceil" ? std::ceil(x) : m == "floor" ? std::floor(x) : std::trunc(x))};
    }
    if ((m == "sqrt" || m == "log2" || m == "log10" || m == "exp" || m == "log") && (p.size() == 1 || m == "log")) {
      double x = to_f(p[0]);
      if (m == "sqrt") return ConstValue{std::sqrt(x)};
      if (m == "log2") return ConstValue{std::log2(x)};
      if (m == "log10") return ConstValue{std::log10(x)};
      if (m == "exp") return ConstValue{std::exp(x)};
      return ConstValue{p.size() == 2 ? std::log(x) / std::log(to_f(p[1])) : std::log(x)};
    }
    if ((m == "gcd" || m == "lcm") && p.size() == 2 && is_intlike(p[0]) && is_intlike(p[1]))
      return ConstValue{m == "gcd" ? std::gcd(to_i(p[0]), to_i(p[1])) : std::lcm(to_i(p[0]), to_i(p[1]))};
    if (m == "isqrt" && p.size() == 1 && is_intlike(p[0]))
      return ConstValue{int64_t(std::floor(std::sqrt(double(to_i(p[0])))))};
    if (m == "prod" && p.size() == 1) return std::nullopt;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<ConstValue> ConstEvaluator::comprehension(TSNode n) {
  const const_budget::ComprehensionScope scope;
  const auto& f = *file_;
  TSNode body = field(n, "body");
  std::vector<TSNode> clauses;
  for (TSNode c : children(n))
    if (is(c, "for_in_clause") || is(c, "if_clause")) clauses.push_back(c);
  std::map<std::string, ConstValue> locals;
  ConstEvaluator inner(file_, [&](const std::string& name, TSNode at) -> std::optional<ConstValue> {
    if (auto it = locals.find(name); it != locals.end()) return it->second;
    return lookup_(name, at);
  }, env_);
  ConstList out;
  auto d = std::make_shared<ConstDict>();
  const bool is_dict = is(n, "dictionary_comprehension");
  auto bind = [&](TSNode t, const ConstValue& v) { return bind_target(t, v, f, locals); };
  std::function<bool(size_t)> run = [&](size_t ci) -> bool {
    if (++const_budget::steps > const_budget::kMaxSteps) fail(n, "constant evaluation takes too many steps");
    if (ci == clauses.size()) {
      if (is_dict) {
        auto k = inner.try_eval(field(body, "key"));
        auto v = k ? inner.try_eval(field(body, "value")) : std::nullopt;
        if (!v) return false;
        d->items.emplace_back(*k, *v);
        return true;
      }
      auto v = inner.try_eval(body);
      if (!v) return false;
      out.push_back(*v);
      return true;
    }
    TSNode c = clauses[ci];
    if (is(c, "if_clause")) {
      auto cond = children(c).empty() ? std::nullopt : inner.try_eval(children(c)[0]);
      if (!cond) return false;
      return const_truthy(*cond) ? run(ci + 1) : true;
    }
    auto seq = inner.try_eval(field(c, "right"));
    auto items = seq ? const_iterate(*seq) : std::nullopt;
    if (!items) return false;
    for (const auto& x : *items) {
      if (!bind(field(c, "left"), x)) return false;
      if (!run(ci + 1)) return false;
    }
    return true;
  };
  if (!run(0)) return std::nullopt;
  if (is_dict) return ConstValue{std::shared_ptr<const ConstDict>(d)};
  return ConstValue::of_list(std::move(out));
}

std::optional<ConstValue> ConstEvaluator::construct(const ConstClass& cls, const Args& args, TSNode at) {
  if (!cls.dataclass) return std::nullopt;  // plain classes with __init__ are not modelled
  auto obj = std::make_shared<ConstObject>();
  obj->cls = &cls;
  if (args.pos.size() > cls.fields.size())
    fail(at, fmt::format("{}() takes {} positional arguments but {} were given", cls.name, cls.fields.size(),
                         args.pos.size()));
  for (const auto& kw : args.kw) {
    const auto& k = kw.first;  // not a structured binding: clang < 16 cannot capture one in a lambda
    if (std::none_of(cls.fields.begin(), cls.fields.end(), [&](const auto& fd) { return fd.name == k; }))
      fail(at, fmt::format("{}() got an unexpected keyword argument '{}'", cls.name, k));
  }
  ConstEvaluator defaults(cls.env->env_file(),
                          [env = cls.env, def = cls.node](const std::string& nm, TSNode a) {
                            return env->global_as_of(nm, a, def);
                          },
                          cls.env);
  for (size_t i = 0; i < cls.fields.size(); ++i) {
    const auto& fd = cls.fields[i];
    std::optional<ConstValue> v;
    if (i < args.pos.size()) v = args.pos[i];
    for (const auto& [k, kv] : args.kw)
      if (k == fd.name) v = kv;
    if (!v && !ts_node_is_null(fd.default_value)) {
      v = defaults.try_eval(fd.default_value);
      if (!v) return std::nullopt;
    }
    if (!v) fail(at, fmt::format("{}() missing required argument: '{}'", cls.name, fd.name));
    obj->fields.emplace_back(fd.name, *v);
  }
  return ConstValue{std::shared_ptr<const ConstObject>(obj)};
}

}  // namespace pypto::parser
