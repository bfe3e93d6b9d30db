// Default traversal for IRVisitor and copy-on-write rebuilding for IRMutator.
#include "ir/visitor.h"

namespace pypto::ir {

// ---------------------------------------------------------------- IRVisitor

void IRVisitor::visit(const ExprPtr& e) {
  if (!e) return;
  switch (e->kind) {
    case NodeKind::Var: return visit_var(static_cast<const Var&>(*e));
    case NodeKind::IterArg: return visit_iter_arg(static_cast<const IterArg&>(*e));
    case NodeKind::ConstInt:
    case NodeKind::ConstFloat:
    case NodeKind::ConstBool: return visit_const(*e);
    case NodeKind::Binary: return visit_binary(static_cast<const Binary&>(*e));
    case NodeKind::Unary: return visit_unary(static_cast<const Unary&>(*e));
    case NodeKind::Call: return visit_call(static_cast<const Call&>(*e));
    case NodeKind::MakeTuple: return visit_make_tuple(static_cast<const MakeTuple&>(*e));
    case NodeKind::TupleGetItem: return visit_tuple_get_item(static_cast<const TupleGetItem&>(*e));
    default: return;
  }
}

void IRVisitor::visit(const StmtPtr& s) {
  if (!s) return;
  switch (s->kind) {
    case NodeKind::AssignStmt: return visit_assign(static_cast<const AssignStmt&>(*s));
    case NodeKind::EvalStmt: return visit_eval(static_cast<const EvalStmt&>(*s));
    case NodeKind::ReturnStmt: return visit_return(static_cast<const ReturnStmt&>(*s));
    case NodeKind::YieldStmt: return visit_yield(static_cast<const YieldStmt&>(*s));
    case NodeKind::SeqStmts: return visit_seq(static_cast<const SeqStmts&>(*s));
    case NodeKind::IfStmt: return visit_if(static_cast<const IfStmt&>(*s));
    case NodeKind::ForStmt: return visit_for(static_cast<const ForStmt&>(*s));
    case NodeKind::WhileStmt: return visit_while(static_cast<const WhileStmt&>(*s));
    case NodeKind::BreakStmt: return visit_break(static_cast<const BreakStmt&>(*s));
    case NodeKind::ContinueStmt: return visit_continue(static_cast<const ContinueStmt&>(*s));
    case NodeKind::ScopeStmt: return visit_scope(static_cast<const ScopeStmt&>(*s));
    default: return;
  }
}

void IRVisitor::visit_function(const Function& f) { visit(f.body); }
void IRVisitor::visit_program(const Program& p) {
  for (const auto& f : p.functions) visit_function(*f);
}
void IRVisitor::visit_iter_arg(const IterArg& v) {}
void IRVisitor::visit_binary(const Binary& e) { visit(e.a); visit(e.b); }
void IRVisitor::visit_unary(const Unary& e) { visit(e.a); }
void IRVisitor::visit_call(const Call& e) {
  for (const auto& a : e.args) visit(a);
  if (e.dispatch)
    for (const auto& x : e.dispatch->exprs()) visit(x);
}
void IRVisitor::visit_make_tuple(const MakeTuple& e) {
  for (const auto& a : e.elems) visit(a);
}
void IRVisitor::visit_tuple_get_item(const TupleGetItem& e) { visit(e.tuple); }
void IRVisitor::visit_assign(const AssignStmt& s) { visit(s.value); }
void IRVisitor::visit_eval(const EvalStmt& s) { visit(s.expr); }
void IRVisitor::visit_return(const ReturnStmt& s) {
  for (const auto& v : s.values) visit(v);
}
void IRVisitor::visit_yield(const YieldStmt& s) {
  for (const auto& v : s.values) visit(v);
}
void IRVisitor::visit_seq(const SeqStmts& s) {
  for (const auto& c : s.stmts) visit(c);
}
void IRVisitor::visit_if(const IfStmt& s) {
  visit(s.cond);
  visit(s.then_body);
  visit(s.else_body);
}
void IRVisitor::visit_for(const ForStmt& s) {
  visit(s.start);
  visit(s.stop);
  visit(s.step);
  for (const auto& ia : s.iter_args) visit(ia->init);
  visit(s.body);
}
void IRVisitor::visit_while(const WhileStmt& s) {
  for (const auto& ia : s.iter_args) visit(ia->init);
  visit(s.cond);
  visit(s.body);
}
void IRVisitor::visit_scope(const ScopeStmt& s) {
  for (const auto& e : s.header_exprs()) visit(e);
  visit(s.body);
}

// ---------------------------------------------------------------- IRMutator

ExprPtr IRMutator::mutate(const ExprPtr& e) {
  if (!e) return e;
  switch (e->kind) {
    case NodeKind::Var:
    case NodeKind::IterArg: return mutate_var(std::static_pointer_cast<const Var>(e));
    case NodeKind::ConstInt:
    case NodeKind::ConstFloat:
    case NodeKind::ConstBool: return mutate_const(e);
    case NodeKind::Binary: return mutate_binary(std::static_pointer_cast<const Binary>(e));
    case NodeKind::Unary: return mutate_unary(std::static_pointer_cast<const Unary>(e));
    case NodeKind::Call: return mutate_call(std::static_pointer_cast<const Call>(e));
    case NodeKind::MakeTuple: return mutate_make_tuple(std::static_pointer_cast<const MakeTuple>(e));
    case NodeKind::TupleGetItem: return mutate_tuple_get_item(std::static_pointer_cast<const TupleGetItem>(e));
    default: return e;
  }
}

StmtPtr IRMutator::mutate(const StmtPtr& s) {
  if (!s) return s;
  switch (s->kind) {
    case NodeKind::AssignStmt: return mutate_assign(std::static_pointer_cast<const AssignStmt>(s));
    case NodeKind::EvalStmt: return mutate_eval(std::static_pointer_cast<const EvalStmt>(s));
    case NodeKind::ReturnStmt: return mutate_return(std::static_pointer_cast<const ReturnStmt>(s));
    case NodeKind::YieldStmt: return mutate_yield(std::static_pointer_cast<const YieldStmt>(s));
    case NodeKind::SeqStmts: return mutate_seq(std::static_pointer_cast<const SeqStmts>(s));
    case NodeKind::IfStmt: return mutate_if(std::static_pointer_cast<const IfStmt>(s));
    case NodeKind::ForStmt: return mutate_for(std::static_pointer_cast<const ForStmt>(s));
    case NodeKind::WhileStmt: return mutate_while(std::static_pointer_cast<const WhileStmt>(s));
    case NodeKind::BreakStmt: return mutate_break(std::static_pointer_cast<const BreakStmt>(s));
    case NodeKind::ContinueStmt: return mutate_continue(std::static_pointer_cast<const ContinueStmt>(s));
    case NodeKind::ScopeStmt: return mutate_scope(std::static_pointer_cast<const ScopeStmt>(s));
    default: return s;
  }
}


namespace {
// Mutates each element of `in` once, in order. Unchanged (the common case in a pass that rewrites
// little): returns false and leaves `out` empty, allocating nothing. Otherwise `out` is the
// mutated list.
bool mutate_if_changed(IRMutator& m, const std::vector<ExprPtr>& in, std::vector<ExprPtr>& out) {
  for (size_t i = 0; i < in.size(); ++i) {
    ExprPtr x = m.mutate(in[i]);
    if (x == in[i]) continue;
    out.reserve(in.size());
    out.assign(in.begin(), in.begin() + std::ptrdiff_t(i));
    out.push_back(std::move(x));
    for (size_t j = i + 1; j < in.size(); ++j) out.push_back(m.mutate(in[j]));
    return true;
  }
  return false;
}
}  // namespace

bool IRMutator::mutate_list(const std::vector<ExprPtr>& in, std::vector<ExprPtr>& out) {
  out.clear();
  if (mutate_if_changed(*this, in, out)) return true;
  out = in;
  return false;
}

static bool mutate_memref(IRMutator& m, const std::optional<MemRef>& in, std::optional<MemRef>& out) {
  out = in;
  if (!in) return false;
  bool changed = false;
  if (in->base) {
    ExprPtr b = m.mutate(std::static_pointer_cast<const Expr>(in->base));
    if (b != in->base && as<Var>(b)) {
      out->base = std::static_pointer_cast<const Var>(b);
      changed = true;
    }
  }
  ExprPtr off = m.mutate(in->offset);
  if (off != in->offset) {
    out->offset = off;
    changed = true;
  }
  return changed;
}


TypePtr IRMutator::mutate_type(const TypePtr& t) {
  if (!t) return t;
  if (!rewrites_types()) return t;  // types only hold Vars in shapes/views/MemRefs: nothing to substitute
  if (const auto* tt = as_tensor(t)) {
    std::vector<ExprPtr> shape, stride, valid;
    bool changed = mutate_if_changed(*this, tt->shape, shape);
    const bool new_stride = tt->view && mutate_if_changed(*this, tt->view->stride, stride);
    const bool new_valid = tt->view && mutate_if_changed(*this, tt->view->valid_shape, valid);
    std::optional<MemRef> mr;
    const bool new_mr = mutate_memref(*this, tt->memref, mr);
    if (!(changed || new_stride || new_valid || new_mr)) return t;
    std::optional<TensorView> view = tt->view;
    if (new_stride) view->stride = std::move(stride);
    if (new_valid) view->valid_shape = std::move(valid);
    return std::make_shared<TensorType>(tt->dtype, changed ? shape : tt->shape, view, mr, tt->distributed);
  }
  if (const auto* tl = as_tile(t)) {
    std::vector<ExprPtr> shape, valid, stride, buffer;
    const bool new_shape = mutate_if_changed(*this, tl->shape, shape);
    bool new_valid = false, new_stride = false, new_buffer = false;
    ExprPtr start;
    if (tl->view) {
      new_valid = mutate_if_changed(*this, tl->view->valid_shape, valid);
      new_stride = mutate_if_changed(*this, tl->view->stride, stride);
      start = mutate(tl->view->start_offset);
      new_buffer = mutate_if_changed(*this, tl->view->buffer_shape, buffer);
    }
    const bool new_start = tl->view && start != tl->view->start_offset;
    std::optional<MemRef> mr;
    const bool new_mr = mutate_memref(*this, tl->memref, mr);
    if (!(new_shape || new_valid || new_stride || new_start || new_buffer || new_mr)) return t;
    std::optional<TileView> view = tl->view;
    if (new_valid) view->valid_shape = std::move(valid);
    if (new_stride) view->stride = std::move(stride);
    if (new_start) view->start_offset = start;
    if (new_buffer) view->buffer_shape = std::move(buffer);
    return std::make_shared<TileType>(tl->dtype, new_shape ? shape : tl->shape, tl->space, view, mr);
  }
  if (const auto* tu = as_tuple(t)) {
    std::vector<TypePtr> elems;
    bool changed = false;
    for (const auto& e : tu->elems) {
      elems.push_back(mutate_type(e));
      changed |= elems.back() != e;
    }
    return changed ? std::make_shared<TupleType>(elems) : t;
  }
  return t;
}

ExprPtr IRMutator::mutate_var(const std::shared_ptr<const Var>& v) {
  auto it = var_map.find(v.get());
  return it != var_map.end() ? it->second : v;
}

ExprPtr IRMutator::mutate_binary(const std::shared_ptr<const Binary>& e) {
  ExprPtr a = mutate(e->a), b = mutate(e->b);
  if (a == e->a && b == e->b) return e;
  return std::make_shared<Binary>(e->op, a, b, e->type, e->span);
}

ExprPtr IRMutator::mutate_unary(const std::shared_ptr<const Unary>& e) {
  ExprPtr a = mutate(e->a);
  if (a == e->a) return e;
  return std::make_shared<Unary>(e->op, a, e->type, e->span);
}

namespace {
// A substituted Var-valued slot: the replacement when it is a Var, the original otherwise.
VarPtr mutate_var_slot(IRMutator& m, const VarPtr& v, bool& changed) {
  if (!v) return v;
  ExprPtr e = m.mutate(ExprPtr(v));
  if (e == v) return v;
  if (auto nv = std::dynamic_pointer_cast<const Var>(e)) {
    changed = true;
    return nv;
  }
  return v;
}
std::vector<VarPtr> mutate_var_slots(IRMutator& m, const std::vector<VarPtr>& in, bool& changed) {
  std::vector<VarPtr> out;
  for (const auto& v : in) out.push_back(mutate_var_slot(m, v, changed));
  return out;
}
}  // namespace

DispatchPtr IRMutator::mutate_dispatch(const DispatchPtr& d) {
  if (!d) return d;
  std::vector<ExprPtr> deps;
  bool changed = mutate_if_changed(*this, d->deps, deps);
  const bool new_deps = changed;
  std::vector<VarPtr> dumps = mutate_var_slots(*this, d->dumps, changed);
  std::vector<VarPtr> compiler_deps = mutate_var_slots(*this, d->compiler_deps, changed);
  ExprPtr core_num = mutate(d->core_num), predicate = mutate(d->predicate), device = mutate(d->device);
  changed |= core_num != d->core_num || predicate != d->predicate || device != d->device;
  if (!changed) return d;
  auto n = std::make_shared<Dispatch>(*d);
  if (new_deps) n->deps = std::move(deps);
  n->dumps = std::move(dumps);
  n->compiler_deps = std::move(compiler_deps);
  n->core_num = core_num;
  n->predicate = predicate;
  n->device = device;
  return n;
}

ExprPtr IRMutator::mutate_call(const std::shared_ptr<const Call>& e) {
  std::vector<ExprPtr> args;
  bool changed = mutate_if_changed(*this, e->args, args);
  TypePtr t = mutate_type(e->type);
  DispatchPtr d = mutate_dispatch(e->dispatch);
  if (!changed && t == e->type && d == e->dispatch) return e;
  if (!changed) args = e->args;
  auto c = std::make_shared<Call>(e->op, e->callee, std::move(args), e->kwargs, t, e->span, e->arg_directions);
  c->dispatch = d;
  return c;
}

ExprPtr IRMutator::mutate_make_tuple(const std::shared_ptr<const MakeTuple>& e) {
  std::vector<ExprPtr> elems;
  if (!mutate_if_changed(*this, e->elems, elems)) return e;
  std::vector<TypePtr> types;
  for (const auto& x : elems) types.push_back(x->type);
  return std::make_shared<MakeTuple>(std::move(elems), std::make_shared<TupleType>(types), e->span);
}

ExprPtr IRMutator::mutate_tuple_get_item(const std::shared_ptr<const TupleGetItem>& e) {
  ExprPtr t = mutate(e->tuple);
  if (t == e->tuple) return e;
  TypePtr rt = e->type;
  if (const auto* tt = as_tuple(t->type); tt && e->index < int(tt->elems.size())) rt = tt->elems[e->index];
  return std::make_shared<TupleGetItem>(t, e->index, rt, e->span);
}

StmtPtr IRMutator::mutate_assign(const std::shared_ptr<const AssignStmt>& s) {
  ExprPtr v = mutate(s->value);
  if (v == s->value) return s;
  return with_comments(std::make_shared<AssignStmt>(s->var, v, s->span), *s);
}

StmtPtr IRMutator::mutate_eval(const std::shared_ptr<const EvalStmt>& s) {
  ExprPtr v = mutate(s->expr);
  if (v == s->expr) return s;
  return with_comments(std::make_shared<EvalStmt>(v, s->span), *s);
}

StmtPtr IRMutator::mutate_return(const std::shared_ptr<const ReturnStmt>& s) {
  std::vector<ExprPtr> vals;
  if (!mutate_if_changed(*this, s->values, vals)) return s;
  return with_comments(std::make_shared<ReturnStmt>(std::move(vals), s->span), *s);
}

StmtPtr IRMutator::mutate_yield(const std::shared_ptr<const YieldStmt>& s) {
  std::vector<ExprPtr> vals;
  if (!mutate_if_changed(*this, s->values, vals)) return s;
  return with_comments(std::make_shared<YieldStmt>(std::move(vals), s->span), *s);
}

StmtPtr IRMutator::mutate_seq(const std::shared_ptr<const SeqStmts>& s) {
  // Statements are copied into a new list only from the first one that changed (or was dropped).
  std::vector<StmtPtr> out;
  bool changed = false;
  for (size_t i = 0; i < s->stmts.size(); ++i) {
    const StmtPtr& c = s->stmts[i];
    StmtPtr m = mutate(c);
    if (!changed) {
      if (m == c) continue;
      changed = true;
      out.reserve(s->stmts.size());
      for (size_t j = 0; j < i; ++j)
        if (s->stmts[j]) out.push_back(s->stmts[j]);
    }
    if (m) out.push_back(std::move(m));
  }
  if (!changed) return s;
  return with_comments(std::make_shared<SeqStmts>(std::move(out), s->span), *s);
}

StmtPtr IRMutator::mutate_if(const std::shared_ptr<const IfStmt>& s) {
  ExprPtr c = mutate(s->cond);
  StmtPtr t = mutate(s->then_body);
  StmtPtr e = mutate(s->else_body);
  if (c == s->cond && t == s->then_body && e == s->else_body) return s;
  return with_comments(std::make_shared<IfStmt>(c, t, e, s->return_vars, s->span), *s);
}

bool IRMutator::mutate_iter_args(const std::vector<IterArgPtr>& in, std::vector<IterArgPtr>& out) {
  bool changed = false;
  out.clear();
  for (const auto& ia : in) {
    ExprPtr init = mutate(ia->init);
    if (init == ia->init) {
      out.push_back(ia);
      continue;
    }
    // Keep identity semantics: a new IterArg replaces the old one everywhere in the body.
    auto fresh = std::make_shared<IterArg>(ia->name, ia->type, init, ia->span);
    fresh->rebind = ia->rebind;
    var_map[ia.get()] = fresh;
    out.push_back(fresh);
    changed = true;
  }
  return changed;
}

StmtPtr IRMutator::mutate_for(const std::shared_ptr<const ForStmt>& s) {
  ExprPtr a = mutate(s->start), b = mutate(s->stop), c = mutate(s->step);
  bool changed = a != s->start || b != s->stop || c != s->step;
  std::vector<IterArgPtr> ias;
  changed |= mutate_iter_args(s->iter_args, ias);
  StmtPtr body = mutate(s->body);
  changed |= body != s->body;
  if (!changed) return s;
  return with_comments(std::make_shared<ForStmt>(s->loop_var, a, b, c, std::move(ias), body,
                                                 s->return_vars, s->kind, s->span, s->stage), *s);
}

StmtPtr IRMutator::mutate_while(const std::shared_ptr<const WhileStmt>& s) {
  std::vector<IterArgPtr> ias;
  bool changed = mutate_iter_args(s->iter_args, ias);
  ExprPtr c = mutate(s->cond);
  StmtPtr body = mutate(s->body);
  changed |= c != s->cond || body != s->body;
  if (!changed) return s;
  return with_comments(std::make_shared<WhileStmt>(c, std::move(ias), body, s->return_vars, s->span), *s);
}

StmtPtr IRMutator::mutate_scope(const std::shared_ptr<const ScopeStmt>& s) {
  auto n = std::make_shared<ScopeStmt>(*s);
  bool changed = false;
  n->core_num = mutate(s->core_num);
  n->predicate = mutate(s->predicate);
  changed |= mutate_list(s->deps, n->deps);
  n->no_dep_args = mutate_var_slots(*this, s->no_dep_args, changed);
  n->dumps = mutate_var_slots(*this, s->dumps, changed);
  n->body = mutate(s->body);
  changed |= n->core_num != s->core_num || n->predicate != s->predicate || n->body != s->body;
  return changed ? StmtPtr(n) : StmtPtr(s);
}

FunctionPtr IRMutator::mutate_function(const FunctionPtr& f) {
  StmtPtr body = mutate(f->body);
  if (body == f->body) return f;
  return with_body(*f, body);
}

ProgramPtr IRMutator::mutate_program(const ProgramPtr& p) {
  std::vector<FunctionPtr> fs;
  bool changed = false;
  for (const auto& f : p->functions) {
    fs.push_back(mutate_function(f));
    changed |= fs.back() != f;
  }
  if (!changed) return p;
  return make_program(p->name, std::move(fs), p->dynamic_dims, p->span);
}

}  // namespace pypto::ir
