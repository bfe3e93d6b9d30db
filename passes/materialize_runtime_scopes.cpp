// MaterializeRuntimeScopes — makes the runtime's task scopes explicit in orchestration functions:
// the function body and the body of every for / while loop and if arm are wrapped in an AUTO runtime
// ScopeStmt (one PTO2_SCOPE each in the generated C++). A trailing `return` or `yield` stays
// outside the scope, right after it, so the scope holds exactly the statements that submit work.
// Bodies that are already a runtime scope are left alone (idempotent); the function's auto_scope
// flag is cleared because its scopes are now explicit. Produces
// RuntimeScopesMaterialized.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

StmtPtr wrap(const StmtPtr& body) {
  if (!body) return body;
  std::vector<StmtPtr> stmts = flatten_body(body);
  StmtPtr tail;
  if (!stmts.empty() && (as<ReturnStmt>(stmts.back()) || as<YieldStmt>(stmts.back()))) {
    tail = stmts.back();
    stmts.pop_back();
  }
  if (stmts.empty()) return body;
  if (stmts.size() == 1)
    if (const auto* sc = as<ScopeStmt>(stmts[0]); sc && sc->scope == ScopeKind::Runtime) return body;
  auto scope = std::make_shared<ScopeStmt>(ScopeKind::Runtime, make_body(stmts, stmts.front()->span),
                                           stmts.front()->span);
  std::vector<StmtPtr> out{scope};
  if (tail) out.push_back(tail);
  return make_body(std::move(out), body->span);
}

class Wrapper : public IRMutator {
 protected:
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    StmtPtr body = wrap(mutate(s->body));
    if (body == s->body) return s;
    return with_comments(std::make_shared<ForStmt>(s->loop_var, s->start, s->stop, s->step, s->iter_args, body,
                                                   s->return_vars, s->kind, s->span, s->stage), *s);
  }
  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    StmtPtr body = wrap(mutate(s->body));
    if (body == s->body) return s;
    auto n = std::make_shared<WhileStmt>(*s);
    n->body = body;
    return n;
  }
  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    StmtPtr t = wrap(mutate(s->then_body)), e = wrap(mutate(s->else_body));
    if (t == s->then_body && e == s->else_body) return s;
    return with_comments(std::make_shared<IfStmt>(s->cond, t, e, s->return_vars, s->span), *s);
  }
};

FunctionPtr wrap_function(const FunctionPtr& f) {
  if (f->type != FunctionType::Orchestration) return f;
  Wrapper w;
  StmtPtr body = wrap(w.mutate(f->body));
  if (body == f->body && !f->auto_scope) return f;
  auto g = std::make_shared<Function>(*f);
  g->body = body;
  g->auto_scope = false;  // the scopes are explicit now
  return g;
}

}  // namespace

Pass materialize_runtime_scopes_pass() {
  return Pass{"MaterializeRuntimeScopes",
              "Wraps the body of every orchestration function, and of each of its for / while loops and if arms, in "
              "an AUTO runtime scope (a trailing return/yield stays after the scope).",
              {{}, {Property::RuntimeScopesMaterialized}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, wrap_function); }};
}

}  // namespace pypto::passes
