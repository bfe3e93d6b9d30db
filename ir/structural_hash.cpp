// Structural hashing (see structural_equal.h). Mirrors the traversal of structural_equal.cpp:
// the same fields, the same binding order, so equal IR hashes equal. Bound Vars contribute the
// number of their first binding; free Vars their name hint (equal free Vars are one object).
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/structural_equal.h"

namespace pypto::ir {
namespace {

enum Tag : uint64_t {
  kNull = 1, kNewVar, kBoundVar, kFreeVar, kExpr, kType, kStmt, kFunction, kProgram, kList, kAttr, kMemRef, kView,
};

uint64_t fnv(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t float_bits(double d) {
  if (std::isnan(d)) return 0x7ff8000000000000ull;
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

class Hasher {
 public:
  uint64_t h = 0x84222325cbf29ce4ull;

  void mix(uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  }
  template <class E>
  void opt(const std::optional<E>& v) {
    mix(v ? 1 + static_cast<uint64_t>(*v) : 0);
  }

  void program(const Program& p) {
    mix(kProgram);
    mix(p.dynamic_dims.size());
    for (const auto& d : p.dynamic_dims) bind(d.get());
    mix(p.functions.size());
    for (const auto& f : p.functions) {
      if (f) function(*f);
      else mix(kNull);
    }
  }

  void function(const Function& f) {
    mix(kFunction);
    mix(fnv(f.name));
    mix(static_cast<uint64_t>(f.type));
    opt(f.level ? f.level : implied_level(f.type));  // as structural_equal compares them
    opt(f.role ? f.role : implied_role(f.type));
    mix(f.auto_scope);
    mix(f.params.size());
    mix(f.param_directions.size());
    for (auto d : f.param_directions) mix(static_cast<uint64_t>(d));
    for (const auto& p : f.params) bind(p.get());
    mix(f.attrs.size());
    for (const auto& a : f.attrs) {
      mix(fnv(a.key));
      attr(a.value);
      mix(a.is_list);
      for (const auto& x : a.list) attr(x);
      expr(a.expr);
    }
    mix(f.return_types.size());
    for (const auto& t : f.return_types) type(t);
    body(f.body);
  }

  void expr(const ExprPtr& e) {
    if (!e) return mix(kNull);
    mix(kExpr);
    mix(static_cast<uint64_t>(e->kind));
    switch (e->kind) {
      case NodeKind::Var:
      case NodeKind::IterArg: return use(static_cast<const Var*>(e.get()));
      case NodeKind::ConstInt: {
        const auto& c = static_cast<const ConstInt&>(*e);
        mix(static_cast<uint64_t>(c.dtype()));
        return mix(static_cast<uint64_t>(c.value));
      }
      case NodeKind::ConstFloat: {
        const auto& c = static_cast<const ConstFloat&>(*e);
        mix(static_cast<uint64_t>(c.dtype()));
        return mix(float_bits(c.value));
      }
      case NodeKind::ConstBool: return mix(static_cast<const ConstBool&>(*e).value);
      case NodeKind::Binary: {
        const auto& b = static_cast<const Binary&>(*e);
        mix(static_cast<uint64_t>(b.op));
        expr(b.a);
        return expr(b.b);
      }
      case NodeKind::Unary: {
        const auto& u = static_cast<const Unary&>(*e);
        mix(static_cast<uint64_t>(u.op));
        if (u.op == UnOp::Cast) {
          const auto* st = as_scalar(u.type);
          mix(st ? 1 + static_cast<uint64_t>(st->dtype) : 0);
        }
        return expr(u.a);
      }
      case NodeKind::Call: {
        const auto& c = static_cast<const Call&>(*e);
        mix(c.op ? fnv(c.op->name) : fnv("self." + c.callee));
        // Omitted optional arguments that stand for another one's value hash as written out (as
        // structural_equal compares them).
        std::vector<ExprPtr> args = c.args;
        while (c.op && args.size() < c.op->args.size()) {
          const ArgSpec& spec = c.op->args[args.size()];
          if (!spec.optional || spec.same_as < 0 || static_cast<size_t>(spec.same_as) >= args.size()) break;
          args.push_back(args[static_cast<size_t>(spec.same_as)]);
        }
        exprs(args);
        mix(c.kwargs.size());
        for (const auto& [k, v] : c.kwargs) {
          mix(fnv(k));
          attr(v);
        }
        mix(c.arg_directions.size());
        for (auto d : c.arg_directions) mix(static_cast<uint64_t>(d));
        if (const auto& d = c.dispatch) {
          mix(d->submit);
          mix(d->spmd);
          mix(d->sync_start);
          mix(d->allow_early_resolve);
          mix(d->no_dep_args.size());
          for (int i : d->no_dep_args) mix(static_cast<uint64_t>(i));
          exprs(d->deps);
          mix(d->dumps.size());
          for (const auto& v : d->dumps) expr(v);
          mix(d->compiler_deps.size());
          for (const auto& v : d->compiler_deps) expr(v);
          expr(d->core_num);
          expr(d->predicate);
          expr(d->device);
        }
        return;
      }
      case NodeKind::MakeTuple: return exprs(static_cast<const MakeTuple&>(*e).elems);
      case NodeKind::TupleGetItem: {
        const auto& t = static_cast<const TupleGetItem&>(*e);
        mix(static_cast<uint64_t>(t.index));
        return expr(t.tuple);
      }
      default: return;
    }
  }

 private:
  std::unordered_map<const Var*, uint64_t> index_;

  void bind(const Var* v) {
    if (!v) return mix(kNull);
    auto it = index_.find(v);
    if (it != index_.end()) {
      mix(kBoundVar);
      return mix(it->second);
    }
    uint64_t n = index_.size();
    index_.emplace(v, n);
    mix(kNewVar);
    mix(static_cast<uint64_t>(v->kind));
    type(v->type);
  }

  void use(const Var* v) {
    auto it = index_.find(v);
    if (it != index_.end()) {
      mix(kBoundVar);
      return mix(it->second);
    }
    mix(kFreeVar);
    mix(fnv(v->name));
  }

  void exprs(const std::vector<ExprPtr>& es) {
    mix(kList);
    mix(es.size());
    for (const auto& e : es) expr(e);
  }

  void attr(const AttrValue& v) {
    mix(kAttr);
    mix(v.index());
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            mix(0);
          } else if constexpr (std::is_same_v<T, double>) {
            mix(float_bits(x));
          } else if constexpr (std::is_same_v<T, std::string>) {
            mix(fnv(x));
          } else if constexpr (std::is_same_v<T, EnumLit>) {
            mix(fnv(x.enum_name));
            mix(fnv(x.member));
          } else {
            mix(static_cast<uint64_t>(x));
          }
        },
        v);
  }

  void type(const TypePtr& t) {
    if (!t) return mix(kNull);
    mix(kType);
    mix(static_cast<uint64_t>(t->kind));
    switch (t->kind) {
      case TypeKind::Scalar: return mix(static_cast<uint64_t>(static_cast<const ScalarType&>(*t).dtype));
      case TypeKind::Ptr: return mix(static_cast<uint64_t>(static_cast<const PtrType&>(*t).handle));
      case TypeKind::Array: {
        const auto& a = static_cast<const ArrayType&>(*t);
        mix(static_cast<uint64_t>(a.dtype));
        return mix(static_cast<uint64_t>(a.extent));
      }
      case TypeKind::Tuple: {
        const auto& tu = static_cast<const TupleType&>(*t);
        mix(tu.elems.size());
        for (const auto& e : tu.elems) type(e);
        return;
      }
      case TypeKind::Tensor:
      case TypeKind::Tile: break;
    }
    const auto& sh = static_cast<const ShapedType&>(*t);
    mix(static_cast<uint64_t>(sh.dtype));
    exprs(sh.shape);
    if (t->kind == TypeKind::Tensor) {
      mix(static_cast<const TensorType&>(sh).distributed);
      const auto& v = static_cast<const TensorType&>(sh).view;
      mix(v.has_value());
      if (v) {
        mix(kView);
        exprs(v->stride);
        mix(static_cast<uint64_t>(v->layout));
        exprs(v->valid_shape);
        mix(static_cast<uint64_t>(v->pad));
      }
    } else {
      const auto& tl = static_cast<const TileType&>(sh);
      opt(tl.space);
      mix(tl.view.has_value());
      if (tl.view) {
        mix(kView);
        exprs(tl.view->valid_shape);
        exprs(tl.view->stride);
        expr(tl.view->start_offset);
        exprs(tl.view->buffer_shape);
        opt(tl.view->blayout);
        opt(tl.view->slayout);
        mix(tl.view->fractal ? 1 + static_cast<uint64_t>(*tl.view->fractal) : 0);
        opt(tl.view->pad);
        opt(tl.view->compact);
      }
    }
    mix(sh.memref.has_value());
    if (sh.memref) {
      mix(kMemRef);
      bind(sh.memref->base.get());
      expr(sh.memref->offset);
      mix(static_cast<uint64_t>(sh.memref->size));
    }
  }

  void body(const StmtPtr& b) {
    auto stmts = flatten_stmts(b);
    mix(kList);
    mix(stmts.size());
    for (const auto& s : stmts) stmt(s);
  }

  void bind_list(const std::vector<VarPtr>& vs) {
    mix(vs.size());
    for (const auto& v : vs) bind(v.get());
  }

  void iter_args(const std::vector<IterArgPtr>& ias) {
    mix(ias.size());
    for (const auto& ia : ias) {
      if (ia) expr(ia->init);
      else mix(kNull);
    }
    for (const auto& ia : ias) bind(ia.get());
  }

  void stmt(const StmtPtr& s) {
    if (!s) return mix(kNull);
    mix(kStmt);
    mix(static_cast<uint64_t>(s->kind));
    switch (s->kind) {
      case NodeKind::SeqStmts: return body(s);
      case NodeKind::AssignStmt: {
        const auto& a = static_cast<const AssignStmt&>(*s);
        expr(a.value);
        return bind(a.var.get());
      }
      case NodeKind::EvalStmt: return expr(static_cast<const EvalStmt&>(*s).expr);
      case NodeKind::ReturnStmt: return exprs(static_cast<const ReturnStmt&>(*s).values);
      case NodeKind::YieldStmt: return exprs(static_cast<const YieldStmt&>(*s).values);
      case NodeKind::IfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        expr(i.cond);
        body(i.then_body);
        mix(i.else_body != nullptr);
        body(i.else_body);
        return bind_list(i.return_vars);
      }
      case NodeKind::ForStmt: {
        const auto& f = static_cast<const ForStmt&>(*s);
        mix(static_cast<uint64_t>(f.kind));
        mix(static_cast<uint64_t>(f.stage));
        expr(f.start);
        expr(f.stop);
        expr(f.step);
        bind(f.loop_var.get());
        iter_args(f.iter_args);
        body(f.body);
        return bind_list(f.return_vars);
      }
      case NodeKind::WhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        iter_args(w.iter_args);
        expr(w.cond);
        body(w.body);
        return bind_list(w.return_vars);
      }
      case NodeKind::ScopeStmt: {
        const auto& sc = static_cast<const ScopeStmt&>(*s);
        mix(static_cast<uint64_t>(sc.scope));
        opt(sc.level);
        opt(sc.role);
        mix(sc.manual);
        opt(sc.split);
        mix(sc.slot_num ? static_cast<uint64_t>(*sc.slot_num) + 1 : 0);
        mix(sc.allow_early_resolve);
        mix(sc.sync_start);
        mix(sc.windowize);
        expr(sc.core_num);
        exprs(sc.deps);
        mix(sc.no_dep_args.size());
        for (const auto& v : sc.no_dep_args) expr(v);
        mix(sc.dumps.size());
        for (const auto& v : sc.dumps) expr(v);
        expr(sc.predicate);
        body(sc.body);
        if (sc.task_id) bind(sc.task_id.get());
        return;
      }
      default: return;
    }
  }
};

}  // namespace

uint64_t structural_hash(const Program& p) {
  Hasher h;
  h.program(p);
  return h.h;
}

uint64_t structural_hash(const Function& f) {
  Hasher h;
  h.function(f);
  return h.h;
}

uint64_t structural_hash(const ExprPtr& e) {
  Hasher h;
  h.expr(e);
  return h.h;
}

}  // namespace pypto::ir
