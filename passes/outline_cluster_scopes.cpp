// OutlineClusterScopes — a standalone pl.spmd scope (`for b in pl.spmd(N):`, `with pl.spmd(N)
// [as tid]:`) around one kernel becomes that kernel call's launch spec: the call's dispatch gets
// core_num=N (the runtime runs N blocks of the kernel, each reading its own index through
// pl.tile.get_block_idx), the scope's sync_start=, allow_early_resolve= and deps=; the call becomes
// the pl.spmd_submit it stands for, whose TaskId the scope's `as tid` names. The scope itself goes.
// The reference outlines such a scope into an Spmd function whose call carries the launch spec;
// with one kernel in the body that function only forwards its arguments, so here the kernel call
// carries the spec itself (what the orchestration writes is the same: one task, block_num N).
// A pl.cluster scope around one such dispatch (or one kernel call) shares the cluster with no
// other kernel: it goes, its dispatch stays (the reference outlines it into a one-member Group).
// (The kernels of one cluster — pl.at scopes, kernel calls — were made one kernel by
// OutlineIncoreScopes, which ExpandMixedKernel later splits over the cluster's AIC and AIV cores.)
// Rejected at the scope (E501): a pl.spmd body other than one kernel call (several pl.at scopes,
// orchestration statements), predicate=, a pl.spmd inside a kernel, and a pl.cluster around
// several dispatches still (several pl.spmd scopes, or kernel calls besides one).
// Runs right after OutlineIncoreScopes (the body's pl.at is a kernel call by then). Requires and
// produces no property.
#include <fmt/format.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

[[noreturn]] void reject(const Span& sp, const std::string& what, const std::string& hint) {
  throw CompileError("E501", sp, what + " is not supported yet by the pass pipeline", hint);
}

// The kernel call a statement makes (null: none).
const Call* kernel_call(const StmtPtr& s) {
  const ExprPtr* v = nullptr;
  if (const auto* a = as<AssignStmt>(s)) v = &a->value;
  if (const auto* e = as<EvalStmt>(s)) v = &e->expr;
  const auto* c = v ? as<Call>(*v) : nullptr;
  return c && !c->op ? c : nullptr;
}

class Outliner : public IRMutator {
 public:
  explicit Outliner(bool kernel) : kernel_(kernel) {}

 protected:
  // A replaced scope's statements join the enclosing block (no nested blocks).
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    StmtPtr m = IRMutator::mutate_seq(s);
    if (m == s) return m;
    return make_body(flatten_body(m), s->span);
  }

  StmtPtr mutate_scope(const std::shared_ptr<const ScopeStmt>& s) override {
    if (s->scope == ScopeKind::Cluster) return cluster(s);
    if (s->scope != ScopeKind::Spmd) return IRMutator::mutate_scope(s);
    if (kernel_) reject(s->span, "a pl.spmd scope inside a kernel", "put the pl.spmd loop in the orchestration function");
    if (s->predicate) reject(s->span, "pl.spmd(..., predicate=)", "gate the whole task in orchestration code with an if");
    std::vector<StmtPtr> body = flatten_body(s->body);
    const Call* call = nullptr;
    size_t at = 0;
    for (size_t i = 0; i < body.size(); ++i)
      if (const Call* c = kernel_call(body[i])) {
        if (call)
          reject(s->span, "a pl.spmd body with more than one kernel",
                 "give each kernel its own pl.spmd loop (the reference would make them one Spmd function)");
        call = c, at = i;
      }
    // Besides the call: only the reads of its result tuple.
    for (size_t i = 0; i < body.size(); ++i) {
      const auto* a = as<AssignStmt>(body[i]);
      if (i != at && !(a && as<TupleGetItem>(a->value)))
        reject(body[i]->span, "a statement in a pl.spmd body outside its kernel",
               "move it inside the pl.at scope or before the pl.spmd loop");
    }
    if (!call) reject(s->span, "a pl.spmd body without a kernel", "put the work in a pl.at(level=pl.Level.CORE_GROUP) scope");
    auto d = call->dispatch ? std::make_shared<Dispatch>(*call->dispatch) : std::make_shared<Dispatch>();
    if (d->core_num) reject(s->span, "a pl.spmd around a kernel that already has a launch spec", "drop one of the two");
    d->core_num = s->core_num;
    d->sync_start = d->sync_start || s->sync_start;
    d->allow_early_resolve = d->allow_early_resolve || s->allow_early_resolve;
    if (d->submit && (s->task_id || !s->deps.empty()))
      reject(s->span, "a TaskId or deps= on both a pl.spmd and the pl.at inside it", "state them on the pl.spmd only");
    for (const auto& x : s->deps) d->deps.push_back(x);
    // An SPMD dispatch, as pl.spmd_submit writes it: the results end with the task's TaskId (the
    // scope's tid, or an unused local).
    const bool was_submit = d->submit;
    d->submit = d->spmd = true;
    auto n = std::make_shared<Call>(*call);
    n->dispatch = d;
    std::vector<StmtPtr> out;
    if (was_submit) {  // the pl.at's own submit (`as tid` / deps= on it): the same results, now with a launch spec
      for (size_t i = 0; i < body.size(); ++i) {
        const auto* a = as<AssignStmt>(body[i]);
        out.push_back(i == at && a ? std::make_shared<AssignStmt>(a->var, n, a->span)
                      : i == at    ? StmtPtr(std::make_shared<EvalStmt>(n, body[i]->span))
                                   : body[i]);
      }
    } else {
      std::vector<TypePtr> types;
      if (const auto* t = as_tuple(call->type)) types = t->elems;
      else if (call->type) types = {call->type};
      const size_t results = types.size();
      types.push_back(scalar_type(DataType::TASK_ID));
      n->type = std::make_shared<TupleType>(types);
      auto tup = std::make_shared<Var>(call->callee + "_result", n->type, s->span);
      out.push_back(std::make_shared<AssignStmt>(tup, n, body[at]->span));
      const auto* a = as<AssignStmt>(body[at]);
      if (a && !as_tuple(call->type))  // one result: now element 0
        out.push_back(std::make_shared<AssignStmt>(a->var, std::make_shared<TupleGetItem>(tup, 0, types[0], s->span), s->span));
      for (size_t i = 0; i < body.size(); ++i) {  // the reads of a result tuple: of the new one
        if (i == at) continue;
        const auto* g = as<AssignStmt>(body[i]);
        const auto* get = as<TupleGetItem>(g->value);
        out.push_back(std::make_shared<AssignStmt>(
            g->var, std::make_shared<TupleGetItem>(tup, get->index, g->var->type, g->span), g->span));
      }
      VarPtr tid = s->task_id ? s->task_id : std::make_shared<Var>(call->callee + "_task", types.back(), s->span);
      out.push_back(std::make_shared<AssignStmt>(tid, std::make_shared<TupleGetItem>(tup, int(results), types.back(), s->span),
                                                 s->span));
    }
    if (!out.empty()) out.front() = with_comments(std::const_pointer_cast<Stmt>(out.front()), *s);
    return make_body(std::move(out), s->span);
  }

 private:
  // A pl.cluster scope around one kernel dispatch (a pl.spmd around one kernel, or one kernel call,
  // also the one kernel its pl.at scopes became) co-schedules nothing else with it: the scope goes
  // and its dispatch stays. Several kernel calls in one cluster are rejected.
  StmtPtr cluster(const std::shared_ptr<const ScopeStmt>& s) {
    if (kernel_) reject(s->span, "a pl.cluster scope inside a kernel", "put the pl.cluster scope in the orchestration function");
    if (s->has_dispatch_options())
      reject(s->span, "a pl.cluster scope with dispatch options", "state them on the pl.spmd or pl.at inside it");
    size_t dispatches = 0;
    for (const auto& st : flatten_body(s->body)) {
      const auto* inner = as<ScopeStmt>(st);
      const auto* a = as<AssignStmt>(st);
      if ((inner && inner->scope == ScopeKind::Spmd) || kernel_call(st)) ++dispatches;
      else if (!(a && as<TupleGetItem>(a->value)))
        reject(st->span, "a statement in a pl.cluster body outside its kernel", "move it before or after the pl.cluster scope");
    }
    if (dispatches != 1)
      reject(s->span, dispatches ? "a pl.cluster scope with more than one kernel" : "a pl.cluster scope without a kernel",
             "write the kernels' work as pl.at scopes inside the pl.cluster (they become one kernel whose cube and "
             "vector work share the cluster's cores), or give each kernel its own scope");
    std::vector<StmtPtr> out = flatten_body(mutate(s->body));
    if (!out.empty()) out.front() = with_comments(std::const_pointer_cast<Stmt>(out.front()), *s);
    return make_body(std::move(out), s->span);
  }

  bool kernel_;
};

}  // namespace

Pass outline_cluster_scopes_pass() {
  return Pass{"OutlineClusterScopes",
              "A standalone pl.spmd scope around one kernel becomes that call's launch spec (core_num, sync_start, "
              "allow_early_resolve; deps= / `as tid` make it a submit); a pl.cluster scope around one kernel dispatch goes; "
              "pl.cluster scopes around several dispatches and other pl.spmd bodies are "
              "rejected at their line.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [](const FunctionPtr& f) {
                  if (!f->body) return f;
                  const bool kernel = f->type == FunctionType::InCore || f->type == FunctionType::AIV ||
                                      f->type == FunctionType::AIC;
                  Outliner o(kernel);
                  StmtPtr b = o.mutate(f->body);
                  if (b == f->body) return f;
                  auto g = std::make_shared<Function>(*f);
                  g->body = b;
                  return FunctionPtr(g);
                });
              }};
}

}  // namespace pypto::passes
