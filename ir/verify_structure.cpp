// Structural and stage properties: NoRedundantBlocks, NoNestedCall, SplitIncoreOrch,
// TileOpsOnly, MixedKernelExpanded, TensorStridesMaterialized, CallDirectionsResolved,
// RuntimeScopesMaterialized.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/verify_util.h"

namespace pypto::ir::verify_detail {

void check_no_redundant_blocks(const Env& env) {
  for (const auto& f : env.program.functions)
    for_each_stmt(f->body, [&](const Stmt& s) {
      const auto* q = as<SeqStmts>(&s);
      if (!q) return;
      if (q->stmts.size() == 1)
        env.report("NoRedundantBlocks", s.span,
                   fmt::format("block with a single statement in function '{}'", f->name),
                   "a one-statement body is the statement itself");
      for (const auto& c : q->stmts)
        if (as<SeqStmts>(c))
          env.report("NoRedundantBlocks", c->span, fmt::format("nested block in function '{}'", f->name),
                     "flatten nested SeqStmts into their parent");
    });
}

namespace {
// First Call inside `e` (including e itself when `self` is true).
const Call* find_call(const ExprPtr& e, bool self) {
  if (!e) return nullptr;
  if (const auto* c = as<Call>(e)) {
    if (self) return c;
    for (const auto& a : c->args)
      if (const auto* n = find_call(a, true)) return n;
    return nullptr;
  }
  if (const auto* b = as<Binary>(e)) {
    if (const auto* n = find_call(b->a, true)) return n;
    return find_call(b->b, true);
  }
  if (const auto* u = as<Unary>(e)) return find_call(u->a, true);
  if (const auto* t = as<MakeTuple>(e)) {
    for (const auto& a : t->elems)
      if (const auto* n = find_call(a, true)) return n;
    return nullptr;
  }
  if (const auto* g = as<TupleGetItem>(e)) return find_call(g->tuple, true);
  return nullptr;
}
std::string call_name(const Call& c) { return c.op ? "pl." + c.op->name : "self." + c.callee; }
}  // namespace

void check_no_nested_call(const Env& env) {
  for (const auto& f : env.program.functions)
    for_each_stmt(f->body, [&](const Stmt& s) {
      auto flag = [&](const ExprPtr& e, bool top_may_call, std::string_view where) {
        if (const auto* c = find_call(e, !(top_may_call && as<Call>(e))))
          env.report("NoNestedCall", c->span.valid() ? c->span : s.span,
                     fmt::format("call to {} nested in {} (function '{}')", call_name(*c), where, f->name),
                     "bind the call's result to a variable first (three-address form)");
      };
      if (const auto* a = as<AssignStmt>(&s)) flag(a->value, true, "an expression");
      else if (const auto* e = as<EvalStmt>(&s)) flag(e->expr, true, "an expression");
      else if (const auto* i = as<IfStmt>(&s)) flag(i->cond, false, "an if condition");
      else if (const auto* w = as<WhileStmt>(&s)) flag(w->cond, false, "a while condition");
      else if (const auto* l = as<ForStmt>(&s)) {
        flag(l->start, false, "a loop bound");
        flag(l->stop, false, "a loop bound");
        flag(l->step, false, "a loop bound");
      }
    });
}

void check_split_incore_orch(const Env& env) {
  for (const auto& f : env.program.functions)
    for_each_stmt(f->body, [&](const Stmt& s) {
      if (const auto* sc = as<ScopeStmt>(&s); sc && sc->scope == ScopeKind::InCore)
        env.report("SplitIncoreOrch", s.span,
                   fmt::format("InCore scope left inside function '{}'", f->name),
                   "OutlineIncoreScopes should have outlined it into an InCore function");
    });
}

void check_tile_ops_only(const Env& env) {
  for (const auto& f : env.program.functions) {
    if (!is_incore_like(f->type)) continue;
    for_each_call(f->body, [&](const Call& c, const Stmt& s) {
      if (c.op && c.op->family() == "tensor")
        env.report("TileOpsOnly", c.span.valid() ? c.span : s.span,
                   fmt::format("tensor op 'pl.{}' left in kernel '{}'", c.op->name, f->name),
                   "ConvertTensorToTileOps lowers tensor ops in kernels to tile ops");
    });
  }
}

void check_mixed_kernel_expanded(const Env& env) {
  for (const auto& f : env.program.functions)
    if (f->type == FunctionType::InCore)
      env.report("MixedKernelExpanded", f->span,
                 fmt::format("function '{}' is still InCore", f->name),
                 "ExpandMixedKernel retags kernels as AIC / AIV (or splits them)");
}

void check_tensor_strides(const Env& env) {
  for (const auto& f : env.program.functions)
    for_each_binding(*f, [&](const Var& v, const Span& sp) {
      const auto* t = as_tensor(v.type);
      if (t && (!t->view || t->view->stride.size() != t->shape.size()))
        env.report("TensorStridesMaterialized", sp,
                   fmt::format("tensor '{}' in function '{}' has no explicit strides", v.name, f->name));
    });
}

void check_call_directions(const Env& env) {
  for (const auto& f : env.program.functions)
    for_each_call(f->body, [&](const Call& c, const Stmt& s) {
      if (c.op || c.arg_directions.size() == c.args.size()) return;
      env.report("CallDirectionsResolved", c.span.valid() ? c.span : s.span,
                 fmt::format("call to '{}' in function '{}' has {} argument directions for {} arguments",
                             c.callee, f->name, c.arg_directions.size(), c.args.size()),
                 "DeriveCallDirections assigns one direction per argument");
    });
}

void check_runtime_scopes(const Env& env) {
  for (const auto& f : env.program.functions) {
    if (f->type != FunctionType::Orchestration || !f->auto_scope) continue;
    env.report("RuntimeScopesMaterialized", f->span,
               fmt::format("Orchestration function '{}' still has auto_scope=True", f->name),
               "MaterializeRuntimeScopes wraps the body in runtime scopes and clears auto_scope");
  }
}

}  // namespace pypto::ir::verify_detail
