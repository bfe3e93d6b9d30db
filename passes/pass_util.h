// Small helpers shared by the passes: per-function program rewriting, a mutator that sees every
// binding site (so a pass can replace a Var by a new one — new type, fresh copy — and have all
// uses follow), call rebuilding with re-deduced types, sequence splicing, and use/def queries.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/visitor.h"

namespace pypto::passes {

// Applies `fn` to every function; returns `p` itself when no function changed.
ir::ProgramPtr map_functions(const ir::ProgramPtr& p,
                             const std::function<ir::FunctionPtr(const ir::FunctionPtr&)>& fn);

// Rebuilds an op call with new arguments, re-deducing its type (falls back to the old type for
// function calls or when deduction fails). Keeps kwargs and arg_directions.
// Whether the call's keyword `k` is the boolean true (a_trans=True, clamp=True).
bool kw_true(const ir::Call& c, std::string_view k);
// The call's integer / string keyword `k`, or `dflt` when it is absent or of another kind.
int64_t kw_int(const ir::Call& c, std::string_view k, int64_t dflt);
std::string kw_string(const ir::Call& c, std::string_view k, const std::string& dflt = {});

ir::ExprPtr rebuild_call(const ir::Call& c, std::vector<ir::ExprPtr> args);

// Whether an op call fills a fresh tile from memory as a pipeline schedules it: its registry
// io_tier is Load, or L0Fetch taking a Mat tile to Left / Right (L1 → L0, MTE1).
bool is_memory_load(const ir::Call& c);

// An IRMutator that visits binding sites (function params, assignment targets, loop vars,
// iter_args, return_vars) through `rebind`. Whatever `rebind` returns replaces the Var at the
// binding site and at every later use (recorded in var_map). Op calls whose arguments changed get
// their type re-deduced.
class BindingMutator : public ir::IRMutator {
 public:
  ir::FunctionPtr mutate_function(const ir::FunctionPtr& f) override;

 protected:
  // Default: keep the Var. Results are memoised per Var.
  virtual ir::VarPtr rebind(const ir::VarPtr& v) { return v; }
  ir::VarPtr bind(const ir::VarPtr& v);
  ir::IterArgPtr bind_iter_arg(const ir::IterArgPtr& ia, const ir::ExprPtr& new_init);

  ir::ExprPtr mutate_call(const std::shared_ptr<const ir::Call>& e) override;
  ir::StmtPtr mutate_assign(const std::shared_ptr<const ir::AssignStmt>& s) override;
  ir::StmtPtr mutate_if(const std::shared_ptr<const ir::IfStmt>& s) override;
  ir::StmtPtr mutate_for(const std::shared_ptr<const ir::ForStmt>& s) override;
  ir::StmtPtr mutate_while(const std::shared_ptr<const ir::WhileStmt>& s) override;

  std::unordered_map<const ir::Var*, ir::VarPtr> bound_;
};

// Rewrites a function so that each Var for which `new_type` returns a type gets replaced by a new
// Var of that type (same name hint, same span); IterArgs stay IterArgs.
ir::FunctionPtr retype_vars(const ir::FunctionPtr& f,
                            const std::function<ir::TypePtr(const ir::Var&)>& new_type);

// A copy of `v` (fresh identity) with another type; IterArgs keep their init.
ir::VarPtr copy_var_with_type(const ir::Var& v, ir::TypePtr t, std::string name = {});

// A BindingMutator that gives every bound Var a fresh identity (same name, type and span): a body
// copied into another function (an inlined callee, the halves of a mixed kernel).
class FreshCloner : public BindingMutator {
 public:
  // A parameter the body rebinds becomes one local Var, for its uses and its bindings alike (a
  // loop that rebinds it then carries it, as in the callee).
  void bind_param_to(const ir::Var& p, const ir::VarPtr& local) {
    bound_[&p] = local;
    var_map[&p] = local;
  }

 protected:
  // The type follows the copies too: a tile whose valid shape names a Var of the body
  // (valid_shape=[rows, C]) names the copy of that Var.
  ir::VarPtr rebind(const ir::VarPtr& v) override { return copy_var_with_type(*v, mutate_type(v->type)); }
};

// Every Var read in an expression / statement tree (not binding sites).
void collect_uses(const ir::ExprPtr& e, std::unordered_map<const ir::Var*, int>& uses);
void collect_uses(const ir::StmtPtr& s, std::unordered_map<const ir::Var*, int>& uses);
// Vars assigned (AssignStmt targets, return_vars, scope TaskIds) anywhere inside `s`, in
// first-assignment order.
std::vector<ir::VarPtr> collect_assigned(const ir::StmtPtr& s);
// Every AssignStmt inside `s`, nested ones included, in pre-order.
std::vector<const ir::AssignStmt*> collect_assign_stmts(const ir::StmtPtr& s);

// The statement list of a body without its trailing YieldStmt (returned separately, or null).
std::pair<std::vector<ir::StmtPtr>, std::shared_ptr<const ir::YieldStmt>> split_trailing_yield(
    const ir::StmtPtr& body);

// `m`'s mutation of a statement sequence in which a statement that became a SeqStmts (e.g. one
// expanded into several) is spliced into the sequence when `splice(original)` allows it; null
// results are dropped. Returns `s` itself when no statement changed.
ir::StmtPtr mutate_seq_splicing(ir::IRMutator& m, const std::shared_ptr<const ir::SeqStmts>& s,
                                const std::function<bool(const ir::StmtPtr&)>& splice);

// Visits the statements of `f`'s body with `v`, except the function's trailing return (so a
// checker's visit_return sees only early returns).
void visit_body_except_trailing_return(ir::IRVisitor& v, const ir::Function& f);

// "x" → "x_1", "x_1" → "x_2" style fresh-name helper: `base` + "_" + n.
std::string suffixed(const std::string& base, int n);

}  // namespace pypto::passes
