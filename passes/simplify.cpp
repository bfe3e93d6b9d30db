// Simplify — scalar clean-up on SSA IR:
//   * constant folding of scalar arithmetic, comparisons and logic (Python floor semantics for
//     // and %), plus the identities x+0, x-0, x*1, x*0 on integers;
//   * the same folding inside types (tile/tensor shapes, views) of every bound Var;
//   * `pl.tensor.dim(x, axis)` of a static extent becomes that constant, and inside a type one of
//     a symbolic extent (pl.dynamic) that symbol;
//   * scalar-constant propagation: `x = 5` makes every later `x` read the constant;
//   * tuple forwarding: `t = (a, b)` (an inlined helper's several results) makes `t[1]` read b
//     and `return t` return a, b;
//   * an if whose condition folds to a constant becomes the branch it takes (its results read
//     the values that branch yields); a loop carry the body yields unchanged is its init;
//   * dead scalar assignment elimination: a scalar (or tuple) assignment nobody reads, whose value
//     calls nothing (a tuple: nothing but reads of tensor handles), is removed.
// Requires SSAForm (a name has one value), keeps it.
#include <cmath>
#include <optional>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// Folds a comparison of two constants of one kind; nullopt when `op` is not a comparison.
template <typename T>
std::optional<bool> fold_compare(BinOp op, T x, T y) {
  switch (op) {
    case BinOp::Eq: return x == y;
    case BinOp::Ne: return x != y;
    case BinOp::Lt: return x < y;
    case BinOp::Le: return x <= y;
    case BinOp::Gt: return x > y;
    case BinOp::Ge: return x >= y;
    default: return std::nullopt;
  }
}

DataType dtype_of(const ExprPtr& e) {
  const auto* s = as_scalar(e->type);
  return s ? s->dtype : DataType::INDEX;
}

ExprPtr fold_binary(const Binary& e, const ExprPtr& a, const ExprPtr& b) {
  DataType dt = as_scalar(e.type) ? as_scalar(e.type)->dtype : DataType::INDEX;
  auto ia = const_int_value(a), ib = const_int_value(b);
  if (ia && ib) {
    int64_t x = *ia, y = *ib;
    if (auto c = fold_compare(e.op, x, y)) return make_bool(*c, e.span);
    switch (e.op) {
      case BinOp::Add: return make_int(x + y, e.span, dt);
      case BinOp::Sub: return make_int(x - y, e.span, dt);
      case BinOp::Mul: return make_int(x * y, e.span, dt);
      case BinOp::FloorDiv: if (y != 0) return make_int(floor_div(x, y), e.span, dt); break;
      case BinOp::FloorMod: if (y != 0) return make_int(floor_mod(x, y), e.span, dt); break;
      case BinOp::Min: return make_int(std::min(x, y), e.span, dt);
      case BinOp::Max: return make_int(std::max(x, y), e.span, dt);
      case BinOp::BitAnd: return make_int(x & y, e.span, dt);
      case BinOp::BitOr: return make_int(x | y, e.span, dt);
      case BinOp::BitXor: return make_int(x ^ y, e.span, dt);
      case BinOp::Shl: if (y >= 0 && y < 63) return make_int(x << y, e.span, dt); break;
      case BinOp::Shr: if (y >= 0 && y < 63) return make_int(x >> y, e.span, dt); break;
      default: break;
    }
    return nullptr;
  }
  const auto* fa = as<ConstFloat>(a);
  const auto* fb = as<ConstFloat>(b);
  if (fa && fb) {
    double x = fa->value, y = fb->value;
    if (auto c = fold_compare(e.op, x, y)) return make_bool(*c, e.span);
    switch (e.op) {
      case BinOp::Add: return make_float(x + y, e.span, dt);
      case BinOp::Sub: return make_float(x - y, e.span, dt);
      case BinOp::Mul: return make_float(x * y, e.span, dt);
      case BinOp::FloatDiv: if (y != 0) return make_float(x / y, e.span, dt); break;
      case BinOp::Min: return make_float(std::min(x, y), e.span, dt);
      case BinOp::Max: return make_float(std::max(x, y), e.span, dt);
      default: break;
    }
    return nullptr;
  }
  const auto* ba = as<ConstBool>(a);
  const auto* bb = as<ConstBool>(b);
  if (ba && bb) {
    switch (e.op) {
      case BinOp::And: return make_bool(ba->value && bb->value, e.span);
      case BinOp::Or: return make_bool(ba->value || bb->value, e.span);
      case BinOp::Xor: return make_bool(ba->value != bb->value, e.span);
      case BinOp::Eq: return make_bool(ba->value == bb->value, e.span);
      case BinOp::Ne: return make_bool(ba->value != bb->value, e.span);
      default: break;
    }
    return nullptr;
  }
  // Integer identities (only when the kept operand already has the node's type).
  auto same_type = [&](const ExprPtr& x) { return as_scalar(x->type) && dtype_of(x) == dt; };
  if (ib && same_type(a)) {
    if ((e.op == BinOp::Add || e.op == BinOp::Sub) && *ib == 0) return a;
    if ((e.op == BinOp::Mul || e.op == BinOp::FloorDiv) && *ib == 1) return a;
    if (e.op == BinOp::Mul && *ib == 0 && dtype_is_int(dt)) return make_int(0, e.span, dt);
  }
  if (ia && same_type(b)) {
    if (e.op == BinOp::Add && *ia == 0) return b;
    if (e.op == BinOp::Mul && *ia == 1) return b;
    if (e.op == BinOp::Mul && *ia == 0 && dtype_is_int(dt)) return make_int(0, e.span, dt);
  }
  return nullptr;
}

ExprPtr fold_unary(const Unary& e, const ExprPtr& a) {
  DataType dt = as_scalar(e.type) ? as_scalar(e.type)->dtype : DataType::INDEX;
  if (auto i = const_int_value(a)) {
    switch (e.op) {
      case UnOp::Neg: return make_int(-*i, e.span, dt);
      case UnOp::Abs: return make_int(*i < 0 ? -*i : *i, e.span, dt);
      case UnOp::BitNot: return make_int(~*i, e.span, dt);
      case UnOp::Cast:
        if (dtype_is_int(dt)) return make_int(*i, e.span, dt);
        if (dtype_is_float(dt)) return make_float(double(*i), e.span, dt);
        break;
      default: break;
    }
  }
  if (const auto* f = as<ConstFloat>(a)) {
    switch (e.op) {
      case UnOp::Neg: return make_float(-f->value, e.span, dt);
      case UnOp::Abs: return make_float(std::fabs(f->value), e.span, dt);
      case UnOp::Cast:
        if (dtype_is_float(dt)) return make_float(f->value, e.span, dt);
        if (dtype_is_int(dt)) return make_int(int64_t(std::trunc(f->value)), e.span, dt);
        break;
      default: break;
    }
  }
  if (const auto* b = as<ConstBool>(a))
    if (e.op == UnOp::Not) return make_bool(!b->value, e.span);
  return nullptr;
}

// tensor.dim(x, axis) whose extent is a constant: that constant (INDEX); with `symbols`, one whose
// extent is a symbol (pl.dynamic): that symbol; nullptr otherwise.
ExprPtr fold_dim(const Call& c, const std::vector<ExprPtr>& args, bool symbols = false) {
  if (!c.is_op("tensor.dim") || args.size() != 2) return nullptr;
  const auto* t = as_shaped(args[0]->type);
  auto axis = const_int_value(args[1]);
  if (!t || !axis) return nullptr;
  const auto rank = static_cast<int64_t>(t->shape.size());
  const int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank) return nullptr;  // the type rule reports it
  const ExprPtr& d = t->shape[static_cast<size_t>(a)];
  if (auto extent = const_int_value(d)) return make_int(*extent, c.span, DataType::INDEX);
  return symbols && as<Var>(d) ? d : nullptr;
}

class Simplifier : public BindingMutator {
 protected:
  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    ExprPtr m = BindingMutator::mutate_call(e);
    const auto* c = as<Call>(m);
    // Inside a type, the extent query of a symbolic extent is that symbol too (a creation's shape
    // [pl.tensor.dim(x, 0), 64] gives its Var the type [N, 64]; a call left in a type is no
    // three-address form).
    if (ExprPtr f = c ? fold_dim(*c, c->args, in_type_) : nullptr) return f;
    return m;
  }
  ExprPtr mutate_binary(const std::shared_ptr<const Binary>& e) override {
    ExprPtr a = mutate(e->a), b = mutate(e->b);
    if (ExprPtr f = fold_binary(*e, a, b)) return f;
    if (a == e->a && b == e->b) return e;
    return std::make_shared<Binary>(e->op, a, b, e->type, e->span);
  }
  ExprPtr mutate_unary(const std::shared_ptr<const Unary>& e) override {
    ExprPtr a = mutate(e->a);
    if (ExprPtr f = fold_unary(*e, a)) return f;
    if (a == e->a) return e;
    return std::make_shared<Unary>(e->op, a, e->type, e->span);
  }
  ExprPtr mutate_tuple_get_item(const std::shared_ptr<const TupleGetItem>& e) override {
    ExprPtr t = mutate(e->tuple);
    if (const MakeTuple* mt = tuple_value(t); mt && e->index >= 0 && size_t(e->index) < mt->elems.size())
      return mt->elems[size_t(e->index)];
    if (t == e->tuple) return e;
    return std::make_shared<TupleGetItem>(t, e->index, e->type, e->span);
  }
  StmtPtr mutate_return(const std::shared_ptr<const ReturnStmt>& s) override {
    std::vector<ExprPtr> vals;
    bool changed = false;
    for (const auto& v : s->values) {
      ExprPtr m = mutate(v);
      if (const MakeTuple* mt = s->values.size() == 1 ? tuple_value(m) : nullptr) {
        vals.insert(vals.end(), mt->elems.begin(), mt->elems.end());
        changed = true;
        continue;
      }
      changed |= m != v;
      vals.push_back(m);
    }
    if (!changed) return s;
    return with_comments(std::make_shared<ReturnStmt>(std::move(vals), s->span), *s);
  }
  // An if whose condition folds to a constant is the branch it takes: that branch's statements in
  // its place, and its results read the values the branch yields (a module-constant guard such
  // as `if PADDED > TOPK:` whose other branch holds a tile Python never builds).
  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    ExprPtr c = mutate(s->cond);
    std::optional<bool> k;
    if (const auto* b = as<ConstBool>(c)) k = b->value;
    else if (auto i = const_int_value(c)) k = *i != 0;
    if (!k) return BindingMutator::mutate_if(s);
    const StmtPtr& taken = *k ? s->then_body : s->else_body;
    std::vector<StmtPtr> body = taken ? flatten_body(taken) : std::vector<StmtPtr>{};
    const auto* y = !body.empty() ? as<YieldStmt>(body.back()) : nullptr;
    const size_t n = y ? y->values.size() : 0;
    if (n != s->return_vars.size()) return BindingMutator::mutate_if(s);
    std::vector<StmtPtr> out;
    for (size_t i = 0; i + (y ? 1 : 0) < body.size(); ++i) out.push_back(mutate(body[i]));
    for (size_t i = 0; i < n; ++i) var_map[s->return_vars[i].get()] = mutate(y->values[i]);
    return std::make_shared<SeqStmts>(std::move(out), s->span);
  }
  // A loop carry whose body yields it unchanged is its initial value: the iter_arg and the
  // result read the init, and the carry goes (what remains of a carry whose writes sat in a
  // branch that folded away; left, it would make an unwritten tensor look written).
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    // The body first: folding inside it (an if) may be what leaves a carry unchanged.
    const StmtPtr m = BindingMutator::mutate_for(s);
    const auto* f = as<ForStmt>(m);
    if (!f) return m;
    std::vector<StmtPtr> body = flatten_body(f->body);
    const auto* y = !body.empty() ? as<YieldStmt>(body.back()) : nullptr;
    if (!y || y->values.size() != f->iter_args.size() || f->return_vars.size() != f->iter_args.size() ||
        s->return_vars.size() != f->return_vars.size())
      return m;
    std::vector<IterArgPtr> ias;
    std::vector<ExprPtr> vals;
    std::vector<VarPtr> rvs;
    for (size_t k = 0; k < f->iter_args.size(); ++k) {
      if (y->values[k].get() == f->iter_args[k].get() && !f->iter_args[k]->rebind) {
        const ExprPtr& init = f->iter_args[k]->init;
        var_map[f->iter_args[k].get()] = init;
        var_map[f->return_vars[k].get()] = init;
        var_map[s->return_vars[k].get()] = init;
        continue;
      }
      ias.push_back(f->iter_args[k]);
      vals.push_back(y->values[k]);
      rvs.push_back(f->return_vars[k]);
    }
    if (ias.size() == f->iter_args.size()) return m;
    body.pop_back();
    if (!vals.empty()) body.push_back(std::make_shared<YieldStmt>(std::move(vals), y->span));
    auto loop = std::make_shared<ForStmt>(f->loop_var, f->start, f->stop, f->step, std::move(ias),
                                          make_body(std::move(body), f->body->span), std::move(rvs), f->kind, f->span,
                                          f->stage);
    return BindingMutator::mutate_for(with_comments(loop, *f));
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    ExprPtr v = mutate(s->value);
    if (as<MakeTuple>(v)) tuples_[s->var.get()] = std::static_pointer_cast<const MakeTuple>(v);
    const auto* st = as_scalar(s->var->type);
    if (st && !as<IterArg>(s->var.get())) {
      ExprPtr c;
      if (auto i = const_int_value(v); i && dtype_is_int(st->dtype)) c = make_int(*i, v->span, st->dtype);
      else if (const auto* f = as<ConstFloat>(v); f && dtype_is_float(st->dtype)) c = make_float(f->value, v->span, st->dtype);
      else if (const auto* b = as<ConstBool>(v); b && st->dtype == DataType::BOOL) c = v;
      if (c) var_map[s->var.get()] = c;  // later reads see the constant; the assignment dies below
    }
    VarPtr var = bind(s->var);
    if (v == s->value && var == s->var) return s;
    return with_comments(std::make_shared<AssignStmt>(var, v, s->span), *s);
  }
  // The tuple `e` is (a MakeTuple, or a Var bound to one), or null.
  const MakeTuple* tuple_value(const ExprPtr& e) const {
    if (const auto* mt = as<MakeTuple>(e)) return mt;
    const auto* v = as<Var>(e);
    auto it = v ? tuples_.find(v) : tuples_.end();
    return it == tuples_.end() ? nullptr : it->second.get();
  }
  std::unordered_map<const Var*, std::shared_ptr<const MakeTuple>> tuples_;
  bool in_type_ = false;  // folding the shape / view of a bound Var's type

  // Types: fold shape / view expressions of every bound Var.
  VarPtr rebind(const VarPtr& v) override {
    TypePtr t = fold_type(v->type);
    if (t == v->type) return v;
    return copy_var_with_type(*v, t);
  }
  TypePtr fold_type(const TypePtr& t) {
    auto fold_list = [&](const std::vector<ExprPtr>& in, std::vector<ExprPtr>& out) {
      bool ch = false;
      out.clear();
      const bool saved = in_type_;
      in_type_ = true;
      for (const auto& e : in) {
        out.push_back(mutate(e));
        ch |= out.back() != e;
      }
      in_type_ = saved;
      return ch;
    };
    if (const auto* tt = as_tensor(t)) {
      std::vector<ExprPtr> shape;
      bool ch = fold_list(tt->shape, shape);
      auto view = tt->view;
      if (view) {
        ch |= fold_list(tt->view->stride, view->stride);
        ch |= fold_list(tt->view->valid_shape, view->valid_shape);
      }
      return ch ? std::make_shared<TensorType>(tt->dtype, shape, view, tt->memref) : t;
    }
    if (const auto* tl = as_tile(t)) {
      std::vector<ExprPtr> shape;
      bool ch = fold_list(tl->shape, shape);
      auto view = tl->view;
      if (view) {
        ch |= fold_list(tl->view->valid_shape, view->valid_shape);
        ch |= fold_list(tl->view->stride, view->stride);
      }
      return ch ? std::make_shared<TileType>(tl->dtype, shape, tl->space, view, tl->memref) : t;
    }
    return t;
  }
};

bool has_call(const ExprPtr& e) {
  struct V : IRVisitor {
    bool found = false;
    void visit_call(const Call&) override { found = true; }
  } v;
  v.visit(e);
  return v.found;
}

// Whether every call in `e` reads and changes nothing: element reads, views, extent queries and
// creations on tensor handles (registry: orchestration ops that write no tensor operand).
bool calls_are_reads(const ExprPtr& e) {
  struct V : IRVisitor {
    bool ok = true;
    void visit_call(const Call& c) override {
      if (!c.op || !c.op->orchestration || c.op->written_tensor >= 0 || c.op->family() == "system") ok = false;
      IRVisitor::visit_call(c);
    }
  } v;
  v.visit(e);
  return v.ok;
}

// Uses of Vars in statements and in the types of bound Vars (shapes, views).
class AllUses : public IRVisitor {
 public:
  std::unordered_map<const Var*, int> uses;
  void type_uses(const TypePtr& t) {
    if (const auto* s = as_shaped(t)) {
      for (const auto& d : s->shape) visit(d);
      if (const auto* tt = as_tensor(t); tt && tt->view)
        for (const auto& d : tt->view->valid_shape) visit(d);
      if (const auto* tl = as_tile(t); tl && tl->view)
        for (const auto& d : tl->view->valid_shape) visit(d);
    }
  }

 protected:
  void visit_var(const Var& v) override { ++uses[&v]; }
  void visit_iter_arg(const IterArg& v) override { ++uses[&v]; }
  void visit_assign(const AssignStmt& s) override {
    type_uses(s.var->type);
    IRVisitor::visit_assign(s);
  }
};

class DeadScalarRemover : public IRMutator {
 public:
  const std::unordered_map<const Var*, int>& uses;
  bool removed = false;
  explicit DeadScalarRemover(const std::unordered_map<const Var*, int>& u) : uses(u) {}

 protected:
  bool dead(const StmtPtr& s) {
    const auto* a = as<AssignStmt>(s);
    if (!a || !(as_scalar(a->var->type) || as<MakeTuple>(a->value))) return false;
    // A tuple's calls were forwarded to the reads of its elements; an unread one goes when they
    // only read (an inlined helper's `return t, pl.array.get_element(ids, 0)`).
    if (has_call(a->value) && !(as<MakeTuple>(a->value) && calls_are_reads(a->value))) return false;
    auto it = uses.find(a->var.get());
    return it == uses.end() || it->second == 0;
  }
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    std::vector<StmtPtr> out;
    bool changed = false;
    for (const auto& c : s->stmts) {
      if (dead(c)) {
        changed = removed = true;
        continue;
      }
      StmtPtr m = mutate(c);
      changed |= m != c;
      out.push_back(m);
    }
    if (!changed) return s;
    return with_comments(std::make_shared<SeqStmts>(std::move(out), s->span), *s);
  }
};

FunctionPtr simplify_function(const FunctionPtr& f) {
  Simplifier s;
  FunctionPtr g = s.mutate_function(f);
  // A forwarded tuple returned whole: the function returns its elements.
  if (g != f && g->return_types.size() == 1 && as_tuple(g->return_types[0])) {
    const auto stmts = flatten_body(g->body);
    const auto* r = stmts.empty() ? nullptr : as<ReturnStmt>(stmts.back());
    const auto& elems = as_tuple(g->return_types[0])->elems;
    if (r && r->values.size() == elems.size() && r->values.size() > 1) {
      auto h = std::make_shared<Function>(*g);
      h->return_types = elems;
      g = h;
    }
  }
  for (int round = 0; round < 4; ++round) {
    AllUses u;
    for (const auto& p : g->params) u.type_uses(p->type);
    for (const auto& t : g->return_types) u.type_uses(t);
    u.visit(g->body);
    DeadScalarRemover r(u.uses);
    StmtPtr body = r.mutate(g->body);
    if (!r.removed) break;
    g = with_body(*g, body);
  }
  return g;
}

}  // namespace

Pass simplify_pass() {
  return Pass{"Simplify",
              "Folds constant scalar arithmetic (also inside tile/tensor shapes), propagates scalar "
              "constants to their uses and removes scalar assignments nobody reads.",
              {{Property::SSAForm}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, simplify_function); }};
}

}  // namespace pypto::passes
