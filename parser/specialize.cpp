// Parsing the jit specialisation flags (see specialize.h).
#include "parser/specialize.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace pypto::parser {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

[[noreturn]] void bad(const std::string& param, const std::string& spec, const std::string& why) {
  throw ir::CompileError("E107", ir::Span{}, fmt::format("--arg {}={}: {}", param, spec, why),
                         "write --arg NAME=DTYPE[d0,d1,...], e.g. --arg x=FP32[64,128]; a dimension is an integer, "
                         "a module constant, ? (dynamic) or a dynamic-dimension name");
}

}  // namespace

std::optional<ir::DataType> spec_dtype(const std::string& raw) {
  std::string n = raw;
  if (n.rfind("pl.", 0) == 0) n = n.substr(3);
  if (n.rfind("torch.", 0) == 0) n = n.substr(6);
  std::string up = n;
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  if (auto dt = ir::dtype_from_name(up)) return dt;
  static const std::map<std::string, ir::DataType> kTorch = {
      {"FLOAT32", ir::DataType::FP32}, {"FLOAT", ir::DataType::FP32},    {"FLOAT16", ir::DataType::FP16},
      {"HALF", ir::DataType::FP16},    {"BFLOAT16", ir::DataType::BF16}, {"INT", ir::DataType::INT32},
      {"LONG", ir::DataType::INT64},   {"SHORT", ir::DataType::INT16},   {"UINT", ir::DataType::UINT32}};
  if (auto it = kTorch.find(up); it != kTorch.end()) return it->second;
  return std::nullopt;
}

ir::TypePtr parse_arg_spec(const std::string& param, const std::string& spec, ModuleInfo& mod) {
  const std::string s = trim(spec);
  auto lb = s.find('[');
  if (lb == std::string::npos || s.back() != ']') bad(param, spec, "expected DTYPE[d0,d1,...]");
  const std::string dname = trim(s.substr(0, lb));
  auto dt = spec_dtype(dname);
  if (!dt) bad(param, spec, fmt::format("unknown dtype '{}'", dname));
  std::vector<ir::ExprPtr> dims;
  std::string body = s.substr(lb + 1, s.size() - lb - 2);
  if (trim(body).empty()) bad(param, spec, "a tensor needs at least one dimension");
  size_t i = 0;
  for (size_t b = 0; b <= body.size();) {
    size_t e = body.find(',', b);
    if (e == std::string::npos) e = body.size();
    const std::string d = trim(body.substr(b, e - b));
    const ir::Span none{};
    if (d.empty()) bad(param, spec, fmt::format("dimension {} is empty", i));
    if (d == "?") {
      dims.push_back(mod.dynamic_dim(fmt::format("{}_d{}", param, i), fmt::format("{}_d{}", param, i), none));
    } else if (std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      int64_t v = 0;
      try {
        v = std::stoll(d);
      } catch (const std::exception&) {
        bad(param, spec, fmt::format("dimension '{}' is too large", d));
      }
      if (v <= 0) bad(param, spec, fmt::format("dimension {} must be positive, got {}", i, v));
      dims.push_back(ir::make_int(v, none));
    } else if (std::isalpha(static_cast<unsigned char>(d[0])) || d[0] == '_') {
      if (!std::all_of(d.begin(), d.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        bad(param, spec, fmt::format("dimension '{}' is not an integer, ? or a name", d));
      // A module constant gives its value; a pl.dynamic symbol or a new name a dynamic dim.
      std::optional<ConstValue> v;
      if (mod.defines_name(d)) v = mod.global(d, TSNode{});
      if (v && v->is_int()) {
        dims.push_back(ir::make_int(v->as_int(), none));
      } else if (v && v->is_dyn()) {
        dims.push_back(std::get<ir::VarPtr>(v->v));
      } else if (v) {
        bad(param, spec, fmt::format("dimension '{}' is {} {}, not an integer", d, v->type_name(), v->repr()));
      } else {
        dims.push_back(mod.dynamic_dim(d, d, none));
      }
    } else {
      bad(param, spec, fmt::format("dimension '{}' is not an integer, ? or a name", d));
    }
    ++i;
    b = e + 1;
  }
  return std::make_shared<ir::TensorType>(*dt, std::move(dims));
}

std::optional<ConstValue> parse_scalar_spec(const std::string& param, const std::string& value, ir::DataType dt,
                                            ModuleInfo& mod) {
  const std::string v = trim(value);
  if (v == "runtime") return std::nullopt;
  ConstValue c = eval_expression_text(v, fmt::format("--scalar {}={}", param, value),
                                      [&mod](const std::string& n, TSNode at) { return mod.global(n, at); }, &mod);
  const bool is_num = c.is_int() || c.is_float() || c.is_bool();
  if (!is_num)
    throw ir::CompileError("E107", ir::Span{},
                           fmt::format("--scalar {}={}: a scalar value must be a number, got {} {}", param, value,
                                       c.type_name(), c.repr()),
                           "write --scalar NAME=64, --scalar NAME=0.5, or --scalar NAME=runtime");
  if (ir::dtype_is_float(dt)) {
    if (c.is_int()) return ConstValue{double(c.as_int())};
    if (c.is_bool()) return ConstValue{std::get<bool>(c.v) ? 1.0 : 0.0};
    return c;
  }
  if (c.is_float())
    throw ir::CompileError("E107", ir::Span{},
                           fmt::format("--scalar {}={}: parameter '{}' is {}, the value {} is not an integer", param,
                                       value, param, ir::dtype_name(dt), c.repr()),
                           "give an integer value");
  if (dt == ir::DataType::BOOL) return ConstValue{c.is_bool() ? std::get<bool>(c.v) : c.as_int() != 0};
  return c.is_bool() ? ConstValue{int64_t(std::get<bool>(c.v))} : c;
}

std::optional<SpecTable> read_specs(ModuleInfo& mod, const std::string& func) {
  if (!mod.defines_name(func)) return std::nullopt;
  auto fv = mod.global(func, TSNode{});
  if (!fv || !fv->is_function()) return std::nullopt;
  const ConstFunction& fn = *std::get<const ConstFunction*>(fv->v);
  const ir::Span at = span_of(field(fn.node(), "name"), mod.file());
  auto fail = [&](const std::string& why) -> SpecTable {
    throw ir::CompileError("E109", at, fmt::format("spec function '{}' cannot be read statically: {}", func, why),
                           "pypto evaluates spec functions without Python: return a list (or dict) of TensorSpec / "
                           "ScalarSpec records built from constants, or give the shapes with --arg");
  };
  HostSpecScope host;
  ConstEvaluator ev(mod.file(), [&mod](const std::string& n, TSNode a) { return mod.global(n, a); }, &mod);
  auto result = ev.apply(*fv, {}, fn.node());
  if (!result) fail("its body leaves the constant subset (a call of a host library, a file read, …)");
  ConstList records;
  if (result->is_dict())
    for (const auto& [k, v] : result->as_dict().items) records.push_back(v);
  else if (auto items = const_iterate(*result))
    records = *items;
  else
    fail(fmt::format("it returns {} {}, not a list of specs", result->type_name(), result->repr()));
  SpecTable t;
  t.function = func;
  t.origin = fmt::format("the spec function '{}'", func);
  for (const auto& r : records) {
    const ConstValue* kind = r.is_dict() ? r.as_dict().find(ConstValue{std::string("__spec__")}) : nullptr;
    if (!kind) fail(fmt::format("an element is {} {}, not a TensorSpec / ScalarSpec", r.type_name(), r.repr()));
    auto get = [&](const char* k) { return r.as_dict().find(ConstValue{std::string(k)}); };
    const ConstValue* name = get("name");
    const ConstValue* dtype = get("dtype");
    if (!name || !name->is_str() || !dtype || !dtype->is_dtype())
      fail(fmt::format("{} without a constant name and torch dtype: {}", kind->as_str(), r.repr()));
    const ir::DataType dt = std::get<ir::DataType>(dtype->v);
    if (kind->as_str() == "ScalarSpec") {
      if (const ConstValue* v = get("value")) t.scalars[name->as_str()] = *v;
      continue;
    }
    const ConstValue* shape = get("shape");
    if (!shape || !shape->is_list()) fail(fmt::format("TensorSpec '{}' has no constant shape", name->as_str()));
    std::vector<ir::ExprPtr> dims;
    for (const auto& d : shape->as_list()) {
      if (d.is_int()) dims.push_back(ir::make_int(d.as_int(), at));
      else if (d.is_dyn()) dims.push_back(std::get<ir::VarPtr>(d.v));
      else fail(fmt::format("TensorSpec '{}' has a dimension {}", name->as_str(), d.repr()));
    }
    t.tensors[name->as_str()] = std::make_shared<ir::TensorType>(dt, std::move(dims));
  }
  return t;
}

}  // namespace pypto::parser
