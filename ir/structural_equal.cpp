// Structural equality with a first-mismatch report (see structural_equal.h). The traversal order
// here is mirrored exactly by structural_hash.cpp: binding sites are mapped in the same order.
#include "ir/structural_equal.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/printer.h"

namespace pypto::ir {
namespace {

std::string_view node_name(NodeKind k) {
  switch (k) {
    case NodeKind::Var: return "Var";
    case NodeKind::IterArg: return "IterArg";
    case NodeKind::ConstInt: return "ConstInt";
    case NodeKind::ConstFloat: return "ConstFloat";
    case NodeKind::ConstBool: return "ConstBool";
    case NodeKind::Binary: return "Binary";
    case NodeKind::Unary: return "Unary";
    case NodeKind::Call: return "Call";
    case NodeKind::MakeTuple: return "MakeTuple";
    case NodeKind::TupleGetItem: return "TupleGetItem";
    case NodeKind::AssignStmt: return "AssignStmt";
    case NodeKind::EvalStmt: return "EvalStmt";
    case NodeKind::ReturnStmt: return "ReturnStmt";
    case NodeKind::YieldStmt: return "YieldStmt";
    case NodeKind::SeqStmts: return "SeqStmts";
    case NodeKind::IfStmt: return "IfStmt";
    case NodeKind::ForStmt: return "ForStmt";
    case NodeKind::WhileStmt: return "WhileStmt";
    case NodeKind::BreakStmt: return "BreakStmt";
    case NodeKind::ContinueStmt: return "ContinueStmt";
    case NodeKind::ScopeStmt: return "ScopeStmt";
  }
  return "?";
}

std::string_view type_name(TypeKind k) {
  switch (k) {
    case TypeKind::Scalar: return "Scalar";
    case TypeKind::Tensor: return "Tensor";
    case TypeKind::Tile: return "Tile";
    case TypeKind::Tuple: return "Tuple";
    case TypeKind::Ptr: return "Ptr";
    case TypeKind::Array: return "Array";
  }
  return "?";
}

template <class E>
std::string opt_name(const std::optional<E>& v) {
  return v ? std::string(to_string(*v)) : std::string("none");
}

bool float_equal(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool attr_equal(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* d = std::get_if<double>(&a)) return float_equal(*d, std::get<double>(b));
  return a == b;
}

std::string callee_name(const Call& c) { return c.op ? c.op->name : "self." + c.callee; }

std::string dirs_text(const std::vector<ArgDirection>& ds) {
  std::string s = "[";
  for (size_t i = 0; i < ds.size(); ++i) s += (i ? ", " : "") + std::string(to_string(ds[i]));
  return s + "]";
}

class Equaler {
 public:
  EqualResult result;

  bool program(const Program& a, const Program& b) {
    if (a.dynamic_dims.size() != b.dynamic_dims.size())
      return fail(fmt::format("dynamic dim count mismatch ({} != {})", a.dynamic_dims.size(), b.dynamic_dims.size()),
                  a.span, b.span);
    for (size_t i = 0; i < a.dynamic_dims.size(); ++i) {
      Seg s(*this, fmt::format("dynamic_dims[{}]", i));
      if (!bind(a.dynamic_dims[i].get(), b.dynamic_dims[i].get(), a.span, b.span)) return false;
    }
    if (a.functions.size() != b.functions.size())
      return fail(fmt::format("function count mismatch ({} != {})", a.functions.size(), b.functions.size()),
                  a.span, b.span);
    for (size_t i = 0; i < a.functions.size(); ++i) {
      const auto& fa = a.functions[i];
      const auto& fb = b.functions[i];
      if (!fa || !fb) {
        if (fa != fb) return fail("function presence mismatch", a.span, b.span);
        continue;
      }
      if (!function(*fa, *fb)) return false;
    }
    return true;
  }

  bool function(const Function& a, const Function& b) {
    Seg s(*this, fmt::format("function '{}'", a.name));
    if (a.name != b.name) return fail(fmt::format("function name mismatch ('{}' != '{}')", a.name, b.name), a.span, b.span);
    if (a.type != b.type)
      return fail(fmt::format("function type mismatch ({} != {})", to_string(a.type), to_string(b.type)), a.span, b.span);
    // A level / role left unstated is the one the function type implies.
    const auto la = a.level ? a.level : implied_level(a.type), lb = b.level ? b.level : implied_level(b.type);
    if (la != lb) return fail(fmt::format("function level mismatch ({} != {})", opt_name(la), opt_name(lb)), a.span, b.span);
    const auto ra = a.role ? a.role : implied_role(a.type), rb = b.role ? b.role : implied_role(b.type);
    if (ra != rb) return fail(fmt::format("function role mismatch ({} != {})", opt_name(ra), opt_name(rb)), a.span, b.span);
    if (a.auto_scope != b.auto_scope)
      return fail(fmt::format("function auto_scope mismatch ({} != {})", a.auto_scope, b.auto_scope), a.span, b.span);
    if (a.params.size() != b.params.size())
      return fail(fmt::format("parameter count mismatch ({} != {})", a.params.size(), b.params.size()), a.span, b.span);
    if (a.param_directions != b.param_directions) {
      for (size_t i = 0; i < std::max(a.param_directions.size(), b.param_directions.size()); ++i) {
        auto da = i < a.param_directions.size() ? std::string(to_string(a.param_directions[i])) : "none";
        auto db = i < b.param_directions.size() ? std::string(to_string(b.param_directions[i])) : "none";
        if (da != db) {
          Seg p(*this, fmt::format("params[{}]", i));
          return fail(fmt::format("parameter direction mismatch ({} != {})", da, db), a.span, b.span);
        }
      }
    }
    for (size_t i = 0; i < a.params.size(); ++i) {
      Seg p(*this, fmt::format("params[{}]", i));
      if (!bind(a.params[i].get(), b.params[i].get(), a.span, b.span)) return false;
    }
    if (!func_attrs(a, b)) return false;
    if (a.return_types.size() != b.return_types.size())
      return fail(fmt::format("return type count mismatch ({} != {})", a.return_types.size(), b.return_types.size()),
                  a.span, b.span);
    for (size_t i = 0; i < a.return_types.size(); ++i) {
      Seg p(*this, fmt::format("return_types[{}]", i));
      if (!type(a.return_types[i], b.return_types[i], a.span, b.span)) return false;
    }
    Seg body_seg(*this, "body");
    return body(a.body, b.body, a.span, b.span);
  }

  bool func_attrs(const Function& a, const Function& b) {
    if (a.attrs.size() != b.attrs.size())
      return fail(fmt::format("function attribute count mismatch ({} != {})", a.attrs.size(), b.attrs.size()), a.span, b.span);
    for (size_t i = 0; i < a.attrs.size(); ++i) {
      const auto& x = a.attrs[i];
      const auto& y = b.attrs[i];
      Seg s(*this, fmt::format("attrs[{}]", i));
      if (x.key != y.key) return fail(fmt::format("function attribute name mismatch ('{}' != '{}')", x.key, y.key), a.span, b.span);
      if (x.is_list != y.is_list || (x.expr == nullptr) != (y.expr == nullptr) || x.list.size() != y.list.size())
        return fail(fmt::format("function attribute '{}' form mismatch", x.key), a.span, b.span);
      if (x.expr && !expr(x.expr, y.expr)) return false;
      bool same = attr_equal(x.value, y.value);
      for (size_t k = 0; same && k < x.list.size(); ++k) same = attr_equal(x.list[k], y.list[k]);
      if (!same) return fail(fmt::format("function attribute '{}' value mismatch", x.key), a.span, b.span);
    }
    return true;
  }

  bool dispatch(const DispatchPtr& pa, const DispatchPtr& pb, const Span& ls, const Span& rs) {
    static const Dispatch kNone;
    const Dispatch& a = pa ? *pa : kNone;
    const Dispatch& b = pb ? *pb : kNone;
    Seg s(*this, "dispatch");
    if (a.submit != b.submit || a.spmd != b.spmd)
      return fail(fmt::format("dispatch form mismatch (submit {}/{}, spmd {}/{})", a.submit, b.submit, a.spmd, b.spmd), ls, rs);
    if (a.sync_start != b.sync_start || a.allow_early_resolve != b.allow_early_resolve)
      return fail("dispatch flag mismatch (sync_start / allow_early_resolve)", ls, rs);
    if (a.no_dep_args != b.no_dep_args) return fail("dispatch no_dep argument mismatch", ls, rs);
    if (!expr_list(a.deps, b.deps, "deps", "deps count", ls, rs)) return false;
    if (!var_list(a.dumps, b.dumps, "dumps", ls, rs)) return false;
    if (!var_list(a.compiler_deps, b.compiler_deps, "compiler_manual_dep_edges", ls, rs)) return false;
    {
      Seg c(*this, "core_num");
      if (!expr(a.core_num, b.core_num)) return false;
    }
    {
      Seg p(*this, "predicate");
      if (!expr(a.predicate, b.predicate)) return false;
    }
    Seg dv(*this, "device");
    return expr(a.device, b.device);
  }

  bool var_list(const std::vector<VarPtr>& a, const std::vector<VarPtr>& b, std::string_view field, const Span& ls,
                const Span& rs) {
    if (a.size() != b.size()) return fail(fmt::format("{} count mismatch ({} != {})", field, a.size(), b.size()), ls, rs);
    for (size_t i = 0; i < a.size(); ++i) {
      Seg s(*this, fmt::format("{}[{}]", field, i));
      if (!expr(a[i], b[i])) return false;
    }
    return true;
  }

  bool expr(const ExprPtr& a, const ExprPtr& b) {
    if (!a || !b) {
      if (a == b) return true;
      return fail(fmt::format("expression presence mismatch ({} != {})", a ? "present" : "absent", b ? "present" : "absent"),
                  a ? a->span : Span{}, b ? b->span : Span{});
    }
    if (a->kind != b->kind)
      return fail(fmt::format("node kind mismatch ({} != {})", node_name(a->kind), node_name(b->kind)), a->span, b->span);
    switch (a->kind) {
      case NodeKind::Var:
      case NodeKind::IterArg: return use(static_cast<const Var*>(a.get()), static_cast<const Var*>(b.get()));
      case NodeKind::ConstInt: {
        const auto& x = static_cast<const ConstInt&>(*a);
        const auto& y = static_cast<const ConstInt&>(*b);
        if (x.dtype() != y.dtype())
          return fail(fmt::format("ConstInt dtype mismatch ({} != {})", dtype_name(x.dtype()), dtype_name(y.dtype())), a->span, b->span);
        if (x.value != y.value) return fail(fmt::format("ConstInt value mismatch ({} != {})", x.value, y.value), a->span, b->span);
        return true;
      }
      case NodeKind::ConstFloat: {
        const auto& x = static_cast<const ConstFloat&>(*a);
        const auto& y = static_cast<const ConstFloat&>(*b);
        if (x.dtype() != y.dtype())
          return fail(fmt::format("ConstFloat dtype mismatch ({} != {})", dtype_name(x.dtype()), dtype_name(y.dtype())), a->span, b->span);
        if (!float_equal(x.value, y.value))
          return fail(fmt::format("ConstFloat value mismatch ({} != {})", format_float(x.value), format_float(y.value)),
                      a->span, b->span);
        return true;
      }
      case NodeKind::ConstBool: {
        bool x = static_cast<const ConstBool&>(*a).value, y = static_cast<const ConstBool&>(*b).value;
        if (x != y) return fail(fmt::format("ConstBool value mismatch ({} != {})", x ? "True" : "False", y ? "True" : "False"), a->span, b->span);
        return true;
      }
      case NodeKind::Binary: {
        const auto& x = static_cast<const Binary&>(*a);
        const auto& y = static_cast<const Binary&>(*b);
        if (x.op != y.op) return fail(fmt::format("Binary op mismatch ({} != {})", to_string(x.op), to_string(y.op)), a->span, b->span);
        {
          Seg s(*this, "lhs");
          if (!expr(x.a, y.a)) return false;
        }
        Seg s(*this, "rhs");
        return expr(x.b, y.b);
      }
      case NodeKind::Unary: {
        const auto& x = static_cast<const Unary&>(*a);
        const auto& y = static_cast<const Unary&>(*b);
        if (x.op != y.op) return fail(fmt::format("Unary op mismatch ({} != {})", to_string(x.op), to_string(y.op)), a->span, b->span);
        if (x.op == UnOp::Cast) {
          const auto* tx = as_scalar(x.type);
          const auto* ty = as_scalar(y.type);
          if (!tx || !ty || tx->dtype != ty->dtype)
            return fail(fmt::format("Cast target dtype mismatch ({} != {})", tx ? dtype_name(tx->dtype) : "none",
                                    ty ? dtype_name(ty->dtype) : "none"),
                        a->span, b->span);
        }
        Seg s(*this, "operand");
        return expr(x.a, y.a);
      }
      case NodeKind::Call: return call(static_cast<const Call&>(*a), static_cast<const Call&>(*b));
      case NodeKind::MakeTuple: {
        const auto& x = static_cast<const MakeTuple&>(*a);
        const auto& y = static_cast<const MakeTuple&>(*b);
        return expr_list(x.elems, y.elems, "elems", "tuple size", a->span, b->span);
      }
      case NodeKind::TupleGetItem: {
        const auto& x = static_cast<const TupleGetItem&>(*a);
        const auto& y = static_cast<const TupleGetItem&>(*b);
        if (x.index != y.index)
          return fail(fmt::format("TupleGetItem index mismatch ({} != {})", x.index, y.index), a->span, b->span);
        Seg s(*this, "tuple");
        return expr(x.tuple, y.tuple);
      }
      default: return true;
    }
  }

 private:
  std::unordered_map<const Var*, const Var*> l2r_, r2l_;
  std::vector<std::string> path_;

  struct Seg {
    Equaler& e;
    Seg(Equaler& eq, std::string s) : e(eq) { e.path_.push_back(std::move(s)); }
    ~Seg() { e.path_.pop_back(); }
  };

  bool fail(std::string message, const Span& l, const Span& r) {
    if (result.equal) {
      result.equal = false;
      result.message = std::move(message);
      for (size_t i = 0; i < path_.size(); ++i) result.path += (i ? " / " : "") + path_[i];
      result.lhs_span = l;
      result.rhs_span = r;
    }
    return false;
  }

  // A binding site (or a MemRef base): map a → b, or check an existing mapping.
  bool bind(const Var* a, const Var* b, const Span& ls, const Span& rs) {
    if (!a || !b) {
      if (a == b) return true;
      return fail(fmt::format("Var presence mismatch ({} != {})", a ? "present" : "absent", b ? "present" : "absent"), ls, rs);
    }
    auto it = l2r_.find(a);
    if (it != l2r_.end()) {
      if (it->second == b) return true;
      return fail(fmt::format("Var binding mismatch: '{}' is bound to '{}', got '{}'", a->name, it->second->name, b->name),
                  a->span, b->span);
    }
    auto jt = r2l_.find(b);
    if (jt != r2l_.end())
      return fail(fmt::format("Var binding mismatch: '{}' is already bound to '{}', got '{}'", b->name, jt->second->name, a->name),
                  a->span, b->span);
    if (a->kind != b->kind)
      return fail(fmt::format("node kind mismatch ({} != {})", node_name(a->kind), node_name(b->kind)), a->span, b->span);
    l2r_[a] = b;
    r2l_[b] = a;
    Seg s(*this, "type");
    return type(a->type, b->type, a->span, b->span);
  }

  bool use(const Var* a, const Var* b) {
    auto it = l2r_.find(a);
    if (it != l2r_.end()) {
      if (it->second == b) return true;
      return fail(fmt::format("Var mismatch: '{}' corresponds to '{}', got '{}'", a->name, it->second->name, b->name),
                  a->span, b->span);
    }
    if (auto jt = r2l_.find(b); jt != r2l_.end())
      return fail(fmt::format("Var mismatch: '{}' is free but '{}' corresponds to '{}'", a->name, b->name, jt->second->name),
                  a->span, b->span);
    if (a != b) return fail(fmt::format("free Var mismatch ('{}' != '{}')", a->name, b->name), a->span, b->span);
    return true;
  }

  bool expr_list(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b, std::string_view field,
                 std::string_view what, const Span& ls, const Span& rs) {
    if (a.size() != b.size()) return fail(fmt::format("{} mismatch ({} != {})", what, a.size(), b.size()), ls, rs);
    for (size_t i = 0; i < a.size(); ++i) {
      Seg s(*this, fmt::format("{}[{}]", field, i));
      if (!expr(a[i], b[i])) return false;
    }
    return true;
  }

  // `c`'s arguments, extended to `n` by the registry's same_as defaults of omitted trailing ones.
  static std::vector<ExprPtr> with_defaults(const Call& c, size_t n) {
    std::vector<ExprPtr> args = c.args;
    if (!c.op) return args;
    while (args.size() < n && args.size() < c.op->args.size()) {
      const ArgSpec& spec = c.op->args[args.size()];
      if (!spec.optional || spec.same_as < 0 || static_cast<size_t>(spec.same_as) >= args.size()) break;
      args.push_back(args[static_cast<size_t>(spec.same_as)]);
    }
    return args;
  }

  bool call(const Call& a, const Call& b) {
    if (a.op != b.op || (!a.op && a.callee != b.callee))
      return fail(fmt::format("Call target mismatch ({} != {})", callee_name(a), callee_name(b)), a.span, b.span);
    // An omitted optional argument that stands for another one's value (a load without a
    // valid_shape reads its whole window: valid_shape = shape) equals that value written out.
    if (!expr_list(with_defaults(a, b.args.size()), with_defaults(b, a.args.size()), "args", "Call argument count",
                   a.span, b.span))
      return false;
    if (a.kwargs.size() != b.kwargs.size())
      return fail(fmt::format("Call kwarg count mismatch ({} != {})", a.kwargs.size(), b.kwargs.size()), a.span, b.span);
    for (size_t i = 0; i < a.kwargs.size(); ++i) {
      const auto& [ka, va] = a.kwargs[i];
      const auto& [kb, vb] = b.kwargs[i];
      if (ka != kb) return fail(fmt::format("kwarg name mismatch ('{}' != '{}')", ka, kb), a.span, b.span);
      if (!attr_equal(va, vb))
        return fail(fmt::format("kwarg '{}' value mismatch ({} != {})", ka, print_attr(va), print_attr(vb)), a.span, b.span);
    }
    if (a.arg_directions != b.arg_directions)
      return fail(fmt::format("arg_directions mismatch ({} != {})", dirs_text(a.arg_directions), dirs_text(b.arg_directions)),
                  a.span, b.span);
    if (a.dispatch || b.dispatch) return dispatch(a.dispatch, b.dispatch, a.span, b.span);
    return true;
  }

  bool type(const TypePtr& a, const TypePtr& b, const Span& ls, const Span& rs) {
    if (!a || !b) {
      if (a == b) return true;
      return fail(fmt::format("type presence mismatch ({} != {})", a ? "present" : "absent", b ? "present" : "absent"), ls, rs);
    }
    if (a->kind != b->kind)
      return fail(fmt::format("type kind mismatch ({} != {})", type_name(a->kind), type_name(b->kind)), ls, rs);
    switch (a->kind) {
      case TypeKind::Scalar: {
        auto x = static_cast<const ScalarType&>(*a).dtype, y = static_cast<const ScalarType&>(*b).dtype;
        if (x != y) return fail(fmt::format("dtype mismatch ({} != {})", dtype_name(x), dtype_name(y)), ls, rs);
        return true;
      }
      case TypeKind::Ptr: {
        auto x = static_cast<const PtrType&>(*a).handle, y = static_cast<const PtrType&>(*b).handle;
        if (x != y) return fail("handle type mismatch (pl.Ptr != pld.CommCtx)", ls, rs);
        return true;
      }
      case TypeKind::Array: {
        const auto& x = static_cast<const ArrayType&>(*a);
        const auto& y = static_cast<const ArrayType&>(*b);
        if (x.dtype != y.dtype || x.extent != y.extent)
          return fail(fmt::format("array type mismatch (pl.Array[{}, {}] != pl.Array[{}, {}])", x.extent, dtype_name(x.dtype),
                                  y.extent, dtype_name(y.dtype)),
                      ls, rs);
        return true;
      }
      case TypeKind::Tuple: {
        const auto& x = static_cast<const TupleType&>(*a);
        const auto& y = static_cast<const TupleType&>(*b);
        if (x.elems.size() != y.elems.size())
          return fail(fmt::format("tuple type size mismatch ({} != {})", x.elems.size(), y.elems.size()), ls, rs);
        for (size_t i = 0; i < x.elems.size(); ++i) {
          Seg s(*this, fmt::format("elems[{}]", i));
          if (!type(x.elems[i], y.elems[i], ls, rs)) return false;
        }
        return true;
      }
      case TypeKind::Tensor:
      case TypeKind::Tile: break;
    }
    const auto& x = static_cast<const ShapedType&>(*a);
    const auto& y = static_cast<const ShapedType&>(*b);
    if (x.dtype != y.dtype) return fail(fmt::format("dtype mismatch ({} != {})", dtype_name(x.dtype), dtype_name(y.dtype)), ls, rs);
    if (!expr_list(x.shape, y.shape, "shape", "shape rank", ls, rs)) return false;
    if (a->kind == TypeKind::Tensor) {
      if (static_cast<const TensorType&>(x).distributed != static_cast<const TensorType&>(y).distributed)
        return fail("tensor kind mismatch (pl.Tensor vs pld.DistributedTensor)", ls, rs);
      if (!tensor_view(static_cast<const TensorType&>(x).view, static_cast<const TensorType&>(y).view, ls, rs)) return false;
    } else {
      const auto& tx = static_cast<const TileType&>(x);
      const auto& ty = static_cast<const TileType&>(y);
      if (tx.space != ty.space)
        return fail(fmt::format("memory space mismatch ({} != {})", opt_name(tx.space), opt_name(ty.space)), ls, rs);
      if (!tile_view(tx.view, ty.view, ls, rs)) return false;
    }
    return memref(x.memref, y.memref, ls, rs);
  }

  bool tensor_view(const std::optional<TensorView>& a, const std::optional<TensorView>& b, const Span& ls, const Span& rs) {
    if (!a || !b) {
      if (!a && !b) return true;
      return fail(fmt::format("TensorView presence mismatch ({} != {})", a ? "present" : "absent", b ? "present" : "absent"), ls, rs);
    }
    Seg s(*this, "view");
    if (!expr_list(a->stride, b->stride, "stride", "TensorView stride rank", ls, rs)) return false;
    if (a->layout != b->layout)
      return fail(fmt::format("TensorView layout mismatch ({} != {})", to_string(a->layout), to_string(b->layout)), ls, rs);
    if (!expr_list(a->valid_shape, b->valid_shape, "valid_shape", "TensorView valid_shape rank", ls, rs)) return false;
    if (a->pad != b->pad)
      return fail(fmt::format("TensorView pad mismatch ({} != {})", to_string(a->pad), to_string(b->pad)), ls, rs);
    return true;
  }

  bool tile_view(const std::optional<TileView>& a, const std::optional<TileView>& b, const Span& ls, const Span& rs) {
    if (!a || !b) {
      if (!a && !b) return true;
      return fail(fmt::format("TileView presence mismatch ({} != {})", a ? "present" : "absent", b ? "present" : "absent"), ls, rs);
    }
    Seg s(*this, "view");
    if (!expr_list(a->valid_shape, b->valid_shape, "valid_shape", "TileView valid_shape rank", ls, rs)) return false;
    if (!expr_list(a->stride, b->stride, "stride", "TileView stride rank", ls, rs)) return false;
    {
      Seg o(*this, "start_offset");
      if (!expr(a->start_offset, b->start_offset)) return false;
    }
    if (!expr_list(a->buffer_shape, b->buffer_shape, "buffer_shape", "TileView buffer_shape rank", ls, rs)) return false;
    if (a->blayout != b->blayout)
      return fail(fmt::format("TileView blayout mismatch ({} != {})", opt_name(a->blayout), opt_name(b->blayout)), ls, rs);
    if (a->slayout != b->slayout)
      return fail(fmt::format("TileView slayout mismatch ({} != {})", opt_name(a->slayout), opt_name(b->slayout)), ls, rs);
    if (a->fractal != b->fractal)
      return fail(fmt::format("TileView fractal mismatch ({} != {})", a->fractal ? std::to_string(*a->fractal) : "none",
                              b->fractal ? std::to_string(*b->fractal) : "none"),
                  ls, rs);
    if (a->pad != b->pad) return fail(fmt::format("TileView pad mismatch ({} != {})", opt_name(a->pad), opt_name(b->pad)), ls, rs);
    if (a->compact != b->compact)
      return fail(fmt::format("TileView compact mismatch ({} != {})", opt_name(a->compact), opt_name(b->compact)), ls, rs);
    return true;
  }

  bool memref(const std::optional<MemRef>& a, const std::optional<MemRef>& b, const Span& ls, const Span& rs) {
    if (!a || !b) {
      if (!a && !b) return true;
      return fail(fmt::format("MemRef presence mismatch ({} != {})", a ? "present" : "absent", b ? "present" : "absent"), ls, rs);
    }
    Seg s(*this, "memref");
    {
      Seg base(*this, "base");
      if (!bind(a->base.get(), b->base.get(), ls, rs)) return false;
    }
    {
      Seg off(*this, "offset");
      if (!expr(a->offset, b->offset)) return false;
    }
    if (a->size != b->size) return fail(fmt::format("MemRef size mismatch ({} != {})", a->size, b->size), ls, rs);
    return true;
  }

  bool body(const StmtPtr& a, const StmtPtr& b, const Span& ls, const Span& rs) {
    auto la = flatten_stmts(a), lb = flatten_stmts(b);
    if (la.size() != lb.size())
      return fail(fmt::format("statement count mismatch ({} != {})", la.size(), lb.size()), a ? a->span : ls, b ? b->span : rs);
    for (size_t i = 0; i < la.size(); ++i) {
      Seg s(*this, fmt::format("stmt[{}]", i));
      if (!stmt(la[i], lb[i])) return false;
    }
    return true;
  }

  bool bind_list(const std::vector<VarPtr>& a, const std::vector<VarPtr>& b, std::string_view field, const Span& ls,
                 const Span& rs) {
    if (a.size() != b.size()) return fail(fmt::format("{} count mismatch ({} != {})", field, a.size(), b.size()), ls, rs);
    for (size_t i = 0; i < a.size(); ++i) {
      Seg s(*this, fmt::format("{}[{}]", field, i));
      if (!bind(a[i].get(), b[i].get(), ls, rs)) return false;
    }
    return true;
  }

  // Loop carries: all init values (evaluated outside the loop), then the iter_args themselves.
  bool iter_args(const std::vector<IterArgPtr>& a, const std::vector<IterArgPtr>& b, const Span& ls, const Span& rs) {
    if (a.size() != b.size()) return fail(fmt::format("iter_args count mismatch ({} != {})", a.size(), b.size()), ls, rs);
    for (size_t i = 0; i < a.size(); ++i) {
      Seg s(*this, fmt::format("iter_args[{}]", i));
      if (!a[i] || !b[i]) {
        if (a[i] != b[i]) return fail("iter_arg presence mismatch", ls, rs);
        continue;
      }
      Seg init(*this, "init");
      if (!expr(a[i]->init, b[i]->init)) return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      Seg s(*this, fmt::format("iter_args[{}]", i));
      if (!bind(a[i].get(), b[i].get(), ls, rs)) return false;
    }
    return true;
  }

  bool stmt(const StmtPtr& a, const StmtPtr& b) {
    if (!a || !b) {
      if (a == b) return true;
      return fail(fmt::format("statement presence mismatch ({} != {})", a ? "present" : "absent", b ? "present" : "absent"),
                  a ? a->span : Span{}, b ? b->span : Span{});
    }
    const Span& ls = a->span;
    const Span& rs = b->span;
    if (a->kind != b->kind)
      return fail(fmt::format("statement kind mismatch ({} != {})", node_name(a->kind), node_name(b->kind)), ls, rs);
    switch (a->kind) {
      case NodeKind::SeqStmts: return body(a, b, ls, rs);
      case NodeKind::AssignStmt: {
        const auto& x = static_cast<const AssignStmt&>(*a);
        const auto& y = static_cast<const AssignStmt&>(*b);
        {
          Seg s(*this, "value");
          if (!expr(x.value, y.value)) return false;
        }
        Seg s(*this, "var");
        return bind(x.var.get(), y.var.get(), ls, rs);
      }
      case NodeKind::EvalStmt: {
        Seg s(*this, "expr");
        return expr(static_cast<const EvalStmt&>(*a).expr, static_cast<const EvalStmt&>(*b).expr);
      }
      case NodeKind::ReturnStmt:
        return expr_list(static_cast<const ReturnStmt&>(*a).values, static_cast<const ReturnStmt&>(*b).values, "values",
                         "return value count", ls, rs);
      case NodeKind::YieldStmt:
        return expr_list(static_cast<const YieldStmt&>(*a).values, static_cast<const YieldStmt&>(*b).values, "values",
                         "yield value count", ls, rs);
      case NodeKind::BreakStmt:
      case NodeKind::ContinueStmt: return true;
      case NodeKind::IfStmt: {
        const auto& x = static_cast<const IfStmt&>(*a);
        const auto& y = static_cast<const IfStmt&>(*b);
        {
          Seg s(*this, "cond");
          if (!expr(x.cond, y.cond)) return false;
        }
        {
          Seg s(*this, "then");
          if (!body(x.then_body, y.then_body, ls, rs)) return false;
        }
        if (!x.else_body != !y.else_body)
          return fail(fmt::format("else branch presence mismatch ({} != {})", x.else_body ? "present" : "absent",
                                  y.else_body ? "present" : "absent"),
                      ls, rs);
        {
          Seg s(*this, "else");
          if (!body(x.else_body, y.else_body, ls, rs)) return false;
        }
        return bind_list(x.return_vars, y.return_vars, "return_vars", ls, rs);
      }
      case NodeKind::ForStmt: {
        const auto& x = static_cast<const ForStmt&>(*a);
        const auto& y = static_cast<const ForStmt&>(*b);
        if (x.kind != y.kind)
          return fail(fmt::format("loop kind mismatch ({} != {})", to_string(x.kind), to_string(y.kind)), ls, rs);
        if (x.stage != y.stage) return fail(fmt::format("pipeline stage mismatch ({} != {})", x.stage, y.stage), ls, rs);
        {
          Seg s(*this, "start");
          if (!expr(x.start, y.start)) return false;
        }
        {
          Seg s(*this, "stop");
          if (!expr(x.stop, y.stop)) return false;
        }
        {
          Seg s(*this, "step");
          if (!expr(x.step, y.step)) return false;
        }
        {
          Seg s(*this, "loop_var");
          if (!bind(x.loop_var.get(), y.loop_var.get(), ls, rs)) return false;
        }
        if (!iter_args(x.iter_args, y.iter_args, ls, rs)) return false;
        {
          Seg s(*this, "body");
          if (!body(x.body, y.body, ls, rs)) return false;
        }
        return bind_list(x.return_vars, y.return_vars, "return_vars", ls, rs);
      }
      case NodeKind::WhileStmt: {
        const auto& x = static_cast<const WhileStmt&>(*a);
        const auto& y = static_cast<const WhileStmt&>(*b);
        if (!iter_args(x.iter_args, y.iter_args, ls, rs)) return false;
        {
          Seg s(*this, "cond");
          if (!expr(x.cond, y.cond)) return false;
        }
        {
          Seg s(*this, "body");
          if (!body(x.body, y.body, ls, rs)) return false;
        }
        return bind_list(x.return_vars, y.return_vars, "return_vars", ls, rs);
      }
      case NodeKind::ScopeStmt: {
        const auto& x = static_cast<const ScopeStmt&>(*a);
        const auto& y = static_cast<const ScopeStmt&>(*b);
        if (x.scope != y.scope)
          return fail(fmt::format("scope kind mismatch ({} != {})", to_string(x.scope), to_string(y.scope)), ls, rs);
        if (x.level != y.level)
          return fail(fmt::format("scope level mismatch ({} != {})", opt_name(x.level), opt_name(y.level)), ls, rs);
        if (x.role != y.role) return fail(fmt::format("scope role mismatch ({} != {})", opt_name(x.role), opt_name(y.role)), ls, rs);
        if (x.manual != y.manual) return fail(fmt::format("scope manual mismatch ({} != {})", x.manual, y.manual), ls, rs);
        if (x.split != y.split)
          return fail(fmt::format("scope split mismatch ({} != {})", opt_name(x.split), opt_name(y.split)), ls, rs);
        if (x.slot_num != y.slot_num) return fail("scope slot_num mismatch", ls, rs);
        if (x.allow_early_resolve != y.allow_early_resolve || x.sync_start != y.sync_start || x.windowize != y.windowize)
          return fail("scope flag mismatch (allow_early_resolve / sync_start / windowize)", ls, rs);
        {
          Seg s(*this, "core_num");
          if (!expr(x.core_num, y.core_num)) return false;
        }
        if (!expr_list(x.deps, y.deps, "deps", "scope deps count", ls, rs)) return false;
        if (!var_list(x.no_dep_args, y.no_dep_args, "no_dep_args", ls, rs)) return false;
        if (!var_list(x.dumps, y.dumps, "dumps", ls, rs)) return false;
        {
          Seg s(*this, "predicate");
          if (!expr(x.predicate, y.predicate)) return false;
        }
        {
          Seg s(*this, "body");
          if (!body(x.body, y.body, ls, rs)) return false;
        }
        Seg t(*this, "task_id");
        return bind(x.task_id.get(), y.task_id.get(), ls, rs);
      }
      default: return true;
    }
  }
};

}  // namespace

std::vector<StmtPtr> flatten_stmts(const StmtPtr& body) {
  std::vector<StmtPtr> out;
  std::vector<StmtPtr> stack{body};
  while (!stack.empty()) {
    StmtPtr s = std::move(stack.back());
    stack.pop_back();
    if (!s) continue;
    if (const auto* seq = as<SeqStmts>(s)) {
      for (auto it = seq->stmts.rbegin(); it != seq->stmts.rend(); ++it) stack.push_back(*it);
    } else {
      out.push_back(std::move(s));
    }
  }
  return out;
}

EqualResult structural_equal(const Program& a, const Program& b) {
  Equaler eq;
  eq.program(a, b);
  return eq.result;
}

EqualResult structural_equal(const Function& a, const Function& b) {
  Equaler eq;
  eq.function(a, b);
  return eq.result;
}

EqualResult structural_equal_detail(const ExprPtr& a, const ExprPtr& b) {
  Equaler eq;
  eq.expr(a, b);
  return eq.result;
}

bool structural_equal(const ExprPtr& a, const ExprPtr& b) { return structural_equal_detail(a, b).equal; }

}  // namespace pypto::ir
