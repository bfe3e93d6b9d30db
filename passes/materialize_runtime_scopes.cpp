// MaterializeRuntimeScopes — makes the runtime's task scopes explicit in orchestration functions:
// the function body and the body of every for / while loop and if arm are wrapped in an AUTO runtime
// ScopeStmt (one PTO2_SCOPE each in the generated C++). The function's closing `return` goes inside
// its scope, as the reference writes it (ir::trailing_return finds it there); a loop's or if arm's
// trailing `yield` stays outside, right after the scope. Nothing inside a
// manual scope is wrapped, at any depth: an AUTO scope there would turn dependency tracking back on
// for tasks whose order the program states by hand (the runtime forbids AUTO inside MANUAL).
// Bodies that are already a runtime scope are left alone; the function's auto_scope flag is cleared
// because its scopes are now explicit, and a function whose flag is clear (this pass ran, or its
// author opted out with auto_scope=False) is left as it is. Produces RuntimeScopesMaterialized.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

StmtPtr wrap(const StmtPtr& body, bool function_body = false) {
  if (!body) return body;
  std::vector<StmtPtr> stmts = flatten_body(body);
  StmtPtr tail;
  if (!stmts.empty() && ((!function_body && as<ReturnStmt>(stmts.back())) || as<YieldStmt>(stmts.back()))) {
    tail = stmts.back();
    stmts.pop_back();
  }
  if (stmts.empty()) return body;
  const bool ends_in_return = function_body && as<ReturnStmt>(stmts.back());
  if (stmts.size() == 1 + size_t(ends_in_return))
    if (const auto* sc = as<ScopeStmt>(stmts[0]); sc && sc->scope == ScopeKind::Runtime && !sc->manual) {
      if (!ends_in_return) return body;
      auto n = std::make_shared<ScopeStmt>(*sc);  // the return joins the scope that is there
      n->body = make_body({sc->body, stmts[1]}, sc->span);
      return n;
    }
  auto scope = std::make_shared<ScopeStmt>(ScopeKind::Runtime, make_body(stmts, stmts.front()->span),
                                           stmts.front()->span);
  std::vector<StmtPtr> out{scope};
  if (tail) out.push_back(tail);
  return make_body(std::move(out), body->span);
}

class Wrapper : public IRMutator {
 protected:
  // A manual scope's body keeps its bodies bare, at every depth.
  StmtPtr mutate_scope(const std::shared_ptr<const ScopeStmt>& s) override {
    if (s->scope == ScopeKind::Runtime && s->manual) return s;
    return IRMutator::mutate_scope(s);
  }
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
  // auto_scope=False: the scopes are explicit already (this pass ran, or the author opted out
  // with @pl.function(auto_scope=False) and wrote them by hand).
  if (f->type != FunctionType::Orchestration || !f->auto_scope) return f;
  Wrapper w;
  StmtPtr body = wrap(w.mutate(f->body), /*function_body=*/true);
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
              "an AUTO runtime scope (the function's return inside its scope, a trailing yield after it); nothing "
              "inside a manual scope is wrapped.",
              {{}, {Property::RuntimeScopesMaterialized}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, wrap_function); }};
}

}  // namespace pypto::passes
