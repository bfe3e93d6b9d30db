// IR statements (structured SSA): assignments, loops with iter_args/yield/return_vars, ifs with
// return_vars (phis), scopes (InCore / Cluster / Spmd / Hierarchy / Runtime) that run their body
// once and are transparent to data flow. Comments from the source ride along as
// `leading_comments` and are ignored by structural equality.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace pypto::ir {

struct Stmt : IRNode {
  Stmt(NodeKind k, Span s) : IRNode(k, std::move(s)) {}
  std::vector<std::string> leading_comments;  // without the leading '#'
};
using StmtPtr = std::shared_ptr<const Stmt>;

struct AssignStmt : Stmt {
  AssignStmt(VarPtr v, ExprPtr e, Span s) : Stmt(NodeKind::AssignStmt, std::move(s)), var(std::move(v)), value(std::move(e)) {}
  VarPtr var;
  ExprPtr value;
};

struct EvalStmt : Stmt {
  EvalStmt(ExprPtr e, Span s) : Stmt(NodeKind::EvalStmt, std::move(s)), expr(std::move(e)) {}
  ExprPtr expr;
};

struct ReturnStmt : Stmt {
  ReturnStmt(std::vector<ExprPtr> v, Span s) : Stmt(NodeKind::ReturnStmt, std::move(s)), values(std::move(v)) {}
  std::vector<ExprPtr> values;
};

struct YieldStmt : Stmt {
  YieldStmt(std::vector<ExprPtr> v, Span s) : Stmt(NodeKind::YieldStmt, std::move(s)), values(std::move(v)) {}
  std::vector<ExprPtr> values;
};

struct SeqStmts : Stmt {
  SeqStmts(std::vector<StmtPtr> b, Span s) : Stmt(NodeKind::SeqStmts, std::move(s)), stmts(std::move(b)) {}
  std::vector<StmtPtr> stmts;
};

struct IfStmt : Stmt {
  IfStmt(ExprPtr c, StmtPtr t, StmtPtr e, std::vector<VarPtr> rv, Span s)
      : Stmt(NodeKind::IfStmt, std::move(s)), cond(std::move(c)), then_body(std::move(t)),
        else_body(std::move(e)), return_vars(std::move(rv)) {}
  ExprPtr cond;
  StmtPtr then_body;
  StmtPtr else_body;  // may be null
  std::vector<VarPtr> return_vars;
};

struct ForStmt : Stmt {
  ForStmt(VarPtr lv, ExprPtr st, ExprPtr sp, ExprPtr stp, std::vector<IterArgPtr> ia, StmtPtr b,
          std::vector<VarPtr> rv, ForKind k, Span s, int64_t stage_ = 0)
      : Stmt(NodeKind::ForStmt, std::move(s)), loop_var(std::move(lv)), start(std::move(st)),
        stop(std::move(sp)), step(std::move(stp)), iter_args(std::move(ia)), body(std::move(b)),
        return_vars(std::move(rv)), kind(k), stage(stage_) {}
  VarPtr loop_var;
  ExprPtr start, stop, step;
  std::vector<IterArgPtr> iter_args;
  StmtPtr body;
  std::vector<VarPtr> return_vars;
  ForKind kind;
  int64_t stage;  // pl.pipeline(stage=N); 0 otherwise
};

struct WhileStmt : Stmt {
  WhileStmt(ExprPtr c, std::vector<IterArgPtr> ia, StmtPtr b, std::vector<VarPtr> rv, Span s)
      : Stmt(NodeKind::WhileStmt, std::move(s)), cond(std::move(c)), iter_args(std::move(ia)),
        body(std::move(b)), return_vars(std::move(rv)) {}
  ExprPtr cond;
  std::vector<IterArgPtr> iter_args;
  StmtPtr body;
  std::vector<VarPtr> return_vars;
};

struct BreakStmt : Stmt {
  explicit BreakStmt(Span s) : Stmt(NodeKind::BreakStmt, std::move(s)) {}
};
struct ContinueStmt : Stmt {
  explicit ContinueStmt(Span s) : Stmt(NodeKind::ContinueStmt, std::move(s)) {}
};

struct ScopeStmt : Stmt {
  ScopeStmt(ScopeKind k, StmtPtr b, Span s) : Stmt(NodeKind::ScopeStmt, std::move(s)), scope(k), body(std::move(b)) {}
  ScopeKind scope;
  StmtPtr body;
  std::string name_hint;        // pl.at / pl.cluster / pl.spmd (name_hint=...)
  std::optional<Level> level;   // InCore (CORE_GROUP) and Hierarchy scopes
  std::optional<Role> role;     // Hierarchy
  ExprPtr core_num;             // Spmd
  bool manual = false;          // Runtime: PTO2_SCOPE(PTO2ScopeMode::MANUAL)
  // ---- dispatch options (what the source wrote; the pipeline rejects those it cannot honour yet)
  // InCore: optimizations=[pl.split(mode)] (nullopt = none written; NONE is dropped by the front
  // end); SplitAiv: the required mode=.
  std::optional<SplitMode> split;
  std::optional<int64_t> slot_num;   // InCore: optimizations=[pl.cross_core_slot(slot_num=N)]
  std::vector<ExprPtr> deps;         // InCore / Hierarchy / Spmd: deps=[tid, ...] (TaskIds, TaskId arrays)
  std::vector<VarPtr> no_dep_args;   // InCore / Hierarchy: no_dep_args=[t, ...] (captured tensors)
  std::vector<VarPtr> dumps;         // InCore / Hierarchy / Cluster: dumps=[t, ...] (tensors to dump)
  VarPtr task_id;                    // `with ... as tid`: a TASK_ID scalar bound by the scope, visible after it
  bool allow_early_resolve = false;  // InCore / Hierarchy / Spmd: allow_early_resolve=True
  bool sync_start = false;           // Spmd: sync_start=True
  bool windowize = false;            // InCore / Hierarchy: windowize=True
  ExprPtr predicate;                 // Spmd: predicate=<bool expression> gating the dispatch

  // Every expression the scope's header reads (core_num, deps, no_dep_args, dumps, predicate),
  // in print order; nulls skipped. The body and the bound task_id are not included.
  std::vector<ExprPtr> header_exprs() const;
  // Does the scope carry any dispatch option beyond its kind, level, role and name?
  bool has_dispatch_options() const;
};

template <class T> const T* as(const std::shared_ptr<const Stmt>& s) { return as<T>(s.get()); }

// Statements of a body: the children of a SeqStmts, or the statement itself.
std::vector<StmtPtr> flatten_body(const StmtPtr& body);
// A body from a statement list: the single statement, or a SeqStmts (flattening nested ones).
StmtPtr make_body(std::vector<StmtPtr> stmts, Span span = {});
// The yield that ends `body`, possibly inside the body's trailing scope; nullptr when none.
const YieldStmt* trailing_yield(const StmtPtr& body);
// The function's closing `return`: the last statement of `body`, or of the scope that ends it
// (MaterializeRuntimeScopes puts an orchestration function's return inside its outer scope).
const ReturnStmt* trailing_return(const StmtPtr& body);

}  // namespace pypto::ir
