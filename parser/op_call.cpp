// Calls → IR: routing a call (self.k / a bare DSL function / mod.fn / pld.* / pl.*), binding
// arguments to a registry op (positional attributes, enum and dtype attribute values), the
// unified pl.X dispatch to tensor.X / tile.X by the operand's level, scalar forms, pl.const /
// pl.dynamic (ir/TEXT_FORMAT.md, language.md §7). Calls of program functions: call_builder.cpp.
#include <cmath>
#include <fmt/format.h>

#include "parser/builder.h"
#include "parser/op_call.h"

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

ExprPtr op_call(FunctionBuilder& b, const OpDef& op, const CallArgsCst& a, std::vector<ExprPtr> prebuilt,
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
  // One scalar index of read / write (pl.tensor.read(t, i) on a 1-D tensor) is that list; other
  // ops take lists only (a scalar there is a type error, as in the reference).
  if (op.name.ends_with(".read") || op.name.ends_with(".write"))
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

ExprPtr FunctionBuilder::call_expr(TSNode n) {
  const auto& f = *file_;
  TSNode fnode = field(n, "function");
  std::string dn = dotted_name(fnode, f);
  const Span s = sp(n);
  if (dn.empty()) fail(fnode, "E301", fmt::format("Unsupported function call '{}'", txt(fnode)));
  auto parts = split_dots(dn);
  if (parts.size() == 2 && parts[0] == "self") {
    FunctionBuilder* callee = ctx_.find(parts[1]);
    if ((!callee || !callee->is_method_) && !is_method_ && ctx_.is_jit)
      if (FunctionBuilder* dep = jit_dependency(parts[1], fnode)) return function_call(*dep, n, true);
    if (!callee || !callee->is_method_)
      fail(fnode, "E200", fmt::format("Function '{}' is not defined in program '{}'", parts[1], ctx_.program_name));
    return function_call(*callee, n, false);
  }
  if (parts.size() == 1) {
    // A @pl.jit orchestrator is a callee of a @pl.jit.host only (the host dispatches it per device).
    auto callable = [&](const FunctionBuilder* callee) {
      return callee && !callee->is_method_ &&
             (callee->decl().kind != DeclKind::Jit || decl_.kind == DeclKind::JitHost) &&
             callee->decl().kind != DeclKind::JitHost;
    };
    if (FunctionBuilder* callee = ctx_.find(dn); callable(callee)) return function_call(*callee, n, true);
    if (const FuncDecl* d = mod().top_function(dn))
      if (FunctionBuilder* callee = ctx_.find(*d); callable(callee)) return function_call(*callee, n, true);
    // A DSL function value: made by a builder call (`hc_pre = _bind_hc_pre()`, a factory's
    // `_qk = make_kernel_qk(...)`), possibly imported.
    if (auto d = dsl_callee(dn, fnode)) {
      if (FunctionBuilder* callee = ctx_.find(*d); callable(callee)) return function_call(*callee, n, true);
      if (ctx_.find(d->name)) throw PoisonedName{};  // another build of it holds the name (E201 reported)
    }
    if (dn == "min" || dn == "max" || dn == "abs")
      fail(n, "E303", fmt::format("{}() on DSL values is not supported", dn),
           fmt::format("use pl.{}(...) for scalars; Python {}() is only folded for constants", dn, dn));
    if (dn == "range") fail(n, "E301", "range() is only allowed as the iterator of a for loop, as pl.range()");
    if (const FuncDecl* d = mod().top_function(dn)) {
      if (d->kind == DeclKind::JitHost)
        fail(n, "E301", fmt::format("'{}' is a @pl.jit.host entry; no DSL function calls a host orchestrator", dn),
             "a @pl.jit.host is called from Python; call the chip-level @pl.jit from it instead");
      if (d->kind == DeclKind::Jit)
        fail(n, "E301", fmt::format("'{}' is a @pl.jit entry; only a @pl.jit.host calls other @pl.jit entries", dn),
             decl_.kind == DeclKind::Jit ? "decorate it with @pl.jit.incore / .inline / .opaque to make it a dependency"
                                         : "call it from a @pl.jit.host (chip_orch(..., device=r)) or make it a "
                                           "@pl.jit.incore / .inline / .opaque dependency");
      fail(n, "E301", fmt::format("'{}' is not part of this program", dn));
    }
    if (!global_defined(dn) && !names_.count(dn))
      fail(fnode, "E200", fmt::format("Undefined variable '{}'", dn));
    fail(n, "E301", fmt::format("Unsupported function call '{}'", dn));
  }
  // mod.fn(...) through `import kernels as mod`: a DSL function of another module.
  if (parts.size() == 2 && parts[0] != "pl" && parts[0] != "pld" && !names_.count(parts[0]))
    if (ModuleInfo* m = mod().module_binding(parts[0], fnode)) {
      auto d = m->dsl_function(parts[1], fnode);
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
        if (is_scalar(rhs)) {
          ExprPtr r = scalar_binary(scalar_bin.at(rest), prebuilt[0], rhs, s, n);
          // Integer constants fold, as `C - R` written with operators does (the source's constant
          // expressions are evaluated): the printed IR then reads back as the same IR.
          const auto* bin = as<Binary>(r);
          const auto x = const_int_value(prebuilt[0]), y = const_int_value(rhs);
          const auto* rt = as_scalar(r->type);
          if (bin && x && y && rt && dtype_is_int(rt->dtype) && bin->op != BinOp::FloatDiv) {
            int64_t v = 0;
            bool ok = true;
            switch (bin->op) {
              case BinOp::Add: ok = !__builtin_add_overflow(*x, *y, &v); break;
              case BinOp::Sub: ok = !__builtin_sub_overflow(*x, *y, &v); break;
              case BinOp::Mul: ok = !__builtin_mul_overflow(*x, *y, &v); break;
              case BinOp::Min: v = std::min(*x, *y); break;
              case BinOp::Max: v = std::max(*x, *y); break;
              default: ok = false;
            }
            if (ok) return make_int(v, s, rt->dtype);
          }
          return r;
        }
        prebuilt[1] = rhs;
      }
    }
  }
  auto& reg = OpRegistry::instance();
  if (parts.back() == "mrgsort" && (parts.size() == 2 || parts[1] == "tile" || parts[1] == "tensor"))
    return mrgsort_call(*this, n, parts.size() == 3 ? parts[1] : std::string());
  // pl.gather / pl.scatter: the reference's one spelling for the index and mask forms.
  if ((parts.back() == "gather" || parts.back() == "scatter") && (parts.size() == 2 || parts[1] == "tile" || parts[1] == "tensor"))
    if (auto e = gather_scatter_call(*this, n, parts.size() == 3 ? parts[1] : std::string(), parts.back() == "scatter", prebuilt))
      return e;
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
  if (l_op && l_op->internal) l_op = nullptr;  // a pass inserts it; no user spelling
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
    // Mixing levels is a type error, except where the op takes the other level (tile.gather_row's
    // GM source: the destination names the level).
    for (size_t i = 1; i < a.pos.size() && i < op->args.size(); ++i) {
      if (looks_like_attr_literal(a.pos[i], f)) continue;
      if (op->args[i].kind == (op == l_op ? ArgKind::Tensor : ArgKind::Tile)) continue;
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

}  // namespace pypto::parser
