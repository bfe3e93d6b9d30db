// Expressions → IR: names, literals, constant folding, scalar operators with their type rules,
// subscripts (read / slice), calls to program functions and to registered ops through the
// unified dispatch and positional-attribute rules (ir/TEXT_FORMAT.md, language.md §7).
#include <cmath>
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

namespace {

std::vector<std::string> split_dots(const std::string& d) {
  std::vector<std::string> out;
  size_t b = 0;
  while (true) {
    auto p = d.find('.', b);
    out.push_back(d.substr(b, p == std::string::npos ? std::string::npos : p - b));
    if (p == std::string::npos) break;
    b = p + 1;
  }
  return out;
}

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

// Unified spellings from OpDef::aliases ("create_tensor" → tensor.create), built once.
const std::map<std::string, std::vector<const OpDef*>>& alias_map() {
  static const auto m = [] {
    std::map<std::string, std::vector<const OpDef*>> r;
    for (const OpDef* op : OpRegistry::instance().all())
      for (std::string a : op->aliases) {
        if (a.rfind("pl.", 0) == 0) a = a.substr(3);
        r[a].push_back(op);
      }
    return r;
  }();
  return m;
}

bool looks_like_attr_literal(TSNode n, const SourceFile& f) {
  n = unparen(n);
  if (is(n, "string") || is(n, "none") || is(n, "true") || is(n, "false")) return true;
  std::string d = dotted_name(n, f);
  return d.rfind("pl.", 0) == 0 || d.rfind("pld.", 0) == 0;
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

std::optional<DataType> FunctionBuilder::dtype_of_local(TSNode n) {
  n = unparen(n);
  if (!is(n, "attribute") || txt(field(n, "attribute")) != "dtype") return std::nullopt;
  TSNode obj = unparen(field(n, "object"));
  if (!is(obj, "identifier")) return std::nullopt;
  auto it = names_.find(txt(obj));
  if (it == names_.end()) return std::nullopt;
  if (const auto* st = as_shaped(it->second->type)) return st->dtype;
  if (const auto* sc = as_scalar(it->second->type)) return sc->dtype;
  return std::nullopt;
}

AttrValue FunctionBuilder::attr_value(TSNode n, const KwSpec* spec, std::string_view op_name) {
  n = unparen(n);
  const auto& f = *file_;
  if (auto dt = dtype_of_local(n)) return AttrValue{*dt};  // pl.cast(x, a.dtype)
  std::string d = dotted_name(n, f);
  if (is(n, "unary_operator") && txt(field(n, "operator")) == "-" &&
      dotted_name(field(n, "argument"), f) == "math.inf")
    return AttrValue{-INFINITY};
  if (d == "math.inf") return AttrValue{double(INFINITY)};
  if (!d.empty() && d.find('.') != std::string::npos && (d.rfind("pl.", 0) == 0 || d.rfind("pld.", 0) == 0)) {
    auto parts = split_dots(d);
    if (parts.size() == 2) {
      if (auto dt = dtype_from_name(parts[1])) return AttrValue{*dt};
      if (auto lay = tensor_layout_from_name(parts[1])) return AttrValue{*lay};
      if (spec && spec->kind == AttrKind::DType) fail(n, "E105", fmt::format("Unknown dtype: {}", parts[1]));
      fail(n, "E302", fmt::format("'{}' is not a value pypto knows", d));
    }
    if (parts.size() == 4 && parts[1] == "tile" && parts[2] == "MaskPattern") {  // pl.tile.MaskPattern.P0101 = 1, ...
      static const std::map<std::string, int64_t> kMask = {{"P0101", 1}, {"P1010", 2}, {"P0001", 3}, {"P0010", 4},
                                                           {"P0100", 5}, {"P1000", 6}, {"P1111", 7}};
      auto it = kMask.find(parts[3]);
      if (it == kMask.end()) fail(n, "E302", fmt::format("'{}' is not a member of pl.tile.MaskPattern", parts[3]));
      return AttrValue{it->second};
    }
    if (parts.size() == 3) {
      const std::string& e = parts[1];
      const std::string& m = parts[2];
      auto bad = [&]() { fail(n, "E302", fmt::format("'{}' is not a member of pl.{}", m, e)); };
      if (e == "Mem" || e == "MemorySpace") {
        auto v = memory_space_from_name(m);
        if (!v) bad();
        return AttrValue{*v};
      }
      if (e == "TileLayout") {
        auto v = tile_layout_from_name(m);
        if (!v) bad();
        return AttrValue{*v};
      }
      if (e == "TensorLayout") {
        auto v = tensor_layout_from_name(m);
        if (!v) bad();
        return AttrValue{*v};
      }
      if (e == "PadValue") {
        auto v = pad_value_from_name(m);
        if (!v) bad();
        return AttrValue{*v};
      }
      if (e == "CompactMode") {
        auto v = compact_mode_from_name(m);
        if (!v) bad();
        return AttrValue{*v};
      }
      if (e == "DataType") {
        auto v = dtype_from_name(m);
        if (!v) fail(n, "E105", fmt::format("Unknown dtype: {}", m));
        return AttrValue{*v};
      }
      if (parts[0] == "pld") return AttrValue{EnumLit{"pld." + e, m}};
      return AttrValue{EnumLit{e, m}};
    }
    fail(n, "E302", fmt::format("'{}' is not a value pypto knows", d));
  }
  auto v = try_const(n);
  if (!v) {
    if (is(n, "identifier") && !names_.count(txt(n)) && !global_defined(txt(n)))
      fail(n, "E200", fmt::format("Undefined variable '{}'", txt(n)));
    fail(n, "E302",
         fmt::format("'{}' must be a compile-time constant or an enum literal{}", txt(n),
                     spec ? fmt::format(" (keyword '{}'{})", spec->name,
                                        op_name.empty() ? std::string() : fmt::format(" of pl.{}", op_name))
                          : std::string()));
  }
  if (v->is_int()) return AttrValue{v->as_int()};
  if (v->is_float()) return AttrValue{v->as_float()};
  if (v->is_bool()) return AttrValue{std::get<bool>(v->v)};
  if (v->is_str()) return AttrValue{std::get<std::string>(v->v)};
  if (v->is_none()) return AttrValue{};
  if (v->is_dtype()) return AttrValue{std::get<DataType>(v->v)};
  fail(n, "E302", fmt::format("'{}' cannot be an op attribute (a single value is required)", txt(n)));
}

CallArgsCst split_args(FunctionBuilder& b, TSNode call) {
  CallArgsCst r;
  TSNode al = field(call, "arguments");
  if (!is(al, "argument_list")) b.fail(call, "E301", "generator arguments are not supported");
  for (TSNode a : children(al)) {
    if (is(a, "keyword_argument")) {
      std::string k = b.txt(field(a, "name"));
      for (const auto& [k2, _] : r.kw)
        if (k2 == k) b.fail(a, "E302", fmt::format("keyword argument '{}' repeated", k));
      r.kw.emplace_back(k, field(a, "value"));
    } else if (is(a, "list_splat") || is(a, "dictionary_splat")) {
      b.fail(a, "E301", "argument unpacking (*args / **kwargs) is not supported");
    } else {
      if (!r.kw.empty()) b.fail(a, "E302", "positional argument follows keyword argument");
      r.pos.push_back(a);
    }
  }
  return r;
}

static ExprPtr op_call(FunctionBuilder& b, const OpDef& op, const CallArgsCst& a, std::vector<ExprPtr> prebuilt,
                       TSNode call) {
  const size_t nargs = op.args.size();
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, AttrValue>> kw;
  prebuilt.resize(a.pos.size());
  for (size_t i = 0; i < a.pos.size(); ++i) {
    if (i < nargs) {
      args.push_back(prebuilt[i] ? prebuilt[i] : b.expr(a.pos[i]));
    } else {
      size_t ki = i - nargs;
      if (ki >= op.kwargs.size())
        b.fail(a.pos[i], "E302",
               fmt::format("pl.{}() takes at most {} positional arguments but {} were given", op.name,
                           nargs + op.kwargs.size(), a.pos.size()));
      kw.emplace_back(op.kwargs[ki].name, b.attr_value(a.pos[i], &op.kwargs[ki], op.name));
    }
  }
  for (const auto& [name, val] : a.kw) {
    size_t j = 0;
    while (j < nargs && op.args[j].name != name) ++j;
    if (j < nargs) {
      if (j < args.size()) b.fail(val, "E302", fmt::format("pl.{}() got multiple values for argument '{}'", op.name, name));
      if (j > args.size())
        b.fail(val, "E302", fmt::format("argument '{}' of pl.{}() needs the arguments before it", name, op.name));
      args.push_back(b.expr(val));
      continue;
    }
    const KwSpec* spec = op.find_kwarg(name);
    if (!spec) {
      std::string known;
      for (const auto& s : op.kwargs) known += (known.empty() ? "" : ", ") + s.name;
      b.fail(val, "E302", fmt::format("pl.{}() got an unexpected keyword argument '{}'", op.name, name),
             known.empty() ? fmt::format("pl.{}() takes no keyword arguments", op.name)
                           : fmt::format("accepted keywords: {}", known));
    }
    for (const auto& [k2, _] : kw)
      if (k2 == name) b.fail(val, "E302", fmt::format("pl.{}() got multiple values for '{}'", op.name, name));
    kw.emplace_back(name, b.attr_value(val, spec, op.name));
  }
  // One scalar where a list of indices goes (pl.tensor.read(t, i) on a 1-D tensor) is that list.
  for (size_t i = 0; i < args.size() && i < nargs; ++i)
    if (op.args[i].kind == ArgKind::IndexList && args[i] && as_scalar(args[i]->type))
      args[i] = b.make_tuple({args[i]}, args[i]->span);
  // Inside `for lane in pl.split_aiv(2, mode=M)`, aiv_shard / aic_gather take the region's split.
  if (op.name.ends_with(".aiv_shard") || op.name.ends_with(".aic_gather")) {
    const bool given = std::any_of(kw.begin(), kw.end(), [](const auto& p) { return p.first == "split"; });
    if (!b.split_aiv_modes_.empty()) {
      if (given)
        b.fail(call, "E302", fmt::format("pl.{}() inside pl.split_aiv takes the region's split; do not pass split=", op.name),
               "drop split=: the mode= of the enclosing pl.split_aiv applies");
      kw.emplace_back("split", AttrValue{int64_t(b.split_aiv_modes_.back())});
    }
  }
  return make_call(op, std::move(args), std::move(kw), b.sp(call));
}

// pld.<category>.<op>(...) and the two-segment short forms pld.<op>(...) (language.md §10.8); the
// short remote_load / remote_store pick the tile or tensor form by their first operand.
static ExprPtr pld_call(FunctionBuilder& b, TSNode n, const std::vector<std::string>& parts) {
  auto& reg = OpRegistry::instance();
  TSNode fnode = field(n, "function");
  std::string dn = b.txt(fnode);
  auto a = split_args(b, n);
  const OpDef* op = nullptr;
  std::vector<ExprPtr> prebuilt;
  if (parts.size() == 3 && (parts[1] == "system" || parts[1] == "tensor" || parts[1] == "tile")) {
    op = reg.find(dn);
  } else if (parts.size() == 2) {
    if (parts[1] == "remote_store" || parts[1] == "remote_load" || parts[1] == "put" || parts[1] == "get") {
      if (!a.pos.empty()) {
        prebuilt.push_back(b.expr(a.pos[0]));
        const bool tile = prebuilt[0]->type && prebuilt[0]->type->kind == TypeKind::Tile;
        op = reg.find(std::string(tile ? "pld.tile." : "pld.tensor.") + parts[1]);
        if (!op) op = reg.find("pld.tile." + parts[1]);
      }
    } else {
      for (const char* cat : {"pld.system.", "pld.tensor.", "pld.tile."})
        if (!op) op = reg.find(cat + parts[1]);
    }
  }
  if (!op)
    b.fail(fnode, "E300", fmt::format("Unknown distributed operation '{}'", dn),
           "pld ops: pld.alloc_window_buffer, window, world_size, get_comm_ctx, rank, nranks, remote_load, "
           "remote_store, pld.system.notify / wait / defer_wait, pld.tensor.put / get / barrier");
  // Window buffers and the world size belong to the host orchestrator, outside any device scope.
  if (op->name == "pld.tensor.alloc_window_buffer" || op->name == "pld.system.world_size") {
    const bool host = b.fn_->level == Level::HOST && b.fn_->role == Role::Orchestrator;
    if (!host || !b.scope_stack_.empty())
      b.fail(n, "E302",
             fmt::format("{}() is only valid in a host orchestrator (@pl.function(level=pl.Level.HOST, "
                         "role=pl.Role.Orchestrator)), outside device scopes",
                         dn),
             "allocate window buffers and query the world size on the host, then pass them to device code");
    if (op->name == "pld.tensor.alloc_window_buffer") {
      if (!ts_node_eq(b.window_alloc_rhs_, n))
        b.fail(n, "E302", fmt::format("{}(...) must be bound to a plain name: buf = {}(nbytes)", dn, dn),
               "the name of the target is the window buffer's name");
      for (const auto& [k, v] : a.kw)
        if (k == "name")
          b.fail(v, "E302", fmt::format("{}() takes no name=: the buffer is named by the variable it is bound to", dn));
    }
  }
  return op_call(b, *op, a, std::move(prebuilt), n);
}

// pl.mrgsort / pl.tile.mrgsort / pl.tensor.mrgsort: with block_len= one list of sorted runs
// (mrgsort_format1), else 2-4 sorted lists merged (mrgsort_format2; the tile form takes tmp=).
static ExprPtr mrgsort_call(FunctionBuilder& b, TSNode n, std::string family) {
  auto a = split_args(b, n);
  std::vector<ExprPtr> srcs;
  for (TSNode p : a.pos) srcs.push_back(b.expr(p));
  if (srcs.empty()) b.fail(n, "E302", "mrgsort() takes the sorted list(s) first");
  if (family.empty()) family = srcs[0]->type && srcs[0]->type->kind == TypeKind::Tile ? "tile" : "tensor";
  ExprPtr block_len, tmp;
  std::vector<std::pair<std::string, AttrValue>> kw;
  for (const auto& [k, v] : a.kw) {
    if (k == "block_len") block_len = b.index_expr(v, "block_len");
    else if (k == "tmp") tmp = b.expr(v);
    else if (k == "exhausted") kw.emplace_back(k, AttrValue{b.bool_literal(v, "exhausted")});
    else b.fail(v, "E302", fmt::format("pl.{}.mrgsort() got an unexpected keyword argument '{}'", family, k),
                "keywords: block_len (one list of sorted runs), tmp (tile form), exhausted");
  }
  const Span s = b.sp(n);
  if (block_len) {
    if (srcs.size() != 1 || tmp || !kw.empty())
      b.fail(n, "E302", "mrgsort(src, block_len=N) merges the sorted runs of one list; it takes no other operand");
    return make_call(family + ".mrgsort_format1", {srcs[0], block_len}, {}, s);
  }
  if (family == "tensor" && tmp)
    b.fail(n, "E302", "tmp= is only for tiles: at tensor level the scratch buffer is implicit");
  if (family == "tile") {
    if (!tmp) b.fail(n, "E302", "pl.tile.mrgsort of 2-4 lists needs tmp= (the merge destination's scratch tile)");
    srcs.push_back(tmp);
  }
  return make_call(family + ".mrgsort_format2", std::move(srcs), std::move(kw), s);
}

ExprPtr FunctionBuilder::call_expr(TSNode n) {
  const auto& f = *file_;
  TSNode fnode = field(n, "function");
  std::string dn = dotted_name(fnode, f);
  const Span s = sp(n);
  if (dn.empty()) fail(fnode, "E301", fmt::format("Unsupported function call '{}'", txt(fnode)));
  auto parts = split_dots(dn);
  if (parts.size() == 2 && parts[0] == "self") {
    FunctionBuilder* callee = ctx_.find(parts[1]);
    if (!callee || !callee->is_method_)
      fail(fnode, "E200", fmt::format("Function '{}' is not defined in program '{}'", parts[1], ctx_.program_name));
    return function_call(*callee, n, false);
  }
  if (parts.size() == 1) {
    if (FunctionBuilder* callee = ctx_.find(dn); callee && !callee->is_method_) return function_call(*callee, n, true);
    if (const FuncDecl* d = mod().top_function(dn))
      if (FunctionBuilder* callee = ctx_.find(*d); callee && !callee->is_method_) return function_call(*callee, n, true);
    if (dn == "min" || dn == "max" || dn == "abs")
      fail(n, "E303", fmt::format("{}() on DSL values is not supported", dn),
           fmt::format("use pl.{}(...) for scalars; Python {}() is only folded for constants", dn, dn));
    if (dn == "range") fail(n, "E301", "range() is only allowed as the iterator of a for loop, as pl.range()");
    if (const FuncDecl* d = mod().top_function(dn)) {
      if (d->kind == DeclKind::Jit || d->kind == DeclKind::JitHost)
        fail(n, "E301", fmt::format("'{}' is a @pl.jit entry; a @pl.jit function does not call other @pl.jit entries", dn),
             "decorate it with @pl.jit.incore / .inline / .opaque to make it a dependency");
      fail(n, "E301", fmt::format("'{}' is not part of this program", dn));
    }
    if (!global_defined(dn) && !names_.count(dn))
      fail(fnode, "E200", fmt::format("Undefined variable '{}'", dn));
    fail(n, "E301", fmt::format("Unsupported function call '{}'", dn));
  }
  // mod.fn(...) through `import kernels as mod`: a DSL function of another module.
  if (parts.size() == 2 && parts[0] != "pl" && parts[0] != "pld" && !names_.count(parts[0]))
    if (ModuleInfo* m = mod().module_binding(parts[0], fnode)) {
      const FuncDecl* d = m->top_function(parts[1]);
      if (FunctionBuilder* callee = d ? ctx_.find(*d) : nullptr) return function_call(*callee, n, true);
      if (auto v = try_const(n)) return const_to_expr(*v, n);  // C.ceil_div(100, 30): a config helper
      fail(fnode, "E200", fmt::format("module '{}' has no DSL function '{}'", m->module_name(), parts[1]),
           "only @pl.function / @pl.jit.* functions of an imported module can be called from DSL code");
    }
  if (parts[0] == "pld") return pld_call(*this, n, parts);
  if (parts[0] != "pl") fail(fnode, "E301", fmt::format("Unsupported function call '{}'", dn));
  if (dn == "pl.submit" || dn == "pl.spmd_submit") return submit_expr(n, dn == "pl.spmd_submit");
  if (dn == "pl.no_dep")
    fail(n, "E302", "pl.no_dep(x) marks an argument of a kernel call: self.k(a, pl.no_dep(x))");
  if (dn == "pl.dump_tag" || dn == "pl.func_attr") fail(n, "E302", fmt::format("{}() must be a statement", dn));
  auto a = split_args(*this, n);
  const std::string rest = dn.substr(3);
  if (rest == "yield_") fail(n, "E008", "pl.yield_ must be a statement: x = pl.yield_(...)");
  if (rest == "range" || rest == "parallel" || rest == "unroll" || rest == "pipeline" || rest == "while_" ||
      rest == "split_aiv")
    fail(n, "E301", fmt::format("pl.{}() can only be used as the iterator of a for loop", rest));
  if (rest == "at" || rest == "cluster" || rest == "scope" || rest == "manual_scope" || rest == "spmd")
    fail(n, "E009", fmt::format("pl.{}() can only be used in a with statement", rest));
  if (rest == "cond") fail(n, "E008", "pl.cond() is only allowed as the first statement of a pl.while_() body");
  if (rest == "static_assert" || rest == "static_print")
    fail(n, "E301", fmt::format("pl.{}() must be a statement", rest));
  if (rest == "const") {
    if (a.pos.size() + a.kw.size() != 2) fail(n, "E302", "pl.const() takes (value, dtype)");
    TSNode vn = a.pos.size() > 0 ? a.pos[0] : a.kw[0].second;
    TSNode dnode = a.pos.size() > 1 ? a.pos[1] : a.kw.back().second;
    auto v = try_const(vn);
    DataType dt = *parse_dtype(dnode, true);
    if (!v) fail(vn, "E304", "pl.const() value must be a compile-time constant");
    if (v->is_str()) {
      const auto& str = std::get<std::string>(v->v);
      double d = str == "inf" ? INFINITY : str == "-inf" ? -INFINITY : str == "nan" ? NAN : 0.0;
      if (str != "inf" && str != "-inf" && str != "nan") fail(vn, "E302", "pl.const() string values are \"inf\", \"-inf\", \"nan\"");
      if (!dtype_is_float(dt)) fail(vn, "E302", "non-finite pl.const() values need a float dtype");
      return make_float(d, s, dt);
    }
    if (dt == DataType::BOOL) {
      if (!v->is_bool() && !v->is_int()) fail(vn, "E302", "pl.const(..., pl.BOOL) needs a bool");
      return make_bool(v->is_bool() ? std::get<bool>(v->v) : v->as_int() != 0, s);
    }
    if (dtype_is_float(dt)) {
      if (v->is_float()) return make_float(v->as_float(), s, dt);
      if (v->is_int()) return make_float(double(v->as_int()), s, dt);
    } else if (v->is_int()) {
      return make_int(v->as_int(), s, dt);
    }
    fail(vn, "E302", fmt::format("pl.const() value {} does not fit dtype {}", v->repr(), dtype_name(dt)));
  }
  if (rest == "dynamic") {
    std::string sym;
    if (a.pos.size() != 1 || !string_value(unparen(a.pos[0]), f, sym))
      fail(n, "E302", "pl.dynamic() takes one string literal");
    return mod().dynamic_dim(sym, sym, s);
  }
  if (parts.size() == 3 && parts[2] == "get_byte") {
    auto dt = dtype_from_name(parts[1]);
    if (!dt) fail(fnode, "E105", fmt::format("Unknown dtype: {}", parts[1]));
    return make_int(dtype_bits(*dt) / 8, s);
  }
  // Scalar forms of pl.cast / min / max / abs (and arithmetic) on all-scalar operands.
  static const std::map<std::string, BinOp> scalar_bin = {
      {"min", BinOp::Min}, {"max", BinOp::Max}, {"add", BinOp::Add}, {"sub", BinOp::Sub}, {"mul", BinOp::Mul},
      {"div", BinOp::FloatDiv}, {"maximum", BinOp::Max}, {"minimum", BinOp::Min}};
  std::vector<ExprPtr> prebuilt(a.pos.size());
  if (parts.size() == 2 && (rest == "cast" || rest == "abs" || scalar_bin.count(rest)) && !a.pos.empty()) {
    prebuilt[0] = expr(a.pos[0]);
    if (is_scalar(prebuilt[0])) {
      if (rest == "cast") {
        TSNode dtn{};
        if (a.pos.size() >= 2) dtn = a.pos[1];
        for (const auto& [k2, v] : a.kw)
          if (k2 == "target_type" || k2 == "dtype") dtn = v;
        if (is_null(dtn)) fail(n, "E302", "pl.cast() needs a target dtype");
        return std::make_shared<Unary>(UnOp::Cast, prebuilt[0], scalar_type(*parse_dtype(dtn, true)), s);
      }
      if (rest == "abs") {
        if (a.pos.size() != 1) fail(n, "E302", "pl.abs() takes one argument");
        return std::make_shared<Unary>(UnOp::Abs, prebuilt[0], prebuilt[0]->type, s);
      }
      if (a.pos.size() == 2 && a.kw.empty()) {
        auto rhs = expr(a.pos[1]);
        if (is_scalar(rhs)) return scalar_binary(scalar_bin.at(rest), prebuilt[0], rhs, s, n);
        prebuilt[1] = rhs;
      }
    }
  }
  auto& reg = OpRegistry::instance();
  if (parts.back() == "mrgsort" && (parts.size() == 2 || parts[1] == "tile" || parts[1] == "tensor"))
    return mrgsort_call(*this, n, parts.size() == 3 ? parts[1] : std::string());
  // pl.gather(x, mask_pattern=P) is the pattern gather (tensor / tile gather_mask).
  if (dn == "pl.gather" || dn == "pl.tensor.gather" || dn == "pl.tile.gather") {
    auto ga = split_args(*this, n);
    const bool masked = std::any_of(ga.kw.begin(), ga.kw.end(), [](const auto& k) { return k.first == "mask_pattern"; });
    if (masked && !ga.pos.empty()) {
      auto src = expr(ga.pos[0]);
      const bool tile = parts.size() == 3 ? parts[1] == "tile" : src->type && src->type->kind == TypeKind::Tile;
      return op_call(*this, *reg.find(tile ? "tile.gather_mask" : "tensor.gather_mask"), ga, {src}, n);
    }
  }
  if (parts.size() == 3) {
    static const std::set<std::string> families = {"tensor", "tile", "system", "array", "prefetch"};
    if (!families.count(parts[1])) fail(fnode, "E300", fmt::format("Unknown operation '{}'", dn));
    const OpDef* op = reg.find(parts[1] + "." + parts[2]);
    for (const std::string& key : {parts[1] + "." + parts[2], parts[2]})  // pl.tile.arange → tile.ci
      if (auto it = alias_map().find(key); !op && it != alias_map().end())
        for (const OpDef* o : it->second)
          if (o->family() == parts[1]) op = o;
    if (!op) fail(fnode, "E300", fmt::format("Unknown operation '{}'", dn));
    return op_call(*this, *op, a, {}, n);
  }
  if (parts.size() != 2) fail(fnode, "E300", fmt::format("Unknown operation '{}'", dn));
  // Unified dispatch: pl.X → tensor.X / tile.X by the first operand, aliases, scalar forms.
  const OpDef* t_op = reg.find("tensor." + rest);
  const OpDef* l_op = reg.find("tile." + rest);
  if (auto it = alias_map().find(rest); it != alias_map().end()) {
    for (const OpDef* op : it->second) {
      if (op->family() == "tensor" && !t_op) t_op = op;
      else if (op->family() == "tile" && !l_op) l_op = op;
      else if (!t_op && !l_op) t_op = op;
    }
  }
  if (!t_op && !l_op) fail(fnode, "E300", fmt::format("Unknown operation '{}'", dn));
  const OpDef* op = t_op ? t_op : l_op;
  if (t_op && l_op) {
    TypePtr first;
    if (!a.pos.empty() && !looks_like_attr_literal(a.pos[0], f)) {
      if (!prebuilt[0]) prebuilt[0] = expr(a.pos[0]);
      first = prebuilt[0]->type;
    }
    const bool generator = !op->args.empty() && op->args[0].kind == ArgKind::Scalar;  // pl.ci / pl.arange(start, shape)
    if (first && first->kind == TypeKind::Tile) op = l_op;
    else if (first && first->kind == TypeKind::Tensor) op = t_op;
    else if (first && first->kind == TypeKind::Scalar && generator)
      op = fn_->type == FunctionType::InCore || fn_->type == FunctionType::AIC || fn_->type == FunctionType::AIV
               ? l_op : t_op;  // no operand to follow: the level of the code it is written in
    else if (first && first->kind == TypeKind::Scalar)
      fail(a.pos[0], "E302", fmt::format("{}() expects a Tensor or Tile as its first operand, got a scalar", dn));
    // Mixing levels is a type error.
    for (size_t i = 1; i < a.pos.size() && i < op->args.size(); ++i) {
      if (looks_like_attr_literal(a.pos[i], f)) continue;
      if (!prebuilt[i]) prebuilt[i] = expr(a.pos[i]);
      auto k2 = prebuilt[i]->type ? prebuilt[i]->type->kind : TypeKind::Ptr;
      if (first && ((first->kind == TypeKind::Tile && k2 == TypeKind::Tensor) ||
                    (first->kind == TypeKind::Tensor && k2 == TypeKind::Tile)))
        fail(a.pos[i], "E302", fmt::format("{}() cannot mix Tensor and Tile operands", dn),
             "pl.load a tile from the tensor first, or stay at tensor level");
    }
  }
  if (!op->scalar_form.empty() && a.pos.size() >= 2 && op->args.size() >= 2 && !looks_like_attr_literal(a.pos[1], f)) {
    if (!prebuilt[1]) prebuilt[1] = expr(a.pos[1]);
    if (is_scalar(prebuilt[1])) {
      const OpDef* sf = reg.find(op->scalar_form);
      if (!sf) throw InternalError("parser", "scalar form '" + op->scalar_form + "' of " + op->name + " is not registered");
      op = sf;
    }
  }
  return op_call(*this, *op, a, std::move(prebuilt), n);
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
