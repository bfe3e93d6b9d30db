// Scoping rules: UseAfterDef (every use is preceded by a definition on every path) and SSAForm
// (single assignment, no use outside the defining scope, well-formed yields and carries).
//
// Scopes: params, program dynamic dims and the symbols in parameter / return types are visible
// everywhere; an assignment defines its var after its value; loop vars and iter_args are
// visible in the loop body only; return_vars after the statement. Without return_vars a loop or
// if "leaks" its body definitions (front-end output before ConvertToSSA) — UseAfterDef accepts
// that, SSAForm does not. ScopeStmts are transparent. MemRef bases count as uses when the
// function defines them (tile.alloc); bases defined nowhere are external (DDR) buffers.
#include <fmt/format.h>

#include <unordered_set>

#include "ir/verify_util.h"

namespace pypto::ir::verify_detail {
namespace {

using VarSet = std::unordered_set<const Var*>;

class ScopeWalker {
 public:
  ScopeWalker(const Env& env, const Function& fn, bool strict, std::string_view rule)
      : env_(env), fn_(fn), strict_(strict), rule_(rule) {
    for_each_binding(fn, [&](const Var& v, const Span&) { bound_anywhere_.insert(&v); });
  }

  void run() {
    for (const auto& d : env_.program.dynamic_dims) scope_.insert(d.get());
    for (const auto& p : fn_.params) {
      scope_.insert(p.get());
      defined_once_.insert(p.get());
      for_each_type_var(p->type, [&](const Var& v) { scope_.insert(&v); });
    }
    for (const auto& t : fn_.return_types) for_each_type_var(t, [&](const Var& v) { scope_.insert(&v); });
    stmt(fn_.body);
  }

 private:
  void use(const Var& v, const Span& site) {
    if (scope_.count(&v)) return;
    if (strict_) {
      if (bound_anywhere_.count(&v))
        env_.report(rule_, site, fmt::format("Variable '{}' is used outside its defining scope in function '{}'",
                                              v.name, fn_.name),
                    "carry the value out of the loop / if with iter_args or return_vars");
      return;  // undefined vars are UseAfterDef's business
    }
    env_.report(rule_, site, fmt::format("Variable '{}' used before definition in function '{}'", v.name, fn_.name));
  }
  void expr(const ExprPtr& e, const Span& site) {
    for_each_var_use(e, site, [&](const Var& v, const Span& s) { use(v, s); });
  }
  void type(const TypePtr& t, const Span& site) {
    if (strict_) return;
    for_each_type_var(
        t, [&](const Var& v) { use(v, site); },
        [&](const Var& base) {
          if (bound_anywhere_.count(&base)) use(base, site);
        });
  }
  void def(const Var* v, const Span& site) {
    if (!v) return;
    type(v->type, site);
    if (strict_ && !defined_once_.insert(v).second)
      env_.report(rule_, site, fmt::format("Variable '{}' is assigned more than once in function '{}'", v->name, fn_.name),
                  "SSA form binds every variable exactly once");
    scope_.insert(v);
  }

  void stmt(const StmtPtr& s) {
    if (!s) return;
    const Span& sp = s->span;
    switch (s->kind) {
      case NodeKind::AssignStmt: {
        const auto& a = static_cast<const AssignStmt&>(*s);
        expr(a.value, sp);
        def(a.var.get(), sp);
        return;
      }
      case NodeKind::EvalStmt: return expr(static_cast<const EvalStmt&>(*s).expr, sp);
      case NodeKind::ReturnStmt:
        for (const auto& v : static_cast<const ReturnStmt&>(*s).values) expr(v, sp);
        return;
      case NodeKind::YieldStmt:
        for (const auto& v : static_cast<const YieldStmt&>(*s).values) expr(v, sp);
        return;
      case NodeKind::SeqStmts:
        for (const auto& c : static_cast<const SeqStmts&>(*s).stmts) stmt(c);
        return;
      case NodeKind::ScopeStmt: {
        const auto& sc = static_cast<const ScopeStmt&>(*s);
        for (const auto& e : sc.header_exprs()) expr(e, sp);
        stmt(sc.body);
        if (sc.task_id) def(sc.task_id.get(), sp);  // `as tid` is visible after the scope
        return;
      }
      case NodeKind::IfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        expr(i.cond, sp);
        VarSet saved = scope_;
        stmt(i.then_body);
        VarSet then_scope = std::move(scope_);
        scope_ = saved;
        stmt(i.else_body);
        if (!i.return_vars.empty() || strict_) {
          scope_ = std::move(saved);
        } else {
          scope_.insert(then_scope.begin(), then_scope.end());
        }
        for (const auto& rv : i.return_vars) def(rv.get(), sp);
        return;
      }
      case NodeKind::ForStmt: {
        const auto& l = static_cast<const ForStmt&>(*s);
        expr(l.start, sp);
        expr(l.stop, sp);
        expr(l.step, sp);
        for (const auto& ia : l.iter_args) if (ia) expr(ia->init, sp);
        VarSet saved = scope_;
        def(l.loop_var.get(), sp);
        for (const auto& ia : l.iter_args) def(ia.get(), sp);
        stmt(l.body);
        loop_exit(saved, l.return_vars, sp, l.loop_var.get(), l.iter_args);
        return;
      }
      case NodeKind::WhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        for (const auto& ia : w.iter_args) if (ia) expr(ia->init, sp);
        VarSet saved = scope_;
        for (const auto& ia : w.iter_args) def(ia.get(), sp);
        expr(w.cond, sp);
        stmt(w.body);
        loop_exit(saved, w.return_vars, sp, nullptr, w.iter_args);
        return;
      }
      default: return;
    }
  }

  void loop_exit(VarSet& saved, const std::vector<VarPtr>& rvs, const Span& sp, const Var* loop_var,
                 const std::vector<IterArgPtr>& ias) {
    if (!rvs.empty() || strict_) {
      scope_ = std::move(saved);
    } else {
      if (loop_var) scope_.erase(loop_var);
      for (const auto& ia : ias) scope_.erase(ia.get());
    }
    for (const auto& rv : rvs) def(rv.get(), sp);
  }

  const Env& env_;
  const Function& fn_;
  bool strict_;
  std::string_view rule_;
  VarSet scope_, bound_anywhere_, defined_once_;
};

// Structured-SSA shape of loops and ifs: carries, yields and their counts.
class YieldChecker {
 public:
  YieldChecker(const Env& env, const Function& fn) : env_(env), fn_(fn) {}

  void run() { block(fn_.body, -1, "function body"); }

 private:
  void report(const Span& sp, std::string msg, std::string hint = {}) {
    env_.report("SSAForm", sp, fmt::format("{} (function '{}')", msg, fn_.name), std::move(hint));
  }

  // Checks a body; `want` = number of values its trailing yield must carry (-1: no yield allowed).
  // A loop body's yield may end a runtime scope that ends the body (trailing_yield:
  // ClassifyIterArgCarry puts it there when it hands on a buffer the scope makes); `loop`: a loop
  // body, `nested`: such a scope's body.
  void block(const StmtPtr& body, int want, std::string_view what, bool loop = false, bool nested = false) {
    auto stmts = flatten_body(body);
    for (size_t i = 0; i < stmts.size(); ++i) {
      const auto* sc = as<ScopeStmt>(stmts[i]);
      if (sc && loop && sc->scope == ScopeKind::Runtime && want >= 0 && i + 1 == stmts.size()) {
        block(sc->body, want, what, /*loop=*/true, /*nested=*/true);
        continue;
      }
      const bool last = i + 1 == stmts.size();
      if (const auto* y = as<YieldStmt>(stmts[i])) {
        if (!last || want < 0) {
          report(y->span, fmt::format("misplaced yield in {}", what),
                 "a yield must be the last statement of a loop body or if branch");
        } else if (static_cast<int>(y->values.size()) != want) {
          report(y->span, fmt::format("yield carries {} values but the {} expects {}", y->values.size(), what, want));
        }
        continue;
      }
      stmt(stmts[i]);
    }
    if (want > 0 && !nested && !trailing_yield(body))
      report(stmts.empty() ? body ? body->span : fn_.span : stmts.back()->span,
             fmt::format("{} must end with a yield of {} values", what, want));
  }

  void stmt(const StmtPtr& s) {
    if (const auto* l = as<ForStmt>(s)) {
      carry_counts(s->span, l->iter_args.size(), l->return_vars.size(), "for");
      block(l->body, l->iter_args.empty() ? 0 : static_cast<int>(l->iter_args.size()), "for body", /*loop=*/true);
    } else if (const auto* w = as<WhileStmt>(s)) {
      carry_counts(s->span, w->iter_args.size(), w->return_vars.size(), "while");
      block(w->body, w->iter_args.empty() ? 0 : static_cast<int>(w->iter_args.size()), "while body", /*loop=*/true);
    } else if (const auto* i = as<IfStmt>(s)) {
      const int n = i->return_vars.empty() ? -1 : static_cast<int>(i->return_vars.size());
      if (n > 0 && !i->else_body)
        report(s->span, fmt::format("if with {} return_vars has no else branch", n),
               "both branches must yield the if's results");
      block(i->then_body, n, "then branch");
      if (i->else_body) block(i->else_body, n, "else branch");
    } else if (const auto* sc = as<ScopeStmt>(s)) {
      block(sc->body, -1, "scope body");
    }
  }

  void carry_counts(const Span& sp, size_t iter_args, size_t return_vars, std::string_view loop) {
    if (iter_args != return_vars)
      report(sp, fmt::format("{} loop has {} iter_args but {} return_vars", loop, iter_args, return_vars));
  }

  const Env& env_;
  const Function& fn_;
};

}  // namespace

void check_use_after_def(const Env& env) {
  for (const auto& f : env.program.functions) ScopeWalker(env, *f, false, "UseAfterDef").run();
}

void check_ssa(const Env& env) {
  for (const auto& f : env.program.functions) {
    ScopeWalker(env, *f, true, "SSAForm").run();
    YieldChecker(env, *f).run();
  }
}

}  // namespace pypto::ir::verify_detail
