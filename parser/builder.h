// Internal: the per-program context and the per-function IR builder shared by type_parser.cpp
// (annotations), expr_builder.cpp (expressions), op_call.cpp / op_forms.cpp (call routing, op
// dispatch), call_builder.cpp (calls to program functions, task dispatch), stmt_builder.cpp
// (statements), loop_builder.cpp (loops), scope_builder.cpp (with-scopes, spmd / split_aiv
// regions), dispatch_options.cpp (deps= and the other option values), func_attr_builder.cpp
// (function attributes) and function_builder.cpp (decorators, signatures, bodies). Not a public
// header.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "ir/op_registry.h"
#include "parser/module_scan.h"
#include "parser/specialize.h"

namespace pypto::parser {

class FunctionBuilder;

// Thrown when an expression uses a name whose definition already failed (the error was reported
// there); the statement is dropped silently to avoid cascades.
struct PoisonedName {};

struct ProgramCtx {
  ProgramCtx(ModuleInfo& m, ir::DiagnosticSink& s) : mod(m), sink(s) {}
  ModuleInfo& mod;
  ir::DiagnosticSink& sink;
  bool is_jit = false;
  bool strict_ssa = false;
  std::string program_name;
  const void* entry_def = nullptr;  // the entry function's def node id (its parameters take --arg / --scalar)
  Specialization spec;              // --arg / --scalar
  // The entry's spec function (--specs FUNC, default build_tensor_specs / build_specs), read on
  // first need (a bare entry parameter without --arg); null when there is none.
  std::function<const SpecTable*()> specs;
  std::vector<ir::Diagnostic> errors;
  std::map<std::string, std::unique_ptr<FunctionBuilder>> funcs;
  std::set<std::string> window_buffers;  // names bound to pld.alloc_window_buffer (unique per program)

  FunctionBuilder* find(const std::string& name) const {
    auto it = funcs.find(name);
    return it == funcs.end() ? nullptr : it->second.get();
  }
  // The builder of a declaration (whatever name the caller's module knows it under).
  FunctionBuilder* find(const FuncDecl& d) const;
  void record(const ir::CompileError& e) {
    for (const auto& d : e.diagnostics()) errors.push_back(d);
  }
};

// Spelling of a type for messages: "pl.Tensor[[64, 128], pl.FP32]".
std::string type_str(const ir::TypePtr& t);
std::string expr_str(const ir::ExprPtr& e);
// Same kind, dtype and shape (structurally); tuples element-wise. Memory space / views ignored.
bool same_type(const ir::TypePtr& a, const ir::TypePtr& b);
// Whether two tiles / tensors of the same_type carry different valid shapes.
bool valid_shape_differs(const ir::TypePtr& a, const ir::TypePtr& b);
bool same_expr(const ir::ExprPtr& a, const ir::ExprPtr& b);

class FunctionBuilder {
 public:
  FunctionBuilder(ProgramCtx& ctx, FuncDecl decl, bool is_method);

  // Phase 1: decorator, parameters, return annotation. Throws CompileError.
  void build_signature();
  // Phase 2: the body (idempotent; callees without a return annotation are built on demand).
  void build_body();
  const ir::Function& function() const { return *fn_; }
  ir::FunctionPtr result() const { return fn_; }
  const FuncDecl& decl() const { return decl_; }
  // A jit dependency's bare pl.Tensor parameters take the types of its first call's arguments;
  // a later call with other shapes is a warning.
  void resolve_pending_params(const std::vector<ir::ExprPtr>& args, TSNode call, FunctionBuilder& caller);
  bool has_untyped_params() const { return !pending_params_.empty() && pending_site_.empty(); }
  // The module the function is written in (its constants, imports and helpers).
  ModuleInfo& mod() const { return *decl_.module; }
  // A name outside the function: the factory's closure (for DSL code defined inside a builder
  // function), then the module's globals.
  std::optional<ConstValue> global_lookup(const std::string& name, TSNode at) const {
    if (decl_.closure)
      if (auto it = decl_.closure->find(name); it != decl_.closure->end()) return it->second;
    return mod().lookup(name, at);
  }
  bool global_defined(const std::string& name) const {
    return (decl_.closure && decl_.closure->count(name)) || mod().defines_name(name);
  }
  // The DSL function a bare call `name(...)` in this body reaches: a DSL function value in the
  // closure (a sibling reference takes this function's closure), else the module's
  // (ModuleInfo::dsl_function). Throws when a module global it needs cannot be evaluated.
  std::optional<FuncDecl> dsl_callee(const std::string& name, TSNode at) const;
  FunctionBuilder* jit_dependency(const std::string& name, TSNode at);
  // Names of bare-name calls in the body (jit dependency discovery) and self.f calls.
  std::vector<std::string> called_names(bool self_calls) const;

  // ---- shared helpers (used across the builder files) ----
  ir::Span sp(TSNode n) const { return span_of(n, file_); }
  std::string txt(TSNode n) const { return text(n, *file_); }
  [[noreturn]] void fail(TSNode n, const std::string& code, const std::string& msg, const std::string& hint = {}) const;

  // types (type_parser.cpp)
  ir::TypePtr parse_type(TSNode ann, ir::ParamDirection* dir, const std::string& param_name);
  std::optional<ir::DataType> parse_dtype(TSNode n, bool required);
  // `a.dtype` of a local value (the jit sugar), else nullopt.
  std::optional<ir::DataType> dtype_of_local(TSNode n);

  // expressions (expr_builder.cpp; attr_value / call_expr: op_call.cpp)
  ir::ExprPtr expr(TSNode n);
  std::optional<ConstValue> try_const(TSNode n);
  ir::ExprPtr const_to_expr(const ConstValue& v, TSNode at);
  ir::ExprPtr index_expr(TSNode n, const std::string& what);  // a scalar (INDEX-like) expression
  ir::AttrValue attr_value(TSNode n, const ir::KwSpec* spec, std::string_view op_name = {});
  ir::ExprPtr call_expr(TSNode n);
  ir::ExprPtr function_call(FunctionBuilder& callee, TSNode call, bool bare);

  // calls to program functions and task dispatch (call_builder.cpp)
  enum class CallForm { Call, Submit, SpmdSubmit };
  ir::ExprPtr dispatch_call(FunctionBuilder& callee, TSNode call, const std::vector<TSNode>& pos,
                            const std::vector<std::pair<std::string, TSNode>>& kw, CallForm form);
  // `pl.submit(self.k, ...)` / `pl.spmd_submit(self.k, ..., core_num=N)`: a Call whose result is
  // the callee's results followed by the producer TaskId.
  ir::ExprPtr submit_expr(TSNode call, bool spmd);
  // dispatch option values (dispatch_options.cpp)
  // deps=[...]: TaskId scalars and TaskId arrays (None entries dropped, comprehensions unrolled).
  std::vector<ir::ExprPtr> task_deps(TSNode value, const std::string& owner);
  // no_dep_args=[t, ...] / dumps=[t, ...]: distinct bare names of tensors in scope.
  // With `dedupe`, a repeated name is kept once instead of being an error (pl.submit dumps=).
  std::vector<ir::VarPtr> tensor_names(TSNode value, const std::string& owner, const std::string& kw, bool dedupe = false);
  bool bool_literal(TSNode value, const std::string& what);
  // A positive integer expression (constant or runtime scalar) for core_num.
  ir::ExprPtr core_num_expr(TSNode value, const std::string& owner);
  // A predicate= expression: a Bool-typed scalar comparison.
  ir::ExprPtr predicate_expr(TSNode value, const std::string& owner);
  ir::ExprPtr subscript_expr(TSNode n);
  ir::ExprPtr scalar_binary(ir::BinOp op, ir::ExprPtr a, ir::ExprPtr b, const ir::Span& s, TSNode at);
  ir::ExprPtr make_tuple(std::vector<ir::ExprPtr> elems, const ir::Span& s);
  // Slice/index analysis of a subscript on a shaped value (offsets, extents, dropped dims).
  struct Window {
    std::vector<ir::ExprPtr> offsets, extents;
    std::vector<bool> dropped;
    bool all_scalar = true;
  };
  Window window(const ir::ShapedType& t, const std::vector<TSNode>& subs, TSNode at, bool for_write);

  // statements (stmt_builder.cpp)
  std::vector<ir::StmtPtr> block(TSNode block, int64_t prev_row, size_t skip_first = 0);
  std::vector<ir::StmtPtr> stmt(TSNode n);
  std::vector<ir::StmtPtr> stmt_only(TSNode n);

 private:
  friend struct StmtImpl;
  std::vector<ir::StmtPtr> assignment(TSNode n);
  std::vector<ir::StmtPtr> expression_stmt(TSNode n, TSNode inner);
  std::vector<ir::StmtPtr> for_stmt(TSNode n);
  std::vector<ir::StmtPtr> while_form(TSNode n, TSNode call, const std::vector<ir::ExprPtr>& inits);
  std::vector<ir::StmtPtr> while_stmt(TSNode n);
  std::vector<ir::StmtPtr> if_stmt(TSNode n, TSNode cond, TSNode cons, std::vector<TSNode> alts, size_t alt_index);
  std::vector<ir::StmtPtr> with_stmt(TSNode n);
  std::vector<ir::StmtPtr> spmd_for(TSNode n, TSNode call);
  std::vector<ir::StmtPtr> split_aiv_for(TSNode n, TSNode call);
  std::vector<ir::StmtPtr> func_attr_stmt(TSNode stmt, TSNode call);
  std::vector<ir::StmtPtr> dump_tag_stmt(TSNode call);
  std::vector<ir::StmtPtr> bind_dynamic_stmt(TSNode call, const std::string& name);
  std::vector<ir::StmtPtr> return_stmt(TSNode n);
  std::vector<ir::StmtPtr> yield_assign(TSNode n, TSNode left, TSNode call);
  std::vector<ir::StmtPtr> subscript_write(TSNode n, TSNode target, TSNode value);
  ir::StmtPtr bind(const std::string& name, TSNode name_node, ir::ExprPtr value, ir::TypePtr ann, const ir::Span& s);
  bool sibling_rebinding(const ir::Var* old) const;
  static bool reads_any(const ir::ExprPtr& e, const std::set<const ir::Var*>& vars);
  ir::ExprPtr runtime_output(const ir::TensorType& t, const std::string& param, TSNode n);
  ir::ExprPtr cond_expr(TSNode n, const char* what);
  void parse_decorator();
  ir::TypePtr entry_param_type(TSNode ann, ir::ParamDirection* dir, const std::string& name);
  // `pl.Tensor` / `pl.Out[pl.Tensor]` without a shape (sets the direction).
  bool bare_tensor(TSNode ann, ir::ParamDirection* dir, TSNode* at = nullptr) const;
  // The hint of an entry's bare pl.Tensor parameter without a shape: the flags, and (once per
  // entry) where the file could give the shapes — its spec function, or another entry's call.
  std::string bare_entry_hint(const std::string& name, const SpecTable* specs);
  void check_specialization(std::vector<ir::CompileError>& errs);
  bool jit_bare_return(TSNode rt);
  void check_jit_bare_return(TSNode ret, const std::vector<ir::ExprPtr>& values);
  void apply_bind_dynamic();

 public:
  std::vector<ir::StmtPtr> scope_body(TSNode n, std::shared_ptr<ir::ScopeStmt> scope);
  bool inside_scope(ir::ScopeKind k) const;

  ProgramCtx& ctx_;
  FuncDecl decl_;
  ir::SourceFilePtr file_;
  int depth_ = 0;  // recursion depth over the CST (NestingGuard)
  bool is_method_;
  bool strict_ssa_ = false;  // the program's strict_ssa=, or the function's own
  std::shared_ptr<ir::Function> fn_;
  std::vector<ir::StmtPtr> pending_outputs_;  // runtime_output creations for the statement being built
  std::vector<std::string> param_names_;
  std::vector<TSNode> param_nodes_;
  std::vector<size_t> pending_params_;  // bare pl.Tensor parameters of a jit dependency
  std::string pending_site_;            // the call that typed them ("" = none yet)
  bool sig_ok_ = false, ret_known_ = false, ret_annotated_ = false;
  // A @pl.jit function's one-tensor return annotation: not binding (the returned value's type is),
  // kept for the W012 warning when they disagree.
  ir::TypePtr jit_declared_return_;
  TSNode jit_declared_return_node_{};
  bool jit_return_warned_ = false;
  // A @pl.jit return annotation with bare pl.Tensor elements (jit_bare_return): each element's
  // annotated type (null where bare) and node; empty when the function has no such annotation.
  std::vector<ir::TypePtr> ret_bare_types_;
  std::vector<TSNode> ret_bare_nodes_;
  bool ret_bare_tuple_ = false;
  bool bare_entry_hinted_ = false;  // bare_entry_hint gave its long form
  int body_state_ = 0;  // 0 not built, 1 building, 2 done

  // name scope (flat per function, Python semantics; loops restore their own targets)
  std::map<std::string, ir::VarPtr> names_;
  std::map<std::string, ConstValue> specialized_;
  std::set<const void*> bound_dynamic_;   // bind_dynamic calls applied to the signature
  int cur_block_ = 0, next_block_ = 0;      // the block being built (ids are unique per function)
  std::map<const ir::Var*, int> var_block_;  // the block each local was bound in
  struct BlockInfo {
    int parent = 0;
    size_t scopes = 0;       // scope_stack_.size() when the block was entered
    bool with_body = false;  // the body of a with-scope (pl.at, pl.spmd, ...)
  };
  std::map<int, BlockInfo> blocks_;  // by block id
  std::set<std::string> poisoned_;
  // strict_ssa: a name rebound in a block nested in the one that bound it is a new variable that
  // shadows the outer one (the reference's scoping); each shadowing, with the variable it hid, so
  // a scope whose names do not leak (a loop with carries, an if with results) restores them.
  std::vector<std::pair<std::string, ir::VarPtr>> shadowed_;
  bool encloses(int outer, int inner) const;
  size_t shadow_mark() const { return shadowed_.size(); }
  void unshadow(size_t mark) {
    while (shadowed_.size() > mark) {
      names_[shadowed_.back().first] = shadowed_.back().second;
      shadowed_.pop_back();
    }
  }
  std::set<const ir::Var*> loop_vars_;            // loop variables / iter args (never reassigned)
  std::map<std::string, ir::VarPtr> ddr_bases_;  // pl.MemRef("mem_ddr_0", ...) bases

  struct LoopFrame {
    std::string kind;  // "range", "parallel", "unroll", "pipeline", "while"
  };
  std::vector<LoopFrame> loops_;
  struct YieldFrame {
    bool is_loop = false;
    bool seen = false;
    std::vector<std::string> names;
    std::vector<TSNode> name_nodes;
    std::vector<ir::TypePtr> types;
    std::vector<ir::TypePtr> expect;  // loop: iter_arg types
  };
  std::vector<YieldFrame> yields_;
  bool in_manual_scope_ = false;
  std::vector<ir::ScopeKind> scope_stack_;  // enclosing with-scopes / regions, innermost last
  std::vector<ir::VarPtr> dump_tagged_;     // pl.dump_tag(t) so far (forward-sticky)
  std::vector<ir::SplitMode> split_aiv_modes_;  // modes of the enclosing pl.split_aiv regions
  std::map<std::string, ConstValue> const_scope_;  // comprehension variables being unrolled
  TSNode window_alloc_rhs_{};  // the pld.alloc_window_buffer call an assignment binds (the one allowed place)
  // Producer tracking for predicate= (see call_builder.cpp): tensor name → (TaskId name, binding
  // generation of that name when the tensor was produced); and each name's binding count.
  std::map<std::string, std::pair<std::string, int>> produced_by_;
  std::map<std::string, int> binding_gen_;
  bool body_started_ = false;               // a statement other than pl.func_attr was seen
};

// The arguments of a call node, positional and keyword (duplicates, splats and positional-after-
// keyword are errors).
struct CallArgsCst {
  std::vector<TSNode> pos;
  std::vector<std::pair<std::string, TSNode>> kw;
};
CallArgsCst split_args(FunctionBuilder& b, TSNode call);

// Function attributes from the decorator (func_attr_builder.cpp): attrs={...}, external_source=,
// and the @pl.jit.extern options (which also set the function type).
void decorator_attrs(FunctionBuilder& b, TSNode dict);
void decorator_external_source(FunctionBuilder& b, TSNode value);
void jit_extern_options(FunctionBuilder& b, const std::vector<std::pair<std::string, TSNode>>& kw, TSNode deco);

// Attaches comments to a statement this front end just created (the object is not shared yet).
void attach_comments(const ir::StmtPtr& s, const std::vector<std::string>& comments);

}  // namespace pypto::parser
