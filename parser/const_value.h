// The values of the compile-time constant evaluator: Python's int/float/bool/str/None, tuples and
// lists, dicts, `pl.dynamic` symbols and dtypes, plus the pure-Python objects config modules are
// built from — @dataclass classes and their frozen instances, module-level functions, imported
// modules and a few builtins (`dataclasses.replace`, `math.ceil` …). A class, function or module
// value points at the ConstEnv (the module) whose file defines it, so its body is evaluated there.
// A DSL function value is a @pl.function / @pl.jit.* def that a Python function run at compile
// time defined and returned (`hc_pre = _bind_hc_pre()`, `_qk = make_kernel_qk(16, 128)`).
// Host scripts read for shapes (spec functions, the file's own host call of an entry) add torch
// tensors known by shape and dtype only, and host values nothing here can know (`t.item()`).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/expr.h"
#include "parser/cst.h"

namespace pypto::parser {

struct ConstValue;
using ConstList = std::vector<ConstValue>;
class ConstEnv;

// A class defined at module level (a @dataclass, frozen or not: instances are never mutated).
struct ConstClass {
  std::string name;
  ConstEnv* env = nullptr;
  TSNode node{};  // class_definition
  bool dataclass = false;
  struct Field {
    std::string name;
    TSNode default_value{};  // null: no default
  };
  std::vector<Field> fields;                 // annotated class attributes, in order
  std::map<std::string, TSNode> methods;     // function_definition, by name (incl. properties)
  std::set<std::string> properties;          // methods decorated with @property
  std::map<std::string, TSNode> class_vars;  // unannotated `NAME = expr` in the class body
};

// A module-level `def` (or a method, with `self` bound by the caller), or a `def` nested in a
// function run at compile time, which sees the locals of that activation at its definition.
// An imported module's plain def is parsed when first used (parse_cache.h, DeferredDef): until
// then `def` is null and `deferred` parses it (throwing CompileError for its syntax errors).
struct ConstFunction {
  std::string name;
  ConstEnv* env = nullptr;
  mutable TSNode def{};  // function_definition (read it with node())
  std::shared_ptr<const std::map<std::string, ConstValue>> closure;  // nested defs only
  std::function<TSNode()> deferred;
  TSNode node() const {
    if (ts_node_is_null(def) && deferred) def = deferred();
    return def;
  }
};

struct ConstObject;
struct ConstDict;
// A DSL function made by a builder call: its declaration and that call's locals as its closure.
// Defined in module_scan.h (it carries the FuncDecl the program builder needs).
struct ConstDslFunction;

struct ConstModuleRef {
  ConstEnv* env = nullptr;
  bool operator==(const ConstModuleRef&) const = default;
};
// A builtin reached through an attribute or import ("dataclasses.replace", "math.ceil").
struct ConstBuiltin {
  std::string name;
  bool operator==(const ConstBuiltin&) const = default;
};

struct ConstHostTensor;
// A value a host script computes from tensor contents or randomness (`t.item()`, a generator):
// arithmetic on it gives another one; a branch or a shape that needs it is not constant.
struct ConstHostUnknown {
  bool operator==(const ConstHostUnknown&) const = default;
};

struct ConstValue {
  struct None {
    bool operator==(const None&) const = default;
  };
  std::variant<None, int64_t, double, bool, std::string, std::shared_ptr<const ConstList>, ir::VarPtr,
               ir::DataType, std::shared_ptr<const ConstObject>, const ConstClass*, const ConstFunction*,
               ConstModuleRef, std::shared_ptr<const ConstDict>, ConstBuiltin,
               std::shared_ptr<const ConstDslFunction>, std::shared_ptr<const ConstHostTensor>, ConstHostUnknown>
      v;

  bool is_int() const { return std::holds_alternative<int64_t>(v); }
  bool is_float() const { return std::holds_alternative<double>(v); }
  bool is_bool() const { return std::holds_alternative<bool>(v); }
  bool is_str() const { return std::holds_alternative<std::string>(v); }
  bool is_none() const { return std::holds_alternative<None>(v); }
  bool is_list() const { return std::holds_alternative<std::shared_ptr<const ConstList>>(v); }
  bool is_dyn() const { return std::holds_alternative<ir::VarPtr>(v); }
  bool is_dtype() const { return std::holds_alternative<ir::DataType>(v); }
  bool is_object() const { return std::holds_alternative<std::shared_ptr<const ConstObject>>(v); }
  bool is_class() const { return std::holds_alternative<const ConstClass*>(v); }
  bool is_function() const { return std::holds_alternative<const ConstFunction*>(v); }
  bool is_module() const { return std::holds_alternative<ConstModuleRef>(v); }
  bool is_dict() const { return std::holds_alternative<std::shared_ptr<const ConstDict>>(v); }
  bool is_builtin() const { return std::holds_alternative<ConstBuiltin>(v); }
  bool is_dsl_function() const { return std::holds_alternative<std::shared_ptr<const ConstDslFunction>>(v); }
  bool is_host_tensor() const { return std::holds_alternative<std::shared_ptr<const ConstHostTensor>>(v); }
  bool is_host_unknown() const { return std::holds_alternative<ConstHostUnknown>(v); }
  // A host tensor or unknown: Python would decide a branch on it from data pypto does not have.
  bool is_host_data() const { return is_host_tensor() || is_host_unknown(); }
  // Plain data a DSL body can use (numbers, strings, symbols, dtypes and sequences of them).
  bool is_data() const {
    return !is_class() && !is_function() && !is_module() && !is_builtin() && !is_dsl_function();
  }
  int64_t as_int() const { return std::get<int64_t>(v); }
  double as_float() const { return std::get<double>(v); }
  const std::string& as_str() const { return std::get<std::string>(v); }
  const ConstList& as_list() const { return *std::get<std::shared_ptr<const ConstList>>(v); }
  const ConstObject& as_object() const { return *std::get<std::shared_ptr<const ConstObject>>(v); }
  const ConstDict& as_dict() const { return *std::get<std::shared_ptr<const ConstDict>>(v); }
  const ConstDslFunction& as_dsl_function() const { return *std::get<std::shared_ptr<const ConstDslFunction>>(v); }
  const ConstHostTensor& as_host_tensor() const { return *std::get<std::shared_ptr<const ConstHostTensor>>(v); }
  // Python repr-like text ("3", "2.5", "True", "(1, 2)") for messages.
  std::string repr() const;
  // The Python type name for messages ("int", "tuple", "Qwen3Config").
  std::string type_name() const;

  static ConstValue of_list(ConstList l) { return ConstValue{std::make_shared<const ConstList>(std::move(l))}; }
};

struct ConstObject {
  const ConstClass* cls = nullptr;
  std::vector<std::pair<std::string, ConstValue>> fields;
  const ConstValue* field(const std::string& name) const {
    for (const auto& [k, v] : fields)
      if (k == name) return &v;
    return nullptr;
  }
};

// A torch tensor of a host script: its shape (ints, or host unknowns for data-dependent sizes) and
// dtype. Its contents are never known.
struct ConstHostTensor {
  ConstList shape;
  ir::DataType dtype = ir::DataType::FP32;
};

struct ConstDict {
  std::vector<std::pair<ConstValue, ConstValue>> items;  // insertion order
  const ConstValue* find(const ConstValue& key) const;
};

// Python's numeric tower over constants: bools count as ints.
inline bool const_numeric(const ConstValue& v) { return v.is_int() || v.is_float() || v.is_bool(); }
inline bool const_intlike(const ConstValue& v) { return v.is_int() || v.is_bool(); }
inline double const_to_f(const ConstValue& v) {
  if (v.is_float()) return v.as_float();
  if (v.is_bool()) return std::get<bool>(v.v) ? 1.0 : 0.0;
  return double(v.as_int());
}
inline int64_t const_to_i(const ConstValue& v) { return v.is_bool() ? (std::get<bool>(v.v) ? 1 : 0) : v.as_int(); }

// Binds a loop / assignment target (a name, or a tuple / list of targets) to a constant in
// `locals`; false when the shapes do not match or the target is not a plain name pattern.
bool bind_target(TSNode target, const ConstValue& v, const ir::SourceFile& f, std::map<std::string, ConstValue>& locals);

// Python `==` on constants (numbers compare across int/float/bool; sequences element-wise;
// objects field-wise; classes, functions, modules by identity; DSL functions by declaration and
// closure, see dsl_function_equal in module_scan.h).
bool const_equal(const ConstValue& a, const ConstValue& b);
bool const_truthy(const ConstValue& v);

// A module as the evaluator sees it: its file, its global names, and where `pl.dynamic` symbols
// and classes/functions it defines live. Implemented by ModuleInfo.
class ConstEnv {
 public:
  virtual ~ConstEnv() = default;
  virtual const ir::SourceFilePtr& env_file() const = 0;
  // A global of this module: nullopt when it has none of that name; throws CompileError when it
  // has one that cannot be evaluated.
  virtual std::optional<ConstValue> global(const std::string& name, TSNode at) = 0;
  // The global as the module had it when the top-level statement holding `def` ran: for what
  // Python evaluates when a definition runs (default arguments, class attributes), not when used.
  virtual std::optional<ConstValue> global_as_of(const std::string& name, TSNode at, TSNode def) {
    return global(name, at);
  }
  // The symbol of a `pl.dynamic("SYM")` call evaluated in this module.
  virtual ir::VarPtr dynamic_symbol(const std::string& sym, const ir::Span& span) = 0;
  // The module's dotted name ("config", "kernels.attention"; the main file's stem).
  virtual std::string module_name() const = 0;
};

}  // namespace pypto::parser
