// Verifier helpers: diagnostics, type printing / compatibility, IR walks (see verify_util.h).
#include "ir/verify_util.h"

#include <fmt/format.h>

#include "ir/op_deduce.h"
#include "ir/visitor.h"

namespace pypto::ir::verify_detail {

void Env::report(std::string_view rule, const Span& span, std::string msg, std::string hint) const {
  sink.error(std::string(rule), span, std::move(msg), std::move(hint));
}

std::string type_str(const TypePtr& t) {
  if (!t) return "<no type>";
  switch (t->kind) {
    case TypeKind::Scalar: return fmt::format("Scalar[{}]", dtype_name(as_scalar(t)->dtype));
    case TypeKind::Tensor: {
      const auto* x = as_tensor(t);
      return fmt::format("Tensor[{}, {}]", deduce::shape_str(x->shape), dtype_name(x->dtype));
    }
    case TypeKind::Tile: {
      const auto* x = as_tile(t);
      return fmt::format("Tile[{}, {}{}]", deduce::shape_str(x->shape), dtype_name(x->dtype),
                         x->space ? fmt::format(", {}", to_string(*x->space)) : std::string());
    }
    case TypeKind::Tuple: {
      std::string s = "Tuple[";
      const auto* x = as_tuple(t);
      for (size_t i = 0; i < x->elems.size(); ++i) s += (i ? ", " : "") + type_str(x->elems[i]);
      return s + "]";
    }
    case TypeKind::Ptr: return is_comm_ctx(t) ? "CommCtx" : "Ptr";
    case TypeKind::Array: return fmt::format("Array[{}, {}]", as_array(t)->extent, dtype_name(as_array(t)->dtype));
  }
  return "?";
}

std::string type_mismatch(const TypePtr& want, const TypePtr& got, bool ignore_space) {
  if (!want || !got) return fmt::format("expected {}, got {}", type_str(want), type_str(got));
  auto differ = [&] { return fmt::format("expected {}, got {}", type_str(want), type_str(got)); };
  if (want->kind != got->kind) return differ();
  switch (want->kind) {
    case TypeKind::Scalar:
      return as_scalar(want)->dtype == as_scalar(got)->dtype ? "" : differ();
    case TypeKind::Ptr: return is_comm_ctx(want) == is_comm_ctx(got) ? "" : differ();
    case TypeKind::Array:
      return as_array(want)->dtype == as_array(got)->dtype && as_array(want)->extent == as_array(got)->extent ? "" : differ();
    case TypeKind::Tuple: {
      const auto& a = as_tuple(want)->elems;
      const auto& b = as_tuple(got)->elems;
      if (a.size() != b.size()) return differ();
      for (size_t i = 0; i < a.size(); ++i)
        if (!type_mismatch(a[i], b[i], ignore_space).empty()) return differ();
      return "";
    }
    case TypeKind::Tensor:
    case TypeKind::Tile: {
      const auto* a = as_shaped(want);
      const auto* b = as_shaped(got);
      if (a->dtype != b->dtype || a->shape.size() != b->shape.size()) return differ();
      for (size_t i = 0; i < a->shape.size(); ++i)
        if (deduce::compare_dim(a->shape[i], b->shape[i]) == deduce::DimEq::Different) return differ();
      if (!ignore_space && want->kind == TypeKind::Tile) {
        auto sa = as_tile(want)->space, sb = as_tile(got)->space;
        if (sa && sb && *sa != *sb) return differ();
      }
      return "";
    }
  }
  return differ();
}

namespace {
void uses(const ExprPtr& e, const Span& site, const std::function<void(const Var&, const Span&)>& f) {
  if (!e) return;
  const Span& here = e->span.valid() ? e->span : site;
  if (const auto* v = as<Var>(e)) return f(*v, site);
  if (const auto* b = as<Binary>(e)) { uses(b->a, here, f); uses(b->b, here, f); return; }
  if (const auto* u = as<Unary>(e)) return uses(u->a, here, f);
  if (const auto* c = as<Call>(e)) {
    for (const auto& a : c->args) uses(a, here, f);
    if (c->dispatch)
      for (const auto& x : c->dispatch->exprs()) uses(x, here, f);
    return;
  }
  if (const auto* t = as<MakeTuple>(e)) { for (const auto& a : t->elems) uses(a, here, f); return; }
  if (const auto* g = as<TupleGetItem>(e)) return uses(g->tuple, here, f);
}
}  // namespace

void for_each_var_use(const ExprPtr& e, const Span& site, const std::function<void(const Var&, const Span&)>& f) {
  uses(e, site, f);
}

void for_each_type_var(const TypePtr& t, const std::function<void(const Var&)>& f,
                       const std::function<void(const Var&)>& base) {
  if (!t) return;
  auto exprs = [&](const std::vector<ExprPtr>& v) {
    for (const auto& e : v) uses(e, {}, [&](const Var& x, const Span&) { f(x); });
  };
  auto one = [&](const ExprPtr& e) { uses(e, {}, [&](const Var& x, const Span&) { f(x); }); };
  if (const auto* tup = as_tuple(t)) {
    for (const auto& e : tup->elems) for_each_type_var(e, f, base);
    return;
  }
  const auto* s = as_shaped(t);
  if (!s) return;
  exprs(s->shape);
  if (s->memref) {
    one(s->memref->offset);
    if (base && s->memref->base) base(*s->memref->base);
  }
  if (const auto* tt = as_tensor(t); tt && tt->view) {
    exprs(tt->view->stride);
    exprs(tt->view->valid_shape);
  }
  if (const auto* tl = as_tile(t); tl && tl->view) {
    exprs(tl->view->stride);
    exprs(tl->view->valid_shape);
    one(tl->view->start_offset);
    exprs(tl->view->buffer_shape);
  }
}

void for_each_stmt(const StmtPtr& s, const std::function<void(const Stmt&)>& f) {
  if (!s) return;
  f(*s);
  if (const auto* q = as<SeqStmts>(s)) {
    for (const auto& c : q->stmts) for_each_stmt(c, f);
  } else if (const auto* i = as<IfStmt>(s)) {
    for_each_stmt(i->then_body, f);
    for_each_stmt(i->else_body, f);
  } else if (const auto* l = as<ForStmt>(s)) {
    for_each_stmt(l->body, f);
  } else if (const auto* w = as<WhileStmt>(s)) {
    for_each_stmt(w->body, f);
  } else if (const auto* sc = as<ScopeStmt>(s)) {
    for_each_stmt(sc->body, f);
  }
}

namespace {
void calls_in(const ExprPtr& e, const Stmt& st, const std::function<void(const Call&, const Stmt&)>& f) {
  if (!e) return;
  if (const auto* b = as<Binary>(e)) { calls_in(b->a, st, f); calls_in(b->b, st, f); }
  else if (const auto* u = as<Unary>(e)) calls_in(u->a, st, f);
  else if (const auto* c = as<Call>(e)) { f(*c, st); for (const auto& a : c->args) calls_in(a, st, f); }
  else if (const auto* t = as<MakeTuple>(e)) { for (const auto& a : t->elems) calls_in(a, st, f); }
  else if (const auto* g = as<TupleGetItem>(e)) calls_in(g->tuple, st, f);
}
}  // namespace

void for_each_call(const StmtPtr& body, const std::function<void(const Call&, const Stmt&)>& f) {
  for_each_stmt(body, [&](const Stmt& s) {
    if (const auto* a = as<AssignStmt>(&s)) calls_in(a->value, s, f);
    else if (const auto* e = as<EvalStmt>(&s)) calls_in(e->expr, s, f);
    else if (const auto* r = as<ReturnStmt>(&s)) { for (const auto& v : r->values) calls_in(v, s, f); }
    else if (const auto* y = as<YieldStmt>(&s)) { for (const auto& v : y->values) calls_in(v, s, f); }
    else if (const auto* i = as<IfStmt>(&s)) calls_in(i->cond, s, f);
    else if (const auto* w = as<WhileStmt>(&s)) {
      calls_in(w->cond, s, f);
      for (const auto& ia : w->iter_args)
        if (ia) calls_in(ia->init, s, f);
    } else if (const auto* l = as<ForStmt>(&s)) {
      calls_in(l->start, s, f);
      calls_in(l->stop, s, f);
      calls_in(l->step, s, f);
      for (const auto& ia : l->iter_args)
        if (ia) calls_in(ia->init, s, f);
    } else if (const auto* sc = as<ScopeStmt>(&s)) {
      for (const auto& e : sc->header_exprs()) calls_in(e, s, f);
    }
  });
}

void for_each_binding(const Function& fn, const std::function<void(const Var&, const Span&)>& f) {
  auto bind = [&](const Var* v, const Span& sp) {
    if (v) f(*v, sp);
  };
  for (const auto& p : fn.params) bind(p.get(), p && p->span.valid() ? p->span : fn.span);
  for_each_stmt(fn.body, [&](const Stmt& s) {
    if (const auto* a = as<AssignStmt>(&s)) bind(a->var.get(), s.span);
    else if (const auto* l = as<ForStmt>(&s)) {
      bind(l->loop_var.get(), s.span);
      for (const auto& ia : l->iter_args) bind(ia.get(), s.span);
      for (const auto& rv : l->return_vars) bind(rv.get(), s.span);
    } else if (const auto* w = as<WhileStmt>(&s)) {
      for (const auto& ia : w->iter_args) bind(ia.get(), s.span);
      for (const auto& rv : w->return_vars) bind(rv.get(), s.span);
    } else if (const auto* i = as<IfStmt>(&s)) {
      for (const auto& rv : i->return_vars) bind(rv.get(), s.span);
    } else if (const auto* sc = as<ScopeStmt>(&s)) {
      bind(sc->task_id.get(), s.span);
    }
  });
}

}  // namespace pypto::ir::verify_detail
