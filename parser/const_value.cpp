// Printing, equality and truthiness of compile-time constants (see const_value.h).
#include "parser/const_value.h"

#include <cmath>
#include <fmt/format.h>

#include "parser/module_scan.h"

namespace pypto::parser {

namespace {

std::string fmt_float(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

bool numeric(const ConstValue& v) { return const_numeric(v); }
double to_f(const ConstValue& v) { return const_to_f(v); }

}  // namespace

bool bind_target(TSNode t, const ConstValue& v, const ir::SourceFile& f, std::map<std::string, ConstValue>& locals) {
  t = unparen(t);
  if (is(t, "identifier")) {
    locals[text(t, f)] = v;
    return true;
  }
  if (is(t, "pattern_list") || is(t, "tuple_pattern") || is(t, "tuple") || is(t, "list_pattern") ||
      is(t, "expression_list")) {
    if (!v.is_list()) return false;
    const auto& items = v.as_list();
    auto ts = children(t);
    if (items.size() != ts.size()) return false;
    for (size_t i = 0; i < ts.size(); ++i)
      if (!bind_target(ts[i], items[i], f, locals)) return false;
    return true;
  }
  return false;
}

std::string ConstValue::repr() const {
  if (is_none()) return "None";
  if (is_int()) return std::to_string(as_int());
  if (is_float()) return fmt_float(as_float());
  if (is_bool()) return std::get<bool>(v) ? "True" : "False";
  if (is_str()) return "'" + as_str() + "'";
  if (is_dyn()) return std::get<ir::VarPtr>(v)->name;
  if (is_dtype()) return "pl." + std::string(ir::dtype_name(std::get<ir::DataType>(v)));
  if (is_class()) return fmt::format("<class '{}'>", std::get<const ConstClass*>(v)->name);
  if (is_function()) return fmt::format("<function {}>", std::get<const ConstFunction*>(v)->name);
  if (is_module()) return fmt::format("<module '{}'>", std::get<ConstModuleRef>(v).env->module_name());
  if (is_builtin()) return fmt::format("<built-in {}>", std::get<ConstBuiltin>(v).name);
  if (is_dsl_function()) return fmt::format("<DSL function {}>", as_dsl_function().decl.name);
  if (is_host_unknown()) return "<value known only when the host script runs>";
  if (is_host_tensor()) {
    std::string dims;
    for (const auto& d : as_host_tensor().shape) dims += (dims.empty() ? "" : ", ") + (d.is_int() ? d.repr() : "?");
    return fmt::format("tensor(shape=[{}], dtype={})", dims, ir::dtype_name(as_host_tensor().dtype));
  }
  if (is_object()) {
    const auto& o = as_object();
    std::string s = o.cls->name + "(";
    for (size_t i = 0; i < o.fields.size(); ++i) s += fmt::format("{}{}={}", i ? ", " : "", o.fields[i].first, o.fields[i].second.repr());
    return s + ")";
  }
  if (is_dict()) {
    std::string s = "{";
    const auto& d = as_dict();
    for (size_t i = 0; i < d.items.size(); ++i)
      s += fmt::format("{}{}: {}", i ? ", " : "", d.items[i].first.repr(), d.items[i].second.repr());
    return s + "}";
  }
  std::string s = "(";
  const auto& l = as_list();
  for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + l[i].repr();
  if (l.size() == 1) s += ",";
  return s + ")";
}

std::string ConstValue::type_name() const {
  if (is_none()) return "NoneType";
  if (is_int()) return "int";
  if (is_float()) return "float";
  if (is_bool()) return "bool";
  if (is_str()) return "str";
  if (is_list()) return "tuple";
  if (is_dyn()) return "pl.dynamic symbol";
  if (is_dtype()) return "pl.DataType";
  if (is_object()) return as_object().cls->name;
  if (is_class()) return "type";
  if (is_function()) return "function";
  if (is_dsl_function()) return "DSL function";
  if (is_module()) return "module";
  if (is_dict()) return "dict";
  if (is_host_tensor()) return "torch.Tensor";
  if (is_host_unknown()) return "host value";
  return "builtin_function";
}

const ConstValue* ConstDict::find(const ConstValue& key) const {
  for (const auto& [k, v] : items)
    if (const_equal(k, key)) return &v;
  return nullptr;
}

bool const_equal(const ConstValue& a, const ConstValue& b) {
  if (numeric(a) && numeric(b)) return to_f(a) == to_f(b);
  if (a.is_list() && b.is_list()) {
    const auto &x = a.as_list(), &y = b.as_list();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!const_equal(x[i], y[i])) return false;
    return true;
  }
  if (a.is_object() && b.is_object()) {
    const auto &x = a.as_object(), &y = b.as_object();
    if (x.cls != y.cls || x.fields.size() != y.fields.size()) return false;
    for (size_t i = 0; i < x.fields.size(); ++i)
      if (!const_equal(x.fields[i].second, y.fields[i].second)) return false;
    return true;
  }
  if (a.is_dict() && b.is_dict()) {
    const auto &x = a.as_dict(), &y = b.as_dict();
    if (x.items.size() != y.items.size()) return false;
    for (const auto& [k, v] : x.items) {
      const ConstValue* o = y.find(k);
      if (!o || !const_equal(v, *o)) return false;
    }
    return true;
  }
  if (a.is_dsl_function() && b.is_dsl_function()) {
    const auto &x = a.as_dsl_function(), &y = b.as_dsl_function();
    return x.sibling == y.sibling && same_dsl_function(x.decl, y.decl);
  }
  if (a.is_host_unknown() || b.is_host_unknown()) return false;
  return a.v == b.v;
}

bool const_truthy(const ConstValue& v) {
  if (v.is_bool()) return std::get<bool>(v.v);
  if (v.is_int()) return v.as_int() != 0;
  if (v.is_float()) return v.as_float() != 0.0;
  if (v.is_str()) return !v.as_str().empty();
  if (v.is_list()) return !v.as_list().empty();
  if (v.is_dict()) return !v.as_dict().items.empty();
  if (v.is_none()) return false;
  return true;
}

}  // namespace pypto::parser
