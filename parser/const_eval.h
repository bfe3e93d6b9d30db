// Compile-time constant evaluator for module constants, -D overrides and foldable subtrees of DSL
// bodies. Supports int/float/bool/str/None literals, `+ - * / // % ** << >> & | ^`, unary `- + ~`,
// `not and or`, comparisons, tuples/lists, subscripts of tuples, `min max abs len`, conditional
// expressions and names (resolved through a caller-supplied lookup). `pl.dynamic("M")` symbols
// are values too (so `M = pl.dynamic("M")` and shapes naming M fold), but no arithmetic on them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/expr.h"
#include "parser/cst.h"

namespace pypto::parser {

struct ConstValue;
using ConstList = std::vector<ConstValue>;

struct ConstValue {
  struct None {
    bool operator==(const None&) const = default;
  };
  // int64_t = Python int, double = float, bool, string, None, tuple/list, dynamic-dim symbol.
  std::variant<None, int64_t, double, bool, std::string, std::shared_ptr<const ConstList>, ir::VarPtr> v;

  bool is_int() const { return std::holds_alternative<int64_t>(v); }
  bool is_float() const { return std::holds_alternative<double>(v); }
  bool is_bool() const { return std::holds_alternative<bool>(v); }
  bool is_str() const { return std::holds_alternative<std::string>(v); }
  bool is_none() const { return std::holds_alternative<None>(v); }
  bool is_list() const { return std::holds_alternative<std::shared_ptr<const ConstList>>(v); }
  bool is_dyn() const { return std::holds_alternative<ir::VarPtr>(v); }
  int64_t as_int() const { return std::get<int64_t>(v); }
  double as_float() const { return std::get<double>(v); }
  const ConstList& as_list() const { return *std::get<std::shared_ptr<const ConstList>>(v); }
  // Python repr-like text ("3", "2.5", "True", "(1, 2)") for messages.
  std::string repr() const;

  static ConstValue of_list(ConstList l) { return ConstValue{std::make_shared<const ConstList>(std::move(l))}; }
};

// Name lookup for the evaluator: the value, or nullopt when the name is not a constant here
// (then the whole subtree is not constant). It may throw CompileError (e.g. a module constant
// whose own definition cannot be evaluated).
using ConstLookup = std::function<std::optional<ConstValue>(const std::string& name, TSNode at)>;

class ConstEvaluator {
 public:
  ConstEvaluator(ir::SourceFilePtr file, ConstLookup lookup) : file_(std::move(file)), lookup_(std::move(lookup)) {}
  // The value of `n`, or nullopt when some leaf is not a compile-time constant (or the node kind
  // is not supported). Throws CompileError for definite errors on constants (division by zero,
  // bad operand types, index out of range).
  std::optional<ConstValue> try_eval(TSNode n);
  // Like try_eval, but a non-constant subtree is an error (E304) naming `what`.
  ConstValue eval(TSNode n, const std::string& what);

 private:
  std::optional<ConstValue> binary(TSNode n);
  std::optional<ConstValue> call(TSNode n);
  [[noreturn]] void fail(TSNode n, const std::string& msg);
  ir::SourceFilePtr file_;
  ConstLookup lookup_;
  int depth_ = 0;  // recursion depth (NestingGuard)
};

// Parses `text` (a Python expression, e.g. a -D value) and evaluates it with `lookup`.
// `origin` names where it came from for messages ("-D N=...").
ConstValue eval_expression_text(const std::string& text, const std::string& origin, ConstLookup lookup);

}  // namespace pypto::parser
