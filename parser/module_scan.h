// Module-level facts of one DSL file, collected before any function is built: module constants
// (evaluated lazily by the constant evaluator, overridable with -D), `pl.dynamic` symbols, the
// DSL declarations (@pl.program classes, @pl.function methods, @pl.jit family functions) and
// all full-line `#` comments (attached to statements / functions by line position).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/enums.h"
#include "ir/expr.h"
#include "parser/const_eval.h"
#include "parser/cst.h"

namespace pypto::parser {

enum class DeclKind { Function, Jit, JitIncore, JitInline, JitOpaque, JitHost, JitExtern };

// One DSL function declaration (a method of a @pl.program class, a module-level @pl.function or a
// @pl.jit-family function).
struct FuncDecl {
  std::string name;
  TSNode def{};        // function_definition
  TSNode decorator{};  // the decorator's expression (call or attribute)
  DeclKind kind = DeclKind::Function;
  std::vector<std::string> leading_comments;
};

struct EntryDecl {
  std::string name;
  bool is_program = false;  // @pl.program class (else a @pl.jit / @pl.jit.host function)
  TSNode node{};            // class_definition / function_definition
  TSNode decorator{};
  std::vector<FuncDecl> methods;  // @pl.function methods of a program class
};

struct Comment {
  uint32_t row;  // 0-based
  std::string text;
};

class ModuleInfo {
 public:
  // Scans the module; `defines` are -D NAME=VALUE overrides (VALUE a Python expression).
  ModuleInfo(const CstTree& tree, const std::vector<std::pair<std::string, std::string>>& defines);

  const ir::SourceFilePtr& file() const { return file_; }
  // Module constant / dynamic symbol lookup for the evaluator: nullopt when the module does not
  // define `name`; throws CompileError when it does but the value is not a compile-time constant.
  std::optional<ConstValue> lookup(const std::string& name, TSNode at);
  bool defines_name(const std::string& name) const;
  // A `pl.dynamic("M")` symbol for `name`, created on first use (jit bodies hoist theirs).
  ir::VarPtr dynamic_dim(const std::string& py_name, const std::string& sym, const ir::Span& span);
  const std::vector<ir::VarPtr>& dynamic_dims() const { return dyn_order_; }

  const std::vector<EntryDecl>& entries() const { return entries_; }
  const FuncDecl* top_function(const std::string& name) const;  // @pl.jit* / module @pl.function
  const std::map<std::string, FuncDecl>& top_functions() const { return top_functions_; }
  // Full-line comments with first_row < row < last_row, in order.
  std::vector<std::string> comments_between(int64_t first_row, int64_t last_row) const;

 private:
  void scan_class(TSNode decorated, TSNode cls, TSNode decorator, int64_t prev_row);
  ir::SourceFilePtr file_;
  std::map<std::string, TSNode> assigns_;
  std::map<std::string, ConstValue> values_;
  std::set<std::string> evaluating_;
  std::map<std::string, ir::VarPtr> dyn_;
  std::vector<ir::VarPtr> dyn_order_;
  std::vector<EntryDecl> entries_;
  std::map<std::string, FuncDecl> top_functions_;
  std::vector<Comment> comments_;
};

// Classification of a decorator expression ("pl.jit.incore(...)" → JitIncore); nullopt when it is
// not a DSL function decorator. `is_program` is set for @pl.program.
std::optional<DeclKind> classify_decorator(TSNode deco_expr, const ir::SourceFile& f, bool& is_program);

}  // namespace pypto::parser
