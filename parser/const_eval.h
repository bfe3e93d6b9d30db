// Compile-time constant evaluator for module constants, -D overrides, config modules and foldable
// subtrees of DSL bodies, with Python semantics over the CST (nothing is executed by Python).
// Expressions: int/float/bool/str/None literals and f-strings of constants, `+ - * / // % ** <<
// >> & | ^`, unary `- + ~`, `not and or`, comparisons (chained, `in`, `is`), conditional
// expressions, tuples/lists/dicts and their comprehensions, subscripts and slices, attribute
// access (module members, dataclass fields, @property methods), names through a caller-supplied
// lookup, `pl.<dtype>` and `pl.dynamic("M")` symbols (no arithmetic on symbols).
// Calls (const_call.cpp): builtins (min max abs len int float bool round sum range tuple list
// dict sorted any all zip enumerate reversed divmod isinstance, math.*), dataclass construction
// and `dataclasses.replace`, and module-level functions / methods whose bodies are assignments,
// if/for/assert/return over constants. Nothing reads the environment, argv or files.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parser/const_value.h"
#include "parser/cst.h"

namespace pypto::parser {

// Name lookup for the evaluator: the value, or nullopt when the name is not a constant here
// (then the whole subtree is not constant). It may throw CompileError (e.g. a module constant
// whose own definition cannot be evaluated).
using ConstLookup = std::function<std::optional<ConstValue>(const std::string& name, TSNode at)>;

class ConstEvaluator {
 public:
  // `env` is the module the nodes belong to (for `pl.dynamic`, classes and functions it defines);
  // it may be null for free-standing text such as a -D value.
  ConstEvaluator(ir::SourceFilePtr file, ConstLookup lookup, ConstEnv* env = nullptr)
      : file_(std::move(file)), lookup_(std::move(lookup)), env_(env) {}
  // The value of `n`, or nullopt when some leaf is not a compile-time constant (or the node kind
  // is not supported). Throws CompileError for definite errors on constants (division by zero,
  // bad operand types, index out of range, a failed assert in a config function).
  std::optional<ConstValue> try_eval(TSNode n);
  // Like try_eval, but a non-constant subtree is an error (E304) naming `what`.
  ConstValue eval(TSNode n, const std::string& what);

  // Calls a class / function / builtin value with evaluated arguments (const_call.cpp).
  struct Args {
    std::vector<ConstValue> pos;
    std::vector<std::pair<std::string, ConstValue>> kw;
  };
  std::optional<ConstValue> apply(const ConstValue& callee, const Args& args, TSNode at);

  // Any function body may define DSL functions (`@pl.jit.inline def f(...)`): the name is bound to
  // a DSL function value whose closure is the call's final locals (late-bound, as in Python).
  // Runs a factory function (a builder that defines a @pl.program class and returns it): like a
  // call, but a nested `class` / plain `def` statement is handed to `on_def` and binds its name to
  // a marker (ConstBuiltin "dsl:NAME"), so `return Program` evaluates. `closure` receives the
  // call's closure (what the program's methods see). nullopt when the body leaves the constant
  // subset.
  using DefHook = std::function<void(TSNode def)>;
  using Closure = std::shared_ptr<const std::map<std::string, ConstValue>>;
  std::optional<ConstValue> run_factory(const ConstFunction& fn, const Args& args, TSNode at, const DefHook& on_def,
                                        Closure& closure);
  // After an evaluation that gave nullopt: the statement of a function body where it left the
  // constant subset (the innermost one), when the failure was inside a function body.
  static std::optional<ir::Span> non_constant_site();
  static void clear_non_constant_site();  // before an evaluation whose failure will be reported

 private:
  std::optional<ConstValue> binary(TSNode n);
  std::optional<ConstValue> compare(TSNode n);
  std::optional<ConstValue> subscript(TSNode n);
  std::optional<ConstValue> attribute(TSNode n);
  std::optional<ConstValue> comprehension(TSNode n);
  std::optional<ConstValue> fstring(TSNode n);
  std::optional<ConstValue> call(TSNode n);
  std::optional<ConstValue> spec_record(TSNode n, const std::string& kind);
  std::optional<ConstValue> builtin(const std::string& name, const Args& args, TSNode at);
  // Host tensors (const_torch.cpp; only while a HostSpecScope is alive).
  std::optional<ConstValue> torch_call(const std::string& fn, const Args& args, TSNode at);
  std::optional<ConstValue> host_method(const ConstValue& obj, const std::string& method, const Args& args, TSNode at);
  std::optional<ConstValue> host_index(const ConstValue& base, const std::vector<TSNode>& subs);
  std::optional<ConstValue> construct(const ConstClass& cls, const Args& args, TSNode at);
  std::optional<ConstValue> invoke(const ConstFunction& fn, const Args& args, TSNode at,
                                   const ConstValue* self = nullptr, const DefHook* on_def = nullptr,
                                   Closure* closure_out = nullptr);
  [[noreturn]] void fail(TSNode n, const std::string& msg, const std::string& hint = {});
  ir::SourceFilePtr file_;
  ConstLookup lookup_;
  ConstEnv* env_;
  int depth_ = 0;  // recursion depth (NestingGuard)
};

// While one is alive, the evaluator reads pypto-lib style spec functions and host scripts:
// `torch.<dtype>` is a dtype, `TensorSpec(name, shape, dtype, ..., is_output=)` / `ScalarSpec(name,
// dtype, value)` are records (dicts with "__spec__") whose host-only arguments (init_value=, …)
// are not evaluated, and torch's tensor factories give host tensors (const_torch.cpp).
class HostSpecScope {
 public:
  HostSpecScope();
  ~HostSpecScope();
  HostSpecScope(const HostSpecScope&) = delete;
  HostSpecScope& operator=(const HostSpecScope&) = delete;
  static bool active();
};

// Arithmetic / comparison and attributes of host tensors and host unknowns (const_torch.cpp):
// shape by numpy broadcasting, dtype by torch's promotion; nullopt when not followed.
std::optional<ConstValue> host_arith(const ConstValue& a, const ConstValue& b, const std::string& op);
std::optional<ConstValue> host_attribute(const ConstValue& obj, const std::string& attr);

// Parses `text` (a Python expression, e.g. a -D value) and evaluates it with `lookup`.
// `origin` names where it came from for messages ("-D N=...").
ConstValue eval_expression_text(const std::string& text, const std::string& origin, ConstLookup lookup,
                                ConstEnv* env = nullptr);

// Iterates a constant (tuple/list, dict keys, string characters); nullopt when not iterable.
std::optional<ConstList> const_iterate(const ConstValue& v);

}  // namespace pypto::parser
