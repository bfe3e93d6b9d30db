// TypeChecked: binding types agree with their values, conditions are BOOL scalars, loop bounds
// are integer (INDEX) scalars, yields agree with iter_args / return_vars, returns agree with the
// function's return types, calls to program functions match the callee's parameters (a larger
// static tensor binds to a smaller static parameter by its leading elements), and every
// op call's type is what its registry rule deduces from its operands (re-run here).
// Also reports "OpPlacement": tile ops on the control plane (in an Orchestration function outside
// an InCore scope) and tensor.create inside kernels.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/verify_util.h"

namespace pypto::ir::verify_detail {
namespace {


constexpr std::string_view kRule = "TypeChecked";

class TypeChecker {
 public:
  TypeChecker(const Env& env, const Function& fn) : env_(env), fn_(fn) {}

  void run() { stmt(fn_.body); }

 private:
  void report(const Span& sp, std::string msg, std::string hint = {}) {
    env_.report(kRule, sp, fmt::format("{} (function '{}')", msg, fn_.name), std::move(hint));
  }
  void mismatch(const Span& sp, const std::string& what, const TypePtr& want, const TypePtr& got) {
    auto why = type_mismatch(want, got);
    if (!why.empty()) report(sp, fmt::format("{}: {}", what, why));
  }
  void scalar_of(const Span& sp, const ExprPtr& e, const std::string& what, bool want_bool) {
    const auto* s = e ? as_scalar(e->type) : nullptr;
    bool ok = s && (want_bool ? s->dtype == DataType::BOOL : dtype_is_int(s->dtype));
    if (!ok)
      report(e && e->span.valid() ? e->span : sp,
             fmt::format("{} must be a {} scalar, got {}", what, want_bool ? "BOOL" : "INDEX", type_str(e ? e->type : nullptr)));
  }

  void expr(const ExprPtr& e, const Span& site) {
    if (!e) return;
    const Span& sp = e->span.valid() ? e->span : site;
    if (const auto* b = as<Binary>(e)) {
      expr(b->a, sp);
      expr(b->b, sp);
      for (const auto& x : {b->a, b->b})
        if (x && !as_scalar(x->type))
          report(sp, fmt::format("operand of scalar operator {} must be a scalar, got {}", to_string(b->op), type_str(x->type)));
      if (!as_scalar(e->type)) report(sp, fmt::format("scalar operator {} has type {}", to_string(b->op), type_str(e->type)));
    } else if (const auto* u = as<Unary>(e)) {
      expr(u->a, sp);
      if (u->a && !as_scalar(u->a->type))
        report(sp, fmt::format("operand of scalar operator {} must be a scalar, got {}", to_string(u->op), type_str(u->a->type)));
    } else if (const auto* c = as<Call>(e)) {
      for (const auto& a : c->args) expr(a, sp);
      if (c->dispatch)
        for (const auto& x : c->dispatch->exprs()) expr(x, sp);
      call(*c, sp);
    } else if (const auto* t = as<MakeTuple>(e)) {
      for (const auto& a : t->elems) expr(a, sp);
    } else if (const auto* g = as<TupleGetItem>(e)) {
      expr(g->tuple, sp);
      const auto* tt = g->tuple ? as_tuple(g->tuple->type) : nullptr;
      if (!tt || g->index < 0 || g->index >= static_cast<int>(tt->elems.size()))
        report(sp, fmt::format("tuple index {} out of range for {}", g->index, type_str(g->tuple ? g->tuple->type : nullptr)));
      else
        mismatch(sp, "tuple element", tt->elems[g->index], e->type);
    }
  }

  void call(const Call& c, const Span& sp) {
    if (c.op) {
      if (!c.op->deduce) return;
      try {
        TypePtr want = c.op->deduce(CallArgs{c.args, c.kwargs, sp});
        if (!want) return;  // typed by its assignment's annotation (tile.tpop_from_* without shape=)
        // Memory spaces are refined by InferTileMemorySpace, so only shapes and dtypes must agree.
        // A tile.load of an N-D window may have the window's 2-D flattening as its type
        // (FlattenTileNdTo2D: on-chip tiles are 2-D).
        if (c.op->name == "tile.load" && is_2d_flattening(c.type, want)) want = c.type;
        auto why = type_mismatch(want, c.type, /*ignore_space=*/true);
        if (!why.empty()) report(sp, fmt::format("result of pl.{}: {}", c.op->name, why));
      } catch (const CompileError& err) {
        report(sp, err.diagnostics().empty() ? err.what() : err.diagnostics().front().message);
      }
      return;
    }
    FunctionPtr callee = env_.program.find(c.callee);
    if (!callee) {
      report(sp, fmt::format("call to unknown function '{}'", c.callee));
      return;
    }
    if (c.args.size() != callee->params.size()) {
      report(sp, fmt::format("'{}' takes {} arguments but {} were given", c.callee, callee->params.size(), c.args.size()));
      return;
    }
    for (size_t i = 0; i < c.args.size(); ++i)
      if (!binds_as_leading_elements(callee->params[i]->type, c.args[i] ? c.args[i]->type : nullptr))
        mismatch(sp, fmt::format("argument {} ('{}') of '{}'", i + 1, callee->params[i]->name, c.callee),
               callee->params[i]->type, c.args[i] ? c.args[i]->type : nullptr);
    std::vector<TypePtr> rts = callee->return_types;
    if (c.dispatch && c.dispatch->submit) rts.push_back(scalar_type(DataType::TASK_ID));  // + the producer TaskId
    TypePtr ret = rts.size() == 1 ? rts[0] : std::make_shared<TupleType>(rts);
    if (!callee->return_types.empty()) mismatch(sp, fmt::format("result of '{}'", c.callee), ret, c.type);
  }

  // Yielded values of a body against the carried slots (iter_args and/or return_vars).
  void yields(const StmtPtr& body, const std::vector<TypePtr>& slots, std::string_view what) {
    const YieldStmt* y = trailing_yield(body);  // also at the end of a scope that ends the body
    if (!y) return;
    for (size_t i = 0; i < y->values.size() && i < slots.size(); ++i)
      mismatch(y->span, fmt::format("value {} yielded to {}", i + 1, what), slots[i],
               y->values[i] ? y->values[i]->type : nullptr);
  }

  template <class Loop>
  void carries(const Loop& l) {
    std::vector<TypePtr> ia_types, rv_types;
    for (size_t i = 0; i < l.iter_args.size(); ++i) {
      const auto& ia = l.iter_args[i];
      if (!ia) continue;
      mismatch(l.span, fmt::format("initial value of iter_arg '{}'", ia->name), ia->type, ia->init ? ia->init->type : nullptr);
      ia_types.push_back(ia->type);
      if (i < l.return_vars.size() && l.return_vars[i])
        mismatch(l.span, fmt::format("return var '{}' of iter_arg '{}'", l.return_vars[i]->name, ia->name), ia->type,
                 l.return_vars[i]->type);
    }
    yields(l.body, ia_types, "iter_args");
  }

  void stmt(const StmtPtr& s) {
    if (!s) return;
    const Span& sp = s->span;
    if (const auto* a = as<AssignStmt>(s)) {
      expr(a->value, sp);
      if (!a->var) return report(sp, "assignment without a target");
      if (a->value)
        mismatch(sp, fmt::format("'{}' is declared {} but assigned", a->var->name, type_str(a->var->type)),
                 a->var->type, a->value->type);
    } else if (const auto* e = as<EvalStmt>(s)) {
      expr(e->expr, sp);
    } else if (const auto* r = as<ReturnStmt>(s)) {
      for (const auto& v : r->values) expr(v, sp);
      if (r->values.size() != fn_.return_types.size()) {
        report(sp, fmt::format("returns {} values but the function declares {}", r->values.size(), fn_.return_types.size()));
      } else {
        for (size_t i = 0; i < r->values.size(); ++i)
          mismatch(sp, fmt::format("return value {}", i + 1), fn_.return_types[i], r->values[i] ? r->values[i]->type : nullptr);
      }
    } else if (const auto* y = as<YieldStmt>(s)) {
      for (const auto& v : y->values) expr(v, sp);
    } else if (const auto* q = as<SeqStmts>(s)) {
      for (const auto& c : q->stmts) stmt(c);
    } else if (const auto* i = as<IfStmt>(s)) {
      expr(i->cond, sp);
      scalar_of(sp, i->cond, "if condition", true);
      stmt(i->then_body);
      stmt(i->else_body);
      std::vector<TypePtr> rv;
      for (const auto& v : i->return_vars) rv.push_back(v ? v->type : nullptr);
      if (!rv.empty()) {
        yields(i->then_body, rv, "the if's return_vars");
        yields(i->else_body, rv, "the if's return_vars");
      }
    } else if (const auto* l = as<ForStmt>(s)) {
      for (const auto& b : {l->start, l->stop, l->step}) {
        expr(b, sp);
        scalar_of(sp, b, "loop bound", false);
      }
      for (const auto& ia : l->iter_args) if (ia) expr(ia->init, sp);
      if (!l->loop_var) return report(sp, "for loop without a loop variable");
      if (!as_scalar(l->loop_var->type) || !dtype_is_int(as_scalar(l->loop_var->type)->dtype))
        report(sp, fmt::format("loop variable '{}' must be an INDEX scalar, got {}", l->loop_var->name, type_str(l->loop_var->type)));
      carries(*l);
      stmt(l->body);
    } else if (const auto* w = as<WhileStmt>(s)) {
      for (const auto& ia : w->iter_args) if (ia) expr(ia->init, sp);
      expr(w->cond, sp);
      scalar_of(sp, w->cond, "while condition", true);
      carries(*w);
      stmt(w->body);
    } else if (const auto* sc = as<ScopeStmt>(s)) {
      for (const auto& e : sc->header_exprs()) expr(e, sp);
      stmt(sc->body);
    }
  }

  const Env& env_;
  const Function& fn_;
};

// tile.* ops belong to kernels; tensor.create to the control plane.
void check_placement(const Env& env, const Function& fn) {
  const bool orch = fn.type == FunctionType::Orchestration;
  const bool kernel = is_incore_like(fn.type);
  std::function<void(const StmtPtr&, bool)> walk = [&](const StmtPtr& s, bool in_incore) {
    if (!s) return;
    if (const auto* sc = as<ScopeStmt>(s)) return walk(sc->body, in_incore || sc->scope == ScopeKind::InCore);
    auto calls = [&](const Call& c, const Stmt& st) {
      if (!c.op) return;
      const Span& sp = c.span.valid() ? c.span : st.span;
      if (orch && !in_incore && c.op->family() == "tile")
        env.report("OpPlacement", sp,
                   fmt::format("tile op 'pl.{}' on the control plane: Orchestration function '{}' may only use "
                               "it inside an InCore scope", c.op->name, fn.name),
                   "move it into a `with pl.at(level=pl.Level.CORE_GROUP):` block or an InCore function");
      if (kernel && c.op->name == "tensor.create")
        env.report("OpPlacement", sp,
                   fmt::format("'pl.tensor.create' inside {} function '{}': kernels cannot allocate tensors",
                               to_string(fn.type), fn.name),
                   "create the tensor in the orchestration function and pass it in as an Out parameter");
    };
    // Visit only this statement's own expressions; recurse into child bodies with the flag.
    if (as<SeqStmts>(s)) {
      for (const auto& c : as<SeqStmts>(s)->stmts) walk(c, in_incore);
    } else if (const auto* i = as<IfStmt>(s)) {
      for_each_call(std::make_shared<EvalStmt>(i->cond, i->span), calls);
      walk(i->then_body, in_incore);
      walk(i->else_body, in_incore);
    } else if (const auto* l = as<ForStmt>(s)) {
      for (const auto& e : {l->start, l->stop, l->step}) for_each_call(std::make_shared<EvalStmt>(e, l->span), calls);
      walk(l->body, in_incore);
    } else if (const auto* w = as<WhileStmt>(s)) {
      for_each_call(std::make_shared<EvalStmt>(w->cond, w->span), calls);
      walk(w->body, in_incore);
    } else {
      for_each_call(s, calls);
    }
  };
  walk(fn.body, false);
}

}  // namespace

// Every bound value's static shapes keep the bounds of shape_limit_violation (sizes, strides and
// element counts then fit in 64 bits in every later stage).
void check_shape_limits(const Env& env, const Function& f) {
  std::function<void(const TypePtr&, const Var&, const Span&)> check = [&](const TypePtr& t, const Var& v, const Span& sp) {
    if (const auto* tu = as_tuple(t)) {
      for (const auto& e : tu->elems) check(e, v, sp);
    } else if (const auto* st = as_shaped(t)) {
      if (auto why = shape_limit_violation(*st); !why.empty())
        env.report(kRule, sp, fmt::format("'{}' in function '{}' has the type {}: {}", v.name, f.name, type_str(t), why),
                   "tensors and tiles have at most 2^32 - 1 elements per dimension and 2^48 bytes");
    }
  };
  for_each_binding(f, [&](const Var& v, const Span& sp) { check(v.type, v, sp.valid() ? sp : f.span); });
}

void check_type_checked(const Env& env) {
  for (const auto& f : env.program.functions) {
    TypeChecker(env, *f).run();
    check_placement(env, *f);
    check_shape_limits(env, *f);
  }
}

}  // namespace pypto::ir::verify_detail
