// Structural and stage properties: NoRedundantBlocks, NoNestedCall, SplitIncoreOrch,
// TileOpsOnly, MixedKernelExpanded, TensorStridesMaterialized, CallDirectionsResolved,
// RuntimeScopesMaterialized, TensorAllocsPlanned, ReturnParamsExplicit, IterArgCarryClassified.
#include <fmt/format.h>

#include <optional>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/tensor_roots.h"
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
      const bool gm_scalar = c.op && c.op->kernel_gm_scalar && !c.args.empty() && as_tensor(c.args[0]->type);
      if (c.op && c.op->family() == "tensor" && !gm_scalar)
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
      if (t && t->view && t->view->stride.size() != t->shape.size())  // no view: packed row-major
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

// An orchestration loop carry is a rebind exactly where its yield holds another buffer than it
// carries in (TensorRoots' loop conflicts); kernel carries never rebind.
void check_iter_arg_carry(const Env& env) {
  for (const auto& f : env.program.functions) {
    std::unordered_map<const Var*, bool> changes;  // iter_arg → whether its yield changes buffer
    if (f->type == FunctionType::Orchestration) {
      const TensorRoots roots(env.program, *f);
      for (const auto& c : roots.conflicts())
        if (c.loop) changes[c.target] = true;
    }
    for_each_stmt(f->body, [&](const Stmt& s) {
      const std::vector<IterArgPtr>* ias = nullptr;
      if (const auto* l = as<ForStmt>(&s)) ias = &l->iter_args;
      if (const auto* l = as<WhileStmt>(&s)) ias = &l->iter_args;
      for (const auto& ia : ias ? *ias : std::vector<IterArgPtr>{}) {
        if (!ia) continue;  // malformed IR: TypeChecked reports it
        const bool want = changes.count(ia.get()) > 0;
        if (ia->rebind == want) continue;
        env.report("IterArgCarryClassified", s.span,
                   fmt::format("loop carry '{}' in function '{}' is marked {} but its yield {}", ia->name, f->name,
                               ia->rebind ? "rebind" : "alias", want ? "holds another buffer" : "is the buffer it carries"),
                   "ClassifyIterArgCarry marks each orchestration loop carry");
      }
    });
  }
}

namespace {
// The alloc_batch of `s` when it assigns a tensor.create carrying one, else nullopt.
std::optional<int64_t> alloc_batch_of(const Stmt& s) {
  const auto* a = as<AssignStmt>(&s);
  const auto* c = a ? as<Call>(a->value) : nullptr;
  const AttrValue* b = c && c->is_op("tensor.create") ? c->kwarg("alloc_batch") : nullptr;
  const auto* n = b ? std::get_if<int64_t>(b) : nullptr;
  if (!n || *n < 0) return std::nullopt;
  return *n;
}
}  // namespace

void check_tensor_allocs_planned(const Env& env) {
  for (const auto& f : env.program.functions) {
    if (f->type != FunctionType::Orchestration) continue;
    for_each_call(f->body, [&](const Call& c, const Stmt& s) {
      if (!c.is_op("tensor.create")) return;
      const auto* a = as<AssignStmt>(&s);
      if (!a || a->value.get() != &c)
        env.report("TensorAllocsPlanned", c.span.valid() ? c.span : s.span,
                   fmt::format("a tensor.create in function '{}' is not the value of an assignment", f->name));
      else if (c.kwarg_true("runtime_output"))
        return;  // allocated at its writer's submit, in no batch
      else if (!alloc_batch_of(s))
        env.report("TensorAllocsPlanned", s.span,
                   fmt::format("tensor.create of '{}' in function '{}' has no alloc_batch", a->var->name, f->name),
                   "PlanTensorAllocs assigns every creation its alloc_tensors batch");
    });
    // A batch is one run of consecutive statements of one body.
    std::unordered_map<const Stmt*, bool> continues;  // creation preceded by one of the same batch
    for_each_stmt(f->body, [&](const Stmt& s) {
      const auto* q = as<SeqStmts>(&s);
      for (size_t i = 1; q && i < q->stmts.size(); ++i) {
        auto b = alloc_batch_of(*q->stmts[i]);
        if (b && b == alloc_batch_of(*q->stmts[i - 1])) continues[q->stmts[i].get()] = true;
      }
    });
    std::unordered_map<int64_t, int> runs;
    for_each_stmt(f->body, [&](const Stmt& s) {
      auto b = alloc_batch_of(s);
      if (!b || continues.count(&s) || ++runs[*b] == 1) return;
      env.report("TensorAllocsPlanned", s.span,
                 fmt::format("alloc_batch {} in function '{}' is split: its creations are not consecutive "
                             "statements of one body", *b, f->name),
                 "PlanTensorAllocs puts the creations of one batch next to each other");
    });
  }
}

void check_return_params(const Env& env) {
  for (const auto& f : env.program.functions) {
    if (!is_incore_like(f->type)) continue;
    std::vector<const Var*> outs;
    for (size_t i = 0; i < f->params.size() && i < f->param_directions.size(); ++i)
      if (f->param_directions[i] != ParamDirection::In) outs.push_back(f->params[i].get());
    const TensorRoots roots(env.program, *f);
    for_each_stmt(f->body, [&](const Stmt& s) {
      const auto* r = as<ReturnStmt>(&s);
      if (!r) return;
      for (size_t i = 0; i < r->values.size(); ++i) {
        const Var* root = roots.root(r->values[i]);
        if (i < outs.size() && root == outs[i]) continue;
        env.report("ReturnParamsExplicit", s.span,
                   i < outs.size()
                       ? fmt::format("return value {} of kernel '{}' is not the buffer of Out/InOut parameter '{}'",
                                     i + 1, f->name, outs[i]->name)
                       : fmt::format("kernel '{}' returns {} values but has only {} Out/InOut parameters", f->name,
                                     r->values.size(), outs.size()),
                   "NormalizeReturnOrder makes return[i] the i-th Out/InOut parameter");
      }
    });
  }
}

}  // namespace pypto::ir::verify_detail
