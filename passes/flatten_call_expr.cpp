// FlattenCallExpr — three-address form: a call may only appear as the whole right-hand side of an
// assignment or as an expression statement. Calls nested in call arguments (also inside index
// lists, and a task's or a scope's deps=), operators, return/yield values, if conditions, loop bounds and iter_arg inits are
// hoisted, innermost first, into fresh temporaries assigned just before the statement; so are a
// launch's core_num= (pl.spmd / pl.spmd_submit widths such as pl.system.available_aiv_count()).
// Produces NoNestedCall; keeps SSAForm (every temporary is assigned once).
#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class Flattener {
 public:
  StmtPtr block(const StmtPtr& body) {
    if (!body) return body;
    std::vector<StmtPtr> out;
    for (const auto& s : flatten_body(body)) stmt(s, out);
    return make_body(std::move(out), body->span);
  }

 private:
  // Returns `e` with nested calls hoisted into `pre`; a call at the top (`top`) stays in place.
  ExprPtr flat(const ExprPtr& e, bool top, std::vector<StmtPtr>& pre) {
    if (!e) return e;
    switch (e->kind) {
      case NodeKind::Call: {
        const auto* c = as<Call>(e);
        std::vector<ExprPtr> args;
        bool changed = false;
        for (const auto& a : c->args) {
          args.push_back(flat(a, false, pre));
          changed |= args.back() != a;
        }
        ExprPtr call = changed ? rebuild_call(*c, std::move(args)) : e;
        if (c->dispatch && (!c->dispatch->deps.empty() || c->dispatch->core_num)) {
          // deps=[tids[i] for i in ...]: element reads; core_num=pl.system.available_aiv_count()
          auto d = std::make_shared<Dispatch>(*c->dispatch);
          bool dchanged = false;
          for (auto& x : d->deps) {
            ExprPtr fx = flat(x, false, pre);
            dchanged |= fx != x;
            x = fx;
          }
          ExprPtr cn = flat(d->core_num, false, pre);
          dchanged |= cn != d->core_num;
          d->core_num = cn;
          if (dchanged) {
            auto n = std::make_shared<Call>(*as<Call>(call));
            n->dispatch = d;
            call = n;
          }
        }
        if (top) return call;
        auto tmp = make_var(c->op ? std::string(c->op->short_name()) : c->callee, call->type, e->span);
        pre.push_back(std::make_shared<AssignStmt>(tmp, call, e->span));
        return tmp;
      }
      case NodeKind::Binary: {
        const auto* b = as<Binary>(e);
        ExprPtr x = flat(b->a, false, pre), y = flat(b->b, false, pre);
        if (x == b->a && y == b->b) return e;
        return std::make_shared<Binary>(b->op, x, y, b->type, b->span);
      }
      case NodeKind::Unary: {
        const auto* u = as<Unary>(e);
        ExprPtr x = flat(u->a, false, pre);
        if (x == u->a) return e;
        return std::make_shared<Unary>(u->op, x, u->type, u->span);
      }
      case NodeKind::MakeTuple: {
        const auto* t = as<MakeTuple>(e);
        std::vector<ExprPtr> el;
        bool changed = false;
        for (const auto& x : t->elems) {
          el.push_back(flat(x, false, pre));
          changed |= el.back() != x;
        }
        if (!changed) return e;
        return std::make_shared<MakeTuple>(std::move(el), t->type, t->span);
      }
      case NodeKind::TupleGetItem: {
        const auto* g = as<TupleGetItem>(e);
        ExprPtr x = flat(g->tuple, false, pre);
        if (x == g->tuple) return e;
        return std::make_shared<TupleGetItem>(x, g->index, g->type, g->span);
      }
      default: return e;
    }
  }

  std::vector<ExprPtr> flat_list(const std::vector<ExprPtr>& in, std::vector<StmtPtr>& pre, bool& changed) {
    std::vector<ExprPtr> out;
    for (const auto& e : in) {
      out.push_back(flat(e, false, pre));
      changed |= out.back() != e;
    }
    return out;
  }

  void stmt(const StmtPtr& s, std::vector<StmtPtr>& out) {
    std::vector<StmtPtr> pre;
    StmtPtr r = s;
    switch (s->kind) {
      case NodeKind::AssignStmt: {
        const auto* a = as<AssignStmt>(s);
        ExprPtr v = flat(a->value, true, pre);
        if (v != a->value) r = with_comments(std::make_shared<AssignStmt>(a->var, v, s->span), *s);
        break;
      }
      case NodeKind::EvalStmt: {
        const auto* a = as<EvalStmt>(s);
        ExprPtr v = flat(a->expr, true, pre);
        if (v != a->expr) r = with_comments(std::make_shared<EvalStmt>(v, s->span), *s);
        break;
      }
      case NodeKind::ReturnStmt: {
        bool ch = false;
        auto vals = flat_list(as<ReturnStmt>(s)->values, pre, ch);
        if (ch) r = with_comments(std::make_shared<ReturnStmt>(std::move(vals), s->span), *s);
        break;
      }
      case NodeKind::YieldStmt: {
        bool ch = false;
        auto vals = flat_list(as<YieldStmt>(s)->values, pre, ch);
        if (ch) r = with_comments(std::make_shared<YieldStmt>(std::move(vals), s->span), *s);
        break;
      }
      case NodeKind::SeqStmts:
        for (const auto& c : as<SeqStmts>(s)->stmts) stmt(c, out);
        return;
      case NodeKind::IfStmt: {
        const auto* i = as<IfStmt>(s);
        ExprPtr c = flat(i->cond, false, pre);
        StmtPtr t = block(i->then_body), e = block(i->else_body);
        if (c != i->cond || t != i->then_body || e != i->else_body)
          r = with_comments(std::make_shared<IfStmt>(c, t, e, i->return_vars, s->span), *s);
        break;
      }
      case NodeKind::ForStmt: {
        const auto* f = as<ForStmt>(s);
        ExprPtr a = flat(f->start, false, pre), b = flat(f->stop, false, pre), st = flat(f->step, false, pre);
        bool changed = a != f->start || b != f->stop || st != f->step;
        std::vector<IterArgPtr> ias;
        std::vector<std::pair<const Var*, ExprPtr>> remap;
        for (const auto& ia : f->iter_args) {
          ExprPtr init = flat(ia->init, false, pre);
          if (init != ia->init) {
            auto n = std::make_shared<IterArg>(ia->name, ia->type, init, ia->span);
            remap.push_back({ia.get(), n});
            ias.push_back(n);
            changed = true;
          } else {
            ias.push_back(ia);
          }
        }
        StmtPtr body = block(f->body);
        if (!remap.empty()) {
          IRMutator m;
          for (auto& [k, v] : remap) m.var_map[k] = v;
          body = m.mutate(body);
        }
        changed |= body != f->body;
        if (changed)
          r = with_comments(std::make_shared<ForStmt>(f->loop_var, a, b, st, ias, body, f->return_vars, f->kind,
                                                      s->span, f->stage), *s);
        break;
      }
      case NodeKind::WhileStmt: {
        const auto* w = as<WhileStmt>(s);
        StmtPtr body = block(w->body);
        if (body != w->body)
          r = with_comments(std::make_shared<WhileStmt>(w->cond, w->iter_args, body, w->return_vars, s->span), *s);
        break;
      }
      case NodeKind::ScopeStmt: {
        // The scope's deps= (tids[b]: element reads) are evaluated before it, by the code around it.
        const auto* sc = as<ScopeStmt>(s);
        bool dchanged = false;
        auto deps = flat_list(sc->deps, pre, dchanged);
        ExprPtr core_num = flat(sc->core_num, false, pre);  // pl.spmd(pl.system.available_aiv_count())
        dchanged |= core_num != sc->core_num;
        StmtPtr body = block(sc->body);
        if (body != sc->body || dchanged) {
          auto n = std::make_shared<ScopeStmt>(*sc);
          n->body = body;
          n->deps = std::move(deps);
          n->core_num = core_num;
          r = n;
        }
        break;
      }
      default: break;
    }
    for (auto& p : pre) out.push_back(std::move(p));
    out.push_back(r);
  }
};

FunctionPtr flatten_function(const FunctionPtr& f) {
  Flattener fl;
  StmtPtr body = fl.block(f->body);
  if (body == f->body) return f;
  return with_body(*f, body);
}

}  // namespace

Pass flatten_call_expr_pass() {
  return Pass{"FlattenCallExpr",
              "Three-address form: hoists calls nested in call arguments, operators, return/yield "
              "values, if conditions and loop bounds into fresh temporaries assigned just before the "
              "statement.",
              {{Property::SSAForm}, {Property::NoNestedCall}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, flatten_function); }};
}

}  // namespace pypto::passes
