// Module-level facts of one DSL file, collected before any function is built: module constants
// (evaluated lazily by the constant evaluator, overridable with -D), `pl.dynamic` symbols,
// imports (resolved lazily through the ModuleSet: `from config import B`, `import config as C`,
// package-relative `from .kernels import attn`), pure-Python classes and functions the constant
// evaluator can run (@dataclass configs, helpers), the DSL declarations (@pl.program classes,
// @pl.function methods, @pl.jit family functions, also those a module-level `if` on constants
// selects) and all full-line `#` comments (attached to statements / functions by line position).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/enums.h"
#include "ir/expr.h"
#include "parser/const_eval.h"
#include "parser/cst.h"

namespace pypto::parser {

class ModuleInfo;
class ModuleSet;

enum class DeclKind { Function, Jit, JitIncore, JitInline, JitOpaque, JitHost, JitExtern };

// One DSL function declaration (a method of a @pl.program class, a module-level @pl.function or a
// @pl.jit-family function).
struct FuncDecl {
  std::string name;
  TSNode def{};        // function_definition
  TSNode decorator{};  // the decorator's expression (call or attribute)
  DeclKind kind = DeclKind::Function;
  std::vector<std::string> leading_comments;
  ModuleInfo* module = nullptr;  // the module whose file holds it
  // Defined inside a factory (builder) function: that call's local variables.
  std::shared_ptr<const std::map<std::string, ConstValue>> closure;
};

// A DSL function as a compile-time value (const_value.h): a def that a Python function run by the
// constant evaluator made, with that call's locals as `decl.closure` (late-bound, as in Python).
// Inside a closure, a function the same call defined is a sibling reference: it has no closure of
// its own and takes the closure of the function that looks it up, so closures never contain
// themselves.
struct ConstDslFunction {
  FuncDecl decl;
  bool sibling = false;
};
// The same DSL function: the same def, and closures that are the same object or equal value by
// value (two calls of a builder with equal arguments make one function).
bool same_dsl_function(const FuncDecl& a, const FuncDecl& b);

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

class ModuleInfo : public ConstEnv {
 public:
  // Scans the module (top level only; nothing is evaluated yet).
  ModuleInfo(ModuleSet& set, const CstTree& tree, std::string module_name);
  // -D NAME=VALUE overrides (VALUE a Python expression) of this module's globals: they win over
  // every assignment (module_exec.cpp). evaluate_defines() evaluates them (once all modules of
  // the load are registered and ran, so they may refer to any module's constants; a -D that
  // refers to another -D value gets that one).
  void apply_defines(const std::vector<std::pair<std::string, std::string>>& defines);
  void evaluate_defines();
  // Runs the module's top level in Python's order (module_exec.cpp): each statement gets the next
  // program-wide sequence number, an import of a module not yet run runs it first, and a
  // top-level `M.NAME = expr` (M a module binding) is recorded as an assignment to M's global NAME
  // at that time. Assignments to a loaded module it cannot follow give warnings (W013).
  void execute(TSNode root);
  // The sequence number of the top-level statement that holds `n` (a node of this file).
  uint64_t seq_of(TSNode n) const;

  const ir::SourceFilePtr& file() const { return file_; }
  // ConstEnv: a global of this module (constants, classes, functions, imported names): nullopt
  // when the module does not define `name`; throws CompileError when it does but the value is not
  // a compile-time constant, or its module cannot be found.
  const ir::SourceFilePtr& env_file() const override { return file_; }
  std::optional<ConstValue> global(const std::string& name, TSNode at) override;
  std::optional<ConstValue> global_as_of(const std::string& name, TSNode at, TSNode def) override;
  ir::VarPtr dynamic_symbol(const std::string& sym, const ir::Span& span) override;
  std::string module_name() const override { return name_; }

  std::optional<ConstValue> lookup(const std::string& name, TSNode at) { return global(name, at); }
  bool defines_name(const std::string& name) const;
  // A `pl.dynamic("M")` symbol for `name`, created on first use (jit bodies hoist theirs).
  ir::VarPtr dynamic_dim(const std::string& py_name, const std::string& sym, const ir::Span& span);
  // Is `e` a program-level dynamic symbol (any module's pl.dynamic)?
  bool is_dynamic_symbol(const ir::ExprPtr& e) const;

  const std::vector<EntryDecl>& entries() const { return entries_; }
  // Factories: module-level functions that define a @pl.program / @pl.jit inside and return it
  // (`def build_program(batch, ...)`), selected with --entry NAME.
  const std::map<std::string, TSNode>& factories() const { return factories_; }
  // Declarations for DSL definitions found elsewhere than the top level (inside a factory).
  EntryDecl program_decl(TSNode cls, TSNode decorator);               // a @pl.program class
  std::optional<FuncDecl> dsl_function_decl(TSNode decorated);        // a @pl.function / @pl.jit* def
  // A DSL function by the name this module knows it under: its own @pl.jit* / @pl.function, or one
  // imported from another module (`from kernels import attn`). Throws when the module is missing.
  const FuncDecl* top_function(const std::string& name);
  const FuncDecl* top_function(const std::string& name) const;  // this module's own only
  const std::map<std::string, FuncDecl>& top_functions() const { return top_functions_; }
  // A DSL function by name, as a call `name(...)` in this module's DSL code reaches it: a
  // top_function, or a global (own or imported) whose value is a DSL function a builder call made
  // (`hc_pre = _bind_hc_pre()`, `from hc_pre import hc_pre`) or the branch of a module-level `if`
  // defines. nullopt for other names; throws CompileError when the value cannot be evaluated.
  std::optional<FuncDecl> dsl_function(const std::string& name, TSNode at);
  // The module's plain Python functions (host helpers, spec functions) by name.
  const std::map<std::string, std::unique_ptr<ConstFunction>>& helper_functions() const { return functions_; }
  // The module `name` is bound to (`import config as name`, `from . import name`), else nullptr.
  ModuleInfo* module_binding(const std::string& name, TSNode at);
  // Resolves every import of a module pypto reads (host modules such as torch are skipped): the
  // module must exist and define the imported name. Errors are appended, not thrown.
  void check_imports(std::vector<ir::Diagnostic>& errors);
  // Does the module import the DSL (pypto.language)? A config module does; a random script not.
  bool imports_dsl() const;
  // Full-line comments with first_row < row < last_row, in order.
  std::vector<std::string> comments_between(int64_t first_row, int64_t last_row) const;

 private:
  struct Import {
    std::string module;  // dotted module path as written, without leading dots
    int level = 0;       // leading dots of a relative import
    std::string attr;    // the imported member ("" for `import x as y`)
    TSNode node{};       // the import statement
  };
  void scan_import(TSNode stmt);
  void scan_const_class(TSNode cls, TSNode decorated);
  std::optional<ConstValue> resolve_import(const Import& imp, TSNode at);
  std::vector<std::pair<std::string, Import>> imports_of(TSNode stmt) const;  // name → what one import binds
  // An assignment `M.NAME = value` another module's (or this module's) top level makes to this
  // module's global NAME, at time `seq` (module_exec.cpp).
  struct Override {
    ModuleInfo* by = nullptr;  // the assigning module
    TSNode stmt{}, value{};
    uint64_t seq = 0;
    std::optional<ConstValue> cached;
    bool evaluating = false;
  };
  // The override of `name` a lookup at the current time sees (the last one before it, unless this
  // module's own definition of `name` comes later), or nullptr.
  Override* override_at(const std::string& name);
  ConstValue override_value(const std::string& name, Override& o);
  void run_import(TSNode stmt);
  // The module `name` is bound to, without evaluating anything (nullptr: not a module / not found).
  ModuleInfo* bound_module(const std::string& name);
  // The time of this module's own definition of `name` (0: no statement), nullopt: none.
  std::optional<uint64_t> own_seq(const std::string& name) const;
  void record_assignment(TSNode stmt, uint64_t seq);
  // A global bound by more than one top-level statement (`X = 16` ... `X = X * 2`, or an
  // assignment and a def of one name): its bindings in source order (module_rebind.cpp). A lookup
  // sees the binding made last before its time, as Python does; a name bound once is not here.
  struct Binding {
    // Dsl: a DSL def or program (not a constant: the lookup finds nothing); CondDef: DSL defs of a
    // module-level `if`; Dynamic: a pl.dynamic symbol; Augmented: `X += e` (no map holds it). Any,
    // for a lookup: no map excluded.
    enum Kind { Any, Assign, Function, Class, Import, Dsl, CondDef, Dynamic, Augmented } kind = Any;
    // Assign: the right side; Augmented: the augmented_assignment; Function / Class: the
    // definition (null: a deferred def); Import: the import statement.
    TSNode value{};
    size_t index = SIZE_MAX;  // Assign: the element of a tuple unpacking; Function: a deferred def's index
    uint32_t start = 0;       // the top-level statement's start byte (its time: seq_at)
    std::optional<ConstValue> cached;
    std::unique_ptr<ConstFunction> fn;  // an earlier def's value, made when first looked up
    const ConstClass* cls = nullptr;    // Class: the class this statement made
  };
  std::map<std::string, std::vector<Binding>> rebound_;
  Binding& bind(const std::string& name, Binding::Kind kind, TSNode value, size_t index, uint32_t start);
  std::vector<std::unique_ptr<ConstClass>> replaced_classes_;  // earlier classes of a rebound name
  void keep_rebound();  // after the scan: drops the names bound once
  // For a rebound name: the value of the binding visible now when the maps do not hold it, else
  // nullopt with `only` set to the kind of map that does (Any: no restriction).
  std::optional<ConstValue> rebound_lookup(const std::string& name, TSNode at, Binding::Kind& only);
  // Evaluates a value of one of this module's statements as the module ran it: at time `seq`, with
  // `key` (the name, or name#binding) on the cycle guard, errors pointing at `site`.
  using Eval = std::optional<ConstValue>(ConstEvaluator&);
  std::optional<ConstValue> evaluate_at(const std::string& key, const std::string& name, TSNode site, uint64_t seq,
                                        const std::function<Eval>& eval);
  // `X op= e` at the top level: X as bound before the statement, op, e (evaluated at its time).
  std::optional<ConstValue> augmented(const std::string& name, TSNode stmt, ConstEvaluator& ev);
  void warn_unfollowed_assignments(TSNode root);
  // The DSL function `name` of the branch a module-level `if` selects (nullopt: that branch does
  // not define it).
  std::optional<ConstValue> conditional_def(const std::string& name, TSNode if_stmt);
  ModuleInfo* load(const Import& imp);
  // A top-level statement's sequence number by its start byte (seq_of for a node at that byte).
  uint64_t seq_at(uint32_t byte) const;
  // The source text of one of this module's functions (a deferred def's without parsing it).
  std::string function_text(const ConstFunction& fn) const;
  [[noreturn]] void not_constant(const std::string& name, TSNode at, TSNode def);

  ModuleSet& set_;
  const CstTree* tree_;  // the module's tree (outlives it: ModuleSet::Loaded)
  ir::SourceFilePtr file_;
  std::string name_;
  std::map<std::string, TSNode> assigns_;
  std::map<std::string, std::pair<TSNode, size_t>> tuple_assigns_;  // A, B = (1, 2): element index
  std::map<std::string, ConstValue> values_;
  // Globals whose evaluation failed: the error and the lookup site it was reported at. A later
  // lookup throws it again (at its own site when the error pointed at the lookup) rather than
  // re-evaluate: DSL code may look a non-constant up many times, each an evaluation and a walk.
  struct Failure {
    ir::CompileError error;
    ir::Span site;
  };
  std::map<std::string, Failure> failed_;
  std::set<std::string> evaluating_;
  std::map<std::string, ir::VarPtr> dyn_;
  std::map<std::string, Import> imports_;
  std::map<std::string, ConstValue> import_values_;  // resolved imports (global)
  std::map<std::string, std::unique_ptr<ConstClass>> classes_;
  std::map<std::string, std::unique_ptr<ConstFunction>> functions_;
  // The deferred def (index into tree_->deferred()) a name's deferred function was made from.
  std::map<std::string, size_t> deferred_;
  std::vector<EntryDecl> entries_;
  std::map<std::string, TSNode> factories_;
  std::map<std::string, FuncDecl> top_functions_;
  std::map<std::string, TSNode> cond_defs_;  // DSL defs inside a module-level `if`: name → the if
  std::vector<Comment> comments_;
  std::map<std::string, std::deque<Override>> overrides_;  // by name, in sequence order (stable)
  std::vector<std::pair<uint32_t, uint64_t>> stmt_seq_;     // top-level statement start byte → seq
  std::set<std::string> cli_defined_;                       // names a -D sets
  std::map<std::string, std::string> cli_text_;             // their -D values as written
  std::map<std::string, ConstValue> cli_values_;
  std::set<std::string> cli_evaluating_;
  ConstValue cli_value(const std::string& name);
};

// Host-side modules whose members never become DSL constants (their names simply stay unknown
// to the evaluator, which is an error only if a DSL construct needs one): torch, numpy, os, ...
bool host_module(const std::string& module);

// Classification of a decorator expression ("pl.jit.incore(...)" → JitIncore); nullopt when it is
// not a DSL function decorator. `is_program` is set for @pl.program.
std::optional<DeclKind> classify_decorator(TSNode deco_expr, const ir::SourceFile& f, bool& is_program);

}  // namespace pypto::parser
