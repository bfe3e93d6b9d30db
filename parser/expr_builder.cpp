// Expressions → IR: names, literals, constant folding, scalar operators with their type rules,
// attributes (module constants, `x.shape`) and subscripts (read / slice windows). Calls are in
// op_call.cpp (routing, registry op dispatch) and op_forms.cpp (ops spelled unlike their entry).
#include <cmath>
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

namespace {

bool is_scalar(const ExprPtr& e) { return e && as_scalar(e->type); }

// Python operator spelling → BinOp (nullopt: rejected operator, `name` set to its AST name).
std::optional<BinOp> binop_of(const std::string& op, std::string& ast_name) {
  if (op == "+") return BinOp::Add;
  if (op == "-") return BinOp::Sub;
  if (op == "*") return BinOp::Mul;
  if (op == "/") return BinOp::FloatDiv;
  if (op == "//") return BinOp::FloorDiv;
  if (op == "%") return BinOp::FloorMod;
  if (op == "<<") return BinOp::Shl;
  if (op == ">>") return BinOp::Shr;
  ast_name = op == "**" ? "Pow" : op == "&" ? "BitAnd" : op == "|" ? "BitOr" : op == "^" ? "BitXor" : op == "@" ? "MatMult" : op;
  return std::nullopt;
}

}  // namespace

void FunctionBuilder::fail(TSNode n, const std::string& code, const std::string& msg, const std::string& hint) const {
  throw CompileError(code, sp(n), msg, hint);
}

std::optional<ConstValue> FunctionBuilder::try_const(TSNode n) {
  ConstEvaluator ev(file_, [this](const std::string& name, TSNode at) -> std::optional<ConstValue> {
    if (auto it = specialized_.find(name); it != specialized_.end()) return it->second;
    if (auto it = const_scope_.find(name); it != const_scope_.end()) return it->second;
    if (names_.count(name) || poisoned_.count(name)) return std::nullopt;
    return global_lookup(name, at);
  }, &mod());
  return ev.try_eval(n);
}

ExprPtr FunctionBuilder::const_to_expr(const ConstValue& v, TSNode at) {
  Span s = sp(at);
  if (v.is_int()) return make_int(v.as_int(), s);
  if (v.is_float()) return make_float(v.as_float(), s);
  if (v.is_bool()) return make_bool(std::get<bool>(v.v), s);
  if (v.is_dyn()) return std::get<VarPtr>(v.v);
  if (v.is_list()) {
    std::vector<ExprPtr> elems;
    for (const auto& e : v.as_list()) elems.push_back(const_to_expr(e, at));
    return make_tuple(std::move(elems), s);
  }
  if (v.is_str())
    fail(at, "E301", "string literals are only allowed in keyword slots such as name_hint=",
         "strings cannot be DSL values");
  if (v.is_none()) fail(at, "E301", "None is not a DSL value here");
  fail(at, "E301", fmt::format("'{}' is a {} ({}), not a DSL value", txt(at), v.type_name(), v.repr()),
       "DSL code can use numbers, pl.dynamic symbols and tuples of them from the constant configuration");
}

ExprPtr FunctionBuilder::make_tuple(std::vector<ExprPtr> elems, const Span& s) {
  std::vector<TypePtr> ts;
  for (const auto& e : elems) ts.push_back(e->type);
  return std::make_shared<MakeTuple>(std::move(elems), std::make_shared<TupleType>(std::move(ts)), s);
}

ExprPtr FunctionBuilder::index_expr(TSNode n, const std::string& what) {
  auto e = expr(n);
  const auto* st = as_scalar(e->type);
  if (!st || !dtype_is_int(st->dtype))
    fail(n, "E302", fmt::format("{} must be an integer scalar, got {} ({})", what, txt(n), type_str(e->type)));
  return e;
}

ExprPtr FunctionBuilder::expr(TSNode n) {
  NestingGuard guard(depth_, n, file_);
  n = unparen(n);
  const auto k = kind(n);
  const Span s = sp(n);
  if (k == "integer" || k == "float" || k == "true" || k == "false" || k == "string" ||
      k == "concatenated_string" || k == "none") {
    auto v = try_const(n);
    if (!v) fail(n, "E301", fmt::format("unsupported literal '{}'", txt(n)));
    return const_to_expr(*v, n);
  }
  if (k == "identifier") {
    std::string name = txt(n);
    if (auto it = specialized_.find(name); it != specialized_.end()) return const_to_expr(it->second, n);
    if (auto it = const_scope_.find(name); it != const_scope_.end()) return const_to_expr(it->second, n);
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    if (poisoned_.count(name)) throw PoisonedName{};
    if (auto v = global_lookup(name, n)) return const_to_expr(*v, n);
    fail(n, "E200", fmt::format("Undefined variable '{}'", name));
  }
  if (k == "binary_operator" || k == "unary_operator" || k == "boolean_operator" || k == "not_operator" ||
      k == "comparison_operator" || k == "conditional_expression" || k == "subscript" || k == "call" ||
      k == "list" || k == "tuple") {
    if (k != "call" || !is(field(n, "function"), "attribute")) {
      if (auto v = try_const(n)) return const_to_expr(*v, n);
    }
  }
  if (k == "binary_operator") {
    std::string op = txt(field(n, "operator")), ast;
    auto bop = binop_of(op, ast);
    if (!bop)
      fail(n, "E303", fmt::format("Unsupported binary operator: {}", ast),
           ast == "Pow" ? "'**' is allowed only when both sides are compile-time constants" : "");
    auto a = expr(field(n, "left"));
    auto b = expr(field(n, "right"));
    return scalar_binary(*bop, a, b, s, n);
  }
  if (k == "unary_operator") {
    std::string op = txt(field(n, "operator"));
    auto a = expr(field(n, "argument"));
    if (!is_scalar(a))
      fail(n, "E303", fmt::format("unary '{}' requires a scalar operand, got {}", op, type_noun(a->type)),
           op == "-" ? "use pl.neg(x) for Tensor/Tile operands" : "");
    if (op == "+") return a;
    if (op == "-") return std::make_shared<Unary>(UnOp::Neg, a, a->type, s);
    if (!dtype_is_int(as_scalar(a->type)->dtype)) fail(n, "E303", "'~' requires an integer operand");
    return std::make_shared<Unary>(UnOp::BitNot, a, a->type, s);
  }
  if (k == "not_operator") {
    auto a = expr(field(n, "argument"));
    if (!is_scalar(a)) fail(n, "E303", fmt::format("'not' requires a scalar operand, got {}", type_noun(a->type)));
    return std::make_shared<Unary>(UnOp::Not, a, scalar_type(DataType::BOOL), s);
  }
  if (k == "boolean_operator") {
    std::string op = txt(field(n, "operator"));
    auto a = expr(field(n, "left"));
    auto b = expr(field(n, "right"));
    return scalar_binary(op == "and" ? BinOp::And : BinOp::Or, a, b, s, n);
  }
  if (k == "comparison_operator") {
    auto ops = field_children(n, "operators");
    auto operands = children(n);
    if (ops.size() != 1 || operands.size() != 2)
      fail(n, "E303", "Only simple comparisons supported", "split a chained comparison: a < b and b < c");
    std::string op = txt(ops[0]);
    BinOp bop;
    if (op == "==") bop = BinOp::Eq;
    else if (op == "!=") bop = BinOp::Ne;
    else if (op == "<") bop = BinOp::Lt;
    else if (op == "<=") bop = BinOp::Le;
    else if (op == ">") bop = BinOp::Gt;
    else if (op == ">=") bop = BinOp::Ge;
    else fail(n, "E303", fmt::format("Unsupported comparison operator: {}", op));
    return scalar_binary(bop, expr(operands[0]), expr(operands[1]), s, n);
  }
  if (k == "list" || k == "tuple" || k == "expression_list") {
    std::vector<ExprPtr> elems;
    for (TSNode c : children(n)) elems.push_back(expr(c));
    return make_tuple(std::move(elems), s);
  }
  if (k == "call") return call_expr(n);
  if (k == "subscript") return subscript_expr(n);
  if (k == "attribute") {
    TSNode obj = field(n, "object");
    std::string attr = txt(field(n, "attribute"));
    std::string d = dotted_name(obj, *file_);
    if (!d.empty() && (d == "pl" || d.rfind("pl.", 0) == 0 || d == "self" || d == "pld"))
      fail(n, "E301", fmt::format("Standalone attribute access not supported: {}", txt(n)),
           "enum values are only allowed as op arguments");
    // C.B through `import config as C`, M.batch_pad on a config dataclass: a constant.
    TSNode root = obj;
    while (is(root, "attribute")) root = field(root, "object");
    if (!is(root, "identifier") || !names_.count(txt(root)))
      if (auto v = try_const(n)) return const_to_expr(*v, n);
    auto base = expr(obj);
    if (const auto* st = as_shaped(base->type); st && attr == "shape") return make_tuple(st->shape, s);
    fail(n, "E301", fmt::format("Standalone attribute access not supported: {}", txt(n)));
  }
  if (k == "conditional_expression") fail(n, "E301", "Unsupported expression type: IfExp");
  if (k == "lambda") fail(n, "E301", "Unsupported expression type: Lambda");
  if (k == "list_comprehension" || k == "generator_expression" || k == "set_comprehension" ||
      k == "dictionary_comprehension")
    fail(n, "E301", "Unsupported expression type: comprehension");
  if (k == "dictionary") fail(n, "E301", "Unsupported expression type: Dict");
  if (k == "await" || k == "yield") fail(n, "E301", fmt::format("Unsupported expression type: {}", k));
  fail(n, "E301", fmt::format("Unsupported expression type: {}", k));
}

ExprPtr FunctionBuilder::scalar_binary(BinOp op, ExprPtr a, ExprPtr b, const Span& s, TSNode at) {
  if (!is_scalar(a) || !is_scalar(b)) {
    const ExprPtr& bad = is_scalar(a) ? b : a;
    std::string hint;
    switch (op) {
      case BinOp::Add: hint = "use pl.add(a, b) for Tensor/Tile operands"; break;
      case BinOp::Sub: hint = "use pl.sub(a, b) for Tensor/Tile operands"; break;
      case BinOp::Mul: hint = "use pl.mul(a, b) for Tensor/Tile operands"; break;
      case BinOp::FloatDiv: hint = "use pl.div(a, b) for Tensor/Tile operands"; break;
      default: break;
    }
    fail(at, "E303", fmt::format("operator '{}' requires scalar operands, got {}", to_string(op), type_noun(bad->type)), hint);
  }
  DataType da = as_scalar(a->type)->dtype, db = as_scalar(b->type)->dtype;
  DataType r;
  if (is_comparison(op) || op == BinOp::And || op == BinOp::Or) {
    r = DataType::BOOL;
  } else if (op == BinOp::FloatDiv) {
    r = dtype_is_float(da) ? da : dtype_is_float(db) ? db : DataType::FP32;
  } else if (dtype_is_float(da) || dtype_is_float(db)) {
    if (op == BinOp::Shl || op == BinOp::Shr)
      fail(at, "E303", fmt::format("operator '{}' requires integer operands", to_string(op)));
    r = dtype_is_float(da) ? da : db;
  } else {
    r = da == DataType::INDEX ? db : da;
    if (r == DataType::BOOL) r = DataType::INDEX;
  }
  return std::make_shared<Binary>(op, std::move(a), std::move(b), scalar_type(r), s);
}


FunctionBuilder::Window FunctionBuilder::window(const ShapedType& t, const std::vector<TSNode>& subs, TSNode at,
                                                bool for_write) {
  Window w;
  const size_t rank = t.shape.size();
  if (subs.size() > rank)
    fail(at, "E301", fmt::format("too many indices: {} for a rank-{} value", subs.size(), rank));
  auto sub_expr = [&](const ExprPtr& hi, const ExprPtr& lo, const Span& s) -> ExprPtr {
    auto h = const_int_value(hi), l = const_int_value(lo);
    if (h && l) return make_int(*h - *l, s);
    if (l && *l == 0) return hi;
    // (lo + c) - lo → c, the common `x[r:r + 16]` form, and its linear relatives ((q + 4) * 128 - q * 128).
    if (auto c = const_difference(hi, lo)) return make_int(*c, s);
    return std::make_shared<Binary>(BinOp::Sub, hi, lo, scalar_type(DataType::INDEX), s);
  };
  for (size_t d = 0; d < rank; ++d) {
    if (d >= subs.size()) {
      w.offsets.push_back(make_int(0, sp(at)));
      w.extents.push_back(t.shape[d]);
      w.dropped.push_back(false);
      w.all_scalar = false;
      continue;
    }
    TSNode s = subs[d];
    if (is(s, "slice")) {
      TSNode part[3] = {};
      int colons = 0;
      uint32_t c = ts_node_child_count(s);
      for (uint32_t i = 0; i < c; ++i) {
        TSNode ch = ts_node_child(s, i);
        if (!ts_node_is_named(ch)) {
          if (text(ch, *file_) == ":") ++colons;
          continue;
        }
        if (is(ch, "comment")) continue;
        part[colons] = ch;
      }
      if (!is_null(part[2]) || colons > 1) {
        if (!is_null(part[2]) || colons > 1)
          fail(s, "E301", for_write ? "Slice step is not supported in tensor subscript-write" : "Slice step is not supported");
      }
      ExprPtr lo = is_null(part[0]) ? make_int(0, sp(s)) : index_expr(part[0], "a slice bound");
      ExprPtr hi = is_null(part[1]) ? t.shape[d] : index_expr(part[1], "a slice bound");
      // Python slicing: a static upper bound past the end stops at the end.
      if (auto h = const_int_value(hi), n = const_int_value(t.shape[d]); !for_write && h && n && *h > *n) hi = t.shape[d];
      for (const auto& e : {lo, hi})
        if (auto v = const_int_value(e); v && *v < 0)
          fail(s, "E301", "negative indices are not supported");
      w.offsets.push_back(lo);
      w.extents.push_back(sub_expr(hi, lo, sp(s)));
      w.dropped.push_back(false);
      w.all_scalar = false;
    } else if (is(s, "ellipsis") || is(s, "none")) {
      fail(s, "E301", fmt::format("'{}' in a subscript is not supported", txt(s)));
    } else {
      auto idx = index_expr(s, "an index");
      if (auto v = const_int_value(idx); v && *v < 0) fail(s, "E301", "negative indices are not supported");
      w.offsets.push_back(idx);
      w.extents.push_back(make_int(1, sp(s)));
      w.dropped.push_back(true);
    }
  }
  return w;
}

ExprPtr FunctionBuilder::subscript_expr(TSNode n) {
  auto base = expr(field(n, "value"));
  auto subs = field_children(n, "subscript");
  const Span s = sp(n);
  if (const auto* tt = as_tuple(base->type)) {
    auto v = subs.size() == 1 && !is(subs[0], "slice") ? try_const(subs[0]) : std::nullopt;
    if (!v || !v->is_int()) fail(n, "E301", "Only constant integer indices supported for tuple access");
    int64_t i = v->as_int();
    if (i < 0 || i >= int64_t(tt->elems.size()))
      fail(subs[0], "E301", fmt::format("tuple index {} out of range (size {})", i, tt->elems.size()));
    if (const auto* mt = as<MakeTuple>(base)) return mt->elems[size_t(i)];
    return std::make_shared<TupleGetItem>(base, int(i), tt->elems[size_t(i)], s);
  }
  if (as_array(base->type)) {  // arr[i] → array.get_element
    if (subs.size() != 1 || is(subs[0], "slice")) fail(n, "E301", "a pl.Array is read one element at a time: arr[i]");
    return make_call("array.get_element", {base, index_expr(subs[0], "an array index")}, {}, s);
  }
  const auto* st = as_shaped(base->type);
  if (!st) fail(n, "E301", fmt::format("cannot subscript {}", type_noun(base->type)));
  const std::string fam = st->kind == TypeKind::Tile ? "tile" : "tensor";
  auto w = window(*st, subs, n, false);
  if (w.all_scalar && subs.size() == st->shape.size())
    return make_call(fam + ".read", {base, make_tuple(w.offsets, s)}, {}, s);
  // A tile window with a runtime extent from the start of an axis keeps the axis's static extent and
  // takes the runtime one as its valid extent (tiles have static shapes).
  std::vector<ExprPtr> valid;
  if (st->kind == TypeKind::Tile) {
    bool dynamic = false;
    std::vector<ExprPtr> stat = w.extents;
    for (size_t d = 0; d < stat.size(); ++d)
      if (!const_int_value(stat[d]) && const_int_value(w.offsets[d]) == 0 && const_int_value(st->shape[d])) {
        stat[d] = st->shape[d];
        dynamic = true;
      }
    if (dynamic) {
      valid = w.extents;
      w.extents = stat;
    }
  }
  std::vector<ExprPtr> slice_args = {base, make_tuple(w.extents, s), make_tuple(w.offsets, s)};
  if (!valid.empty()) slice_args.push_back(make_tuple(valid, s));
  ExprPtr r = make_call(fam + ".slice", std::move(slice_args), {}, s);
  std::vector<ExprPtr> kept;
  for (size_t d = 0; d < w.extents.size(); ++d)
    if (!w.dropped[d]) kept.push_back(w.extents[d]);
  if (kept.size() == w.extents.size()) return r;
  if (st->kind == TypeKind::Tile && kept.size() < 2) {
    ctx_.sink.warning("W001", s, "tile slice below 2-D is promoted to [1, N]");
    if (w.extents.size() == 2) return r;
    kept.insert(kept.begin(), make_int(1, s));
  }
  return make_call(fam + ".reshape", {r, make_tuple(kept, s)}, {}, s);
}

}  // namespace pypto::parser
