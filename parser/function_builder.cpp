// Function signatures (decorator fields, parameters, return annotation) and bodies.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

FunctionBuilder::FunctionBuilder(ProgramCtx& ctx, FuncDecl decl, bool is_method)
    : ctx_(ctx), decl_(std::move(decl)), file_(decl_.module->file()), is_method_(is_method), strict_ssa_(ctx.strict_ssa) {
  fn_ = std::make_shared<Function>();
  fn_->name = decl_.name;
  fn_->span = sp(field(decl_.def, "name"));
  fn_->leading_comments = decl_.leading_comments;
}

void FunctionBuilder::parse_decorator() {
  const auto& f = *file_;
  TSNode d = decl_.decorator;
  switch (decl_.kind) {
    case DeclKind::Function:
      fn_->type = dotted_name(is(d, "call") ? field(d, "function") : d, f) == "pl.inline" ? FunctionType::Inline
                                                                                         : FunctionType::Opaque;
      break;
    case DeclKind::Jit: fn_->type = FunctionType::Orchestration; break;
    case DeclKind::JitHost:
      fn_->type = FunctionType::Orchestration;
      fn_->level = Level::HOST;
      fn_->role = Role::Orchestrator;
      break;
    case DeclKind::JitIncore: fn_->type = FunctionType::InCore; break;
    case DeclKind::JitInline: fn_->type = FunctionType::Inline; break;
    case DeclKind::JitOpaque: fn_->type = FunctionType::Opaque; break;
    case DeclKind::JitExtern: fn_->type = FunctionType::AIV; break;
  }
  if (!is(d, "call")) {
    if (decl_.kind == DeclKind::JitExtern) fail(d, "E302", "@pl.jit.extern needs its options: @pl.jit.extern(source=\"k.cpp\")");
    return;
  }
  const std::string deco = dotted_name(field(d, "function"), f);
  if (decl_.kind == DeclKind::JitExtern) {
    auto a = split_args(*this, d);
    if (!a.pos.empty()) fail(a.pos[0], "E302", "@pl.jit.extern() takes keyword arguments only");
    jit_extern_options(*this, a.kw, d);
    return;
  }
  for (TSNode a : children(field(d, "arguments"))) {
    if (!is(a, "keyword_argument")) fail(a, "E302", fmt::format("@{}() takes keyword arguments only", deco));
    std::string k = txt(field(a, "name"));
    TSNode v = unparen(field(a, "value"));
    std::string dv = dotted_name(v, f);
    auto last = dv.substr(dv.rfind('.') == std::string::npos ? 0 : dv.rfind('.') + 1);
    auto want_enum = [&](const char* en) {
      if (dv.rfind(std::string("pl.") + en + ".", 0) != 0)
        fail(v, "E302", fmt::format("{}= must be written as pl.{}.<member>", k, en));
    };
    auto want_bool = [&]() -> bool {
      if (!is(v, "true") && !is(v, "false")) fail(v, "E302", fmt::format("{}= must be True or False", k));
      return is(v, "true");
    };
    if (k == "type" && decl_.kind == DeclKind::Function) {
      want_enum("FunctionType");
      auto t = function_type_from_name(last);
      if (!t) fail(v, "E302", fmt::format("Unknown function type '{}'", last));
      fn_->type = *t;
    } else if (k == "level" && (decl_.kind == DeclKind::Function || decl_.kind == DeclKind::JitIncore)) {
      want_enum("Level");
      auto l = level_from_name(last);
      if (!l) fail(v, "E302", fmt::format("Unknown level '{}'", last));
      fn_->level = *l;
    } else if (k == "role" && decl_.kind == DeclKind::Function) {
      want_enum("Role");
      auto r = role_from_name(last);
      if (!r) fail(v, "E302", fmt::format("Unknown role '{}'", last));
      fn_->role = *r;
    } else if (k == "auto_scope") {
      fn_->auto_scope = want_bool();
    } else if (k == "strict_ssa" && decl_.kind == DeclKind::Function) {
      strict_ssa_ = want_bool();
    } else if (k == "attrs" && decl_.kind == DeclKind::Function) {
      decorator_attrs(*this, v);
    } else if (k == "external_source" && decl_.kind == DeclKind::Function) {
      decorator_external_source(*this, v);
    } else {
      fail(a, "E302", fmt::format("Unknown keyword argument '{}' in @{}()", k, deco));
    }
  }
}

static void collect_calls(TSNode root, const SourceFile& f, bool self_calls, std::vector<std::string>& out);

// The type of an entry parameter: its annotation, or what --arg NAME=SPEC says for a bare
// `pl.Tensor` (also inside pl.Out[...] / pl.InOut[...]); a spec must agree with a full annotation.
bool FunctionBuilder::bare_tensor(TSNode ann, ParamDirection* dir, TSNode* at) const {
  TSNode inner = ann;
  if (is(inner, "type") && children(inner).size() == 1) inner = children(inner)[0];
  inner = unparen(inner);
  ParamDirection d = ParamDirection::In;
  if (is(inner, "subscript")) {
    std::string head = dotted_name(field(inner, "value"), *file_);
    head = head.substr(head.rfind('.') == std::string::npos ? 0 : head.rfind('.') + 1);
    auto subs = field_children(inner, "subscript");
    if ((head == "Out" || head == "InOut") && subs.size() == 1) {
      d = head == "Out" ? ParamDirection::Out : ParamDirection::InOut;
      inner = unparen(subs[0]);
    }
  }
  const std::string dn = dotted_name(inner, *file_);
  if (dn != "pl.Tensor" && dn != "Tensor") return false;
  *dir = d;
  if (at) *at = inner;
  return true;
}

std::string FunctionBuilder::bare_entry_hint(const std::string& name, const SpecTable* specs) {
  std::string h = fmt::format("annotate the shape (pl.Tensor[[d0, d1], pl.FP32]) or give it: --arg {}=FP32[d0,d1]", name);
  if (bare_entry_hinted_) return h;
  bare_entry_hinted_ = true;
  if (specs && !specs->origin.empty()) {
    h += fmt::format("; {} gives no tensor for '{}'", specs->origin, name);
  } else {
    std::string cands;
    for (const auto& [f, fn] : mod().helper_functions()) {
      if (f.find("spec") == std::string::npos) continue;
      bool no_args = true;  // a spec function is read with its parameters at their defaults
      for (TSNode p : children(field(fn->node(), "parameters")))
        no_args = no_args && (is(p, "default_parameter") || is(p, "typed_default_parameter"));
      if (no_args) cands += (cands.empty() ? "'" : ", '") + f + "'";
    }
    h += "; the file has no spec function (build_tensor_specs / build_specs) and no call of the entry whose "
         "shapes can be read statically";
    if (!cands.empty()) h += fmt::format(" (--specs FUNC names another: {})", cands);
  }
  if (specs && !specs->note.empty()) h += "; " + specs->note;
  // Another entry of the file that calls this one (a @pl.jit.host entry over a @pl.jit one) types
  // it from its arguments.
  for (const auto& e : mod().entries()) {
    if (e.is_program || e.name == decl_.name) continue;
    std::vector<std::string> calls;
    collect_calls(field(e.node, "body"), *file_, false, calls);
    if (std::find(calls.begin(), calls.end(), decl_.name) != calls.end()) {
      h += fmt::format("; entry '{}' calls '{}' with typed arguments: check that entry (--entry {})", e.name,
                       decl_.name, e.name);
      break;
    }
  }
  return h;
}

TypePtr FunctionBuilder::entry_param_type(TSNode ann, ParamDirection* dir, const std::string& name) {
  auto it = ctx_.spec.args.find(name);
  TSNode bare{};
  if (it == ctx_.spec.args.end()) {
    if (!bare_tensor(ann, dir, &bare)) return parse_type(ann, dir, name);
    // A bare parameter without --arg: the file's spec function, when it has one and names it.
    const SpecTable* t = ctx_.specs ? ctx_.specs() : nullptr;
    if (t)
      if (auto s = t->tensors.find(name); s != t->tensors.end()) return s->second;
    fail(bare, "E103",
         fmt::format("cannot specialize from the signature because parameter '{}' has a bare 'pl.Tensor' annotation "
                     "with no shape",
                     name),
         bare_entry_hint(name, t));
  }
  TypePtr want = parse_arg_spec(name, it->second, mod());
  if (bare_tensor(ann, dir)) return want;
  TypePtr t = parse_type(ann, dir, name);
  if (!as_tensor(t))
    fail(ann, "E104", fmt::format("--arg {}={}: parameter '{}' is {}, not a tensor", name, it->second, name, type_str(t)),
         "--arg types tensor parameters; use --scalar NAME=VALUE for a scalar");
  if (!same_type(t, want))
    fail(ann, "E104",
         fmt::format("--arg {}={} contradicts the annotation of '{}': {}", name, it->second, name, type_str(t)),
         fmt::format("drop the --arg, or give the annotated shape: --arg {}={}", name, type_str(t)));
  return t;
}

// Every --arg / --scalar names a parameter of the entry (of the right kind).
void FunctionBuilder::check_specialization(std::vector<CompileError>& errs) {
  std::string params;
  for (const auto& p : param_names_) params += (params.empty() ? "" : ", ") + p;
  auto has = [&](const std::string& n) {
    return specialized_.count(n) || std::find(param_names_.begin(), param_names_.end(), n) != param_names_.end();
  };
  TSNode at = field(decl_.def, "name");
  for (const auto& [flag, specs] : {std::pair{"--arg", &ctx_.spec.args}, std::pair{"--scalar", &ctx_.spec.scalars}})
    for (const auto& [n, v] : *specs)
      if (!has(n))
        errs.emplace_back("E107", sp(at), fmt::format("{} {}={}: entry '{}' has no parameter '{}'", flag, n, v, decl_.name, n),
                          params.empty() ? "the entry takes no parameters" : fmt::format("its parameters: {}", params));
  for (const auto& [n, v] : ctx_.spec.scalars) {
    for (size_t i = 0; i < fn_->params.size(); ++i)
      if (fn_->params[i]->name == n && !as_scalar(fn_->params[i]->type))
        errs.emplace_back("E107", sp(at), fmt::format("--scalar {}={}: parameter '{}' is not a scalar", n, v, n),
                          "--scalar binds scalar parameters; use --arg NAME=DTYPE[dims] for a tensor");
  }
}

void FunctionBuilder::build_signature() {
  parse_decorator();
  fn_->strict_ssa = strict_ssa_;
  const auto& f = *file_;
  TSNode params = field(decl_.def, "parameters");
  auto ps = children(params);
  size_t i0 = 0;
  if (is_method_ && !ps.empty() && is(ps[0], "identifier") && txt(ps[0]) == "self") i0 = 1;
  else if (is_method_ && fn_->role != Role::SubWorker)
    fail(is_null(params) ? decl_.def : params, "E100",
         fmt::format("method '{}' must take 'self' first (only role=pl.Role.SubWorker functions have no self)", decl_.name));
  std::vector<CompileError> errs;
  const bool is_entry = decl_.def.id == ctx_.entry_def;
  for (size_t i = i0; i < ps.size(); ++i) {
    TSNode p = ps[i];
    try {
      if (is(p, "identifier"))
        fail(p, "E100", fmt::format("Parameter '{}' missing type annotation", txt(p)),
             "annotate it, e.g. x: pl.Tensor[[64, 128], pl.FP32]");
      if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
        fail(p, "E101", "parameter default values are not supported");
      if (!is(p, "typed_parameter")) fail(p, "E101", fmt::format("unsupported parameter '{}'", txt(p)));
      TSNode name_node = children(p)[0];
      if (!is(name_node, "identifier")) fail(p, "E101", fmt::format("unsupported parameter '{}'", txt(p)));
      std::string name = txt(name_node);
      ParamDirection dir = ParamDirection::In;
      // (a @pl.jit that is not the entry is a chip orchestrator a @pl.jit.host dispatches)
      const bool dependency = ctx_.is_jit && (decl_.kind == DeclKind::JitIncore || decl_.kind == DeclKind::JitInline ||
                                              decl_.kind == DeclKind::JitOpaque || decl_.kind == DeclKind::JitExtern ||
                                              (decl_.kind == DeclKind::Jit && !is_entry));
      if (dependency && bare_tensor(field(p, "type"), &dir)) {
        // Typed by its first call site (resolve_pending_params).
        for (const auto& pn : param_names_)
          if (pn == name) fail(name_node, "E101", fmt::format("duplicate parameter '{}'", name));
        pending_params_.push_back(fn_->params.size());
        fn_->params.push_back(nullptr);
        fn_->param_directions.push_back(dir);
        param_names_.push_back(name);
        param_nodes_.push_back(name_node);
        continue;
      }
      TypePtr t = is_entry ? entry_param_type(field(p, "type"), &dir, name) : parse_type(field(p, "type"), &dir, name);
      if (is_entry && as_scalar(t))
        if (auto it = ctx_.spec.scalars.find(name); it != ctx_.spec.scalars.end()) {
          // --scalar NAME=VALUE: a specialisation constant, folded at every use; it leaves the signature.
          if (auto c = parse_scalar_spec(name, it->second, as_scalar(t)->dtype, mod())) {
            specialized_[name] = *c;
            continue;
          }
        }
      VarPtr v;
      // A Scalar[INDEX] parameter named like a module pl.dynamic symbol binds that symbol.
      if (auto dv = global_lookup(name, name_node); dv && dv->is_dyn() && as_scalar(t) &&
                                                      as_scalar(t)->dtype == DataType::INDEX)
        v = std::get<VarPtr>(dv->v);
      else
        v = make_var(name, t, sp(name_node));
      for (const auto& pn : param_names_)
        if (pn == name) fail(name_node, "E101", fmt::format("duplicate parameter '{}'", name));
      names_[name] = v;
      fn_->params.push_back(v);
      fn_->param_directions.push_back(dir);
      param_names_.push_back(name);
      param_nodes_.push_back(name_node);
    } catch (const CompileError& e) {
      errs.push_back(e);
    }
  }
  if (is_entry && errs.empty()) check_specialization(errs);
  if (errs.empty()) {
    try {
      apply_bind_dynamic();
    } catch (const CompileError& e) {
      errs.push_back(e);
    }
  }
  TSNode rt = field(decl_.def, "return_type");
  if (!is_null(rt) && ctx_.is_jit) {
    try {
      if (jit_bare_return(rt)) rt = TSNode{};
    } catch (const CompileError& e) {
      errs.push_back(e);
      rt = TSNode{};
    }
  }
  if (!is_null(rt)) {
    try {
      TypePtr t = parse_type(rt, nullptr, "");
      TSNode inner = children(rt).empty() ? rt : children(rt)[0];
      bool multi = is(inner, "generic_type") ||
                   (is(inner, "subscript") && dotted_name(field(inner, "value"), f).ends_with("Tuple"));
      if (multi) {
        fn_->return_types = as_tuple(t)->elems;
        ret_annotated_ = ret_known_ = true;
      } else if (ctx_.is_jit && as_tensor(t) && decl_.kind != DeclKind::JitExtern) {  // an extern has no body
        // A @pl.jit function's one-tensor return type is the returned value's, as the reference's
        // specializer re-derives it; the annotation only warns when it disagrees (return_stmt).
        jit_declared_return_ = t;
        jit_declared_return_node_ = rt;
      } else {
        fn_->return_types = {t};
        ret_annotated_ = ret_known_ = true;
      }
    } catch (const CompileError& e) {
      errs.push_back(e);
    }
  }
  if (!errs.empty()) {
    std::vector<Diagnostic> all;
    for (const auto& e : errs)
      for (const auto& d : e.diagnostics()) all.push_back(d);
    throw CompileError(std::move(all));
  }
  sig_ok_ = true;
}

// A @pl.jit return annotation with a bare `pl.Tensor` (`-> pl.Tensor`, `-> tuple[pl.Tensor,
// pl.Scalar[pl.TASK_ID]]`): the reference re-derives a jit function's return annotation from its
// return statement, so the bare element takes the type of the value returned there (a tensor
// parameter's type, a dependency's result). The complete elements are kept and checked by
// return_stmt, which also rejects the one form the reference cannot re-derive. True when the
// annotation is one of these (the return types are then inferred from the body).
bool FunctionBuilder::jit_bare_return(TSNode rt) {
  TSNode inner = rt;
  if (is(inner, "type") && children(inner).size() == 1) inner = children(inner)[0];
  inner = unparen(inner);
  auto is_bare = [&](TSNode n) {
    const std::string dn = dotted_name(unparen(n), *file_);
    return dn == "pl.Tensor" || dn == "Tensor";
  };
  std::vector<TSNode> elems;
  if (is_bare(inner)) {
    elems.push_back(inner);
  } else if (is(inner, "generic_type")) {  // tuple[T1, T2]
    auto c = children(inner);
    if (c.size() != 2 || txt(c[0]) != "tuple") return false;
    elems = children(c[1]);
  } else if (is(inner, "subscript")) {
    std::string head = dotted_name(field(inner, "value"), *file_);
    if (head != "pl.Tuple" && head != "Tuple" && head != "tuple") return false;
    elems = field_children(inner, "subscript");
  } else {
    return false;
  }
  for (TSNode& e : elems)
    if (is(e, "type") && children(e).size() == 1) e = children(e)[0];
  if (std::none_of(elems.begin(), elems.end(), is_bare)) return false;
  std::vector<TypePtr> types;
  for (TSNode e : elems) types.push_back(is_bare(e) ? nullptr : parse_type(e, nullptr, ""));
  for (TSNode e : elems) ret_bare_nodes_.push_back(unparen(e));
  ret_bare_types_ = std::move(types);
  ret_bare_tuple_ = !is_bare(inner);
  return true;
}

// A return in a function whose jit return annotation has bare elements, as the reference reads
// it: when `return a, b, ...` matches the annotated tuple, an element returning a tensor parameter
// takes the parameter's type; if another element is neither such a parameter nor bare, the
// annotation is kept, so a bare element there stays incomplete (E103) and a complete one is
// checked. Otherwise the annotation is dropped and the values' types are the return types.
void FunctionBuilder::check_jit_bare_return(TSNode ret, const std::vector<ExprPtr>& values) {
  if (!ret_bare_tuple_) return;
  auto c = children(ret);
  if (c.empty() || !(is(c[0], "expression_list") || is(c[0], "tuple"))) return;
  auto elts = children(c[0]);
  if (elts.size() != ret_bare_types_.size() || values.size() != elts.size()) return;
  auto tensor_param = [&](TSNode e) {
    e = unparen(e);
    if (!is(e, "identifier")) return false;
    auto pos = std::find(param_names_.begin(), param_names_.end(), txt(e));
    if (pos == param_names_.end()) return false;
    const auto& p = fn_->params[size_t(pos - param_names_.begin())];
    return !p || as_tensor(p->type);  // an untyped parameter is a bare pl.Tensor
  };
  std::optional<size_t> bare_local;
  bool kept = false;
  for (size_t i = 0; i < elts.size(); ++i) {
    if (tensor_param(elts[i])) continue;
    if (!ret_bare_types_[i]) {
      if (!bare_local) bare_local = i;
    } else if (is(ret_bare_nodes_[i], "subscript")) {
      kept = true;
    }
  }
  if (!kept) return;
  if (bare_local)
    fail(ret_bare_nodes_[*bare_local], "E103", fmt::format("Incomplete type annotation: {}", txt(ret_bare_nodes_[*bare_local])),
         fmt::format("return value {} ('{}') is not a tensor parameter, and the annotation's complete elements keep it, "
                     "so its shape must be written: {}",
                     *bare_local, txt(elts[*bare_local]), type_str(values[*bare_local]->type)));
  for (size_t i = 0; i < elts.size(); ++i)
    if (ret_bare_types_[i] && !tensor_param(elts[i]) && !same_type(values[i]->type, ret_bare_types_[i]))
      fail(elts[i], "E104",
           fmt::format("return value {} has type {} but '{}' declares {}", i, type_str(values[i]->type), fn_->name,
                       type_str(ret_bare_types_[i])));
}

// `x.bind_dynamic(DIM, SYM)` statements at the top level of the body: dimension DIM of parameter x
// is the pl.dynamic symbol SYM (its extent a runtime value of the whole program). Parameters typed
// by a call site get theirs when that call types them.
void FunctionBuilder::apply_bind_dynamic() {
  for (TSNode st : children(field(decl_.def, "body"))) {
    if (!is(st, "expression_statement") || children(st).size() != 1) continue;
    TSNode c = unparen(children(st)[0]);
    if (!is(c, "call") || !is(field(c, "function"), "attribute")) continue;
    TSNode fn = field(c, "function");
    if (txt(field(fn, "attribute")) != "bind_dynamic" || !is(field(fn, "object"), "identifier")) continue;
    const std::string pname = txt(field(fn, "object"));
    auto pos = std::find(param_names_.begin(), param_names_.end(), pname);
    if (pos == param_names_.end()) continue;  // not a parameter: the statement reports it
    const size_t i = size_t(pos - param_names_.begin());
    if (!fn_->params[i]) continue;  // typed later by its call site
    auto args = children(field(c, "arguments"));
    if (args.size() != 2) fail(c, "E302", "bind_dynamic() takes (dim, pl.dynamic symbol)");
    auto dim = try_const(args[0]);
    auto sym = try_const(args[1]);
    const auto* t = as_tensor(fn_->params[i]->type);
    if (!t) fail(c, "E302", fmt::format("bind_dynamic() on '{}', which is not a tensor", pname));
    if (!dim || !dim->is_int() || dim->as_int() < 0 || dim->as_int() >= int64_t(t->shape.size()))
      fail(args[0], "E302", fmt::format("bind_dynamic() dimension must be an integer in [0, {})", t->shape.size()));
    if (!sym || !sym->is_dyn())
      fail(args[1], "E302", fmt::format("bind_dynamic() needs a pl.dynamic symbol, got '{}'", txt(args[1])),
           "define it with M = pl.dynamic(\"M\")");
    auto shape = t->shape;
    shape[size_t(dim->as_int())] = std::get<VarPtr>(sym->v);
    auto v = make_var(pname, std::make_shared<TensorType>(t->dtype, std::move(shape), t->view, t->memref),
                      fn_->params[i]->span);
    fn_->params[i] = v;
    names_[pname] = v;
    bound_dynamic_.insert(c.id);
  }
}

void FunctionBuilder::resolve_pending_params(const std::vector<ExprPtr>& args, TSNode call, FunctionBuilder& caller) {
  if (!pending_params_.empty() && pending_site_.empty()) {
    for (size_t i : pending_params_) {
      const auto* t = args[i] ? as_tensor(args[i]->type) : nullptr;
      if (!t)
        caller.fail(call, "E302",
                    fmt::format("argument '{}' of '{}' must be a tensor: its bare pl.Tensor annotation takes the "
                                "type of the argument",
                                param_names_[i], decl_.name));
      // Dims that name the caller's locals cannot cross into the callee: they become dynamic.
      std::vector<ExprPtr> dims;
      for (size_t d = 0; d < t->shape.size(); ++d) {
        const auto* v = as<Var>(t->shape[d]);
        if (as<ConstInt>(t->shape[d]) || (v && mod().is_dynamic_symbol(t->shape[d])))
          dims.push_back(t->shape[d]);
        else
          dims.push_back(mod().dynamic_dim(fmt::format("{}.{}_d{}", decl_.name, param_names_[i], d),
                                           fmt::format("{}_{}_d{}", decl_.name, param_names_[i], d), sp(param_nodes_[i])));
      }
      auto pt = std::make_shared<TensorType>(t->dtype, std::move(dims));
      auto v = make_var(param_names_[i], pt, sp(param_nodes_[i]));
      fn_->params[i] = v;
      names_[param_names_[i]] = v;
    }
    pending_site_ = caller.sp(call).to_string();
    apply_bind_dynamic();
    return;
  }
  // A later call site with other shapes: the first one decided (the reference ignores it silently).
  for (size_t i : pending_params_) {
    const auto* t = args[i] ? as_tensor(args[i]->type) : nullptr;
    const auto* have = as_tensor(fn_->params[i]->type);
    bool same = t && have && t->dtype == have->dtype && t->shape.size() == have->shape.size();
    for (size_t d = 0; same && d < t->shape.size(); ++d) {
      auto a = const_int_value(t->shape[d]), b = const_int_value(have->shape[d]);
      same = !(a && b && *a != *b);
    }
    if (!same)
      ctx_.sink.report(Diagnostic{Severity::Warning, "W011",
                                  fmt::format("'{}' is called with {} for its bare parameter '{}', but its first call "
                                              "({}) typed it {}; this call uses the first type",
                                              decl_.name, t ? type_str(args[i]->type) : "a non-tensor",
                                              param_names_[i], pending_site_, type_str(fn_->params[i]->type)),
                                  caller.sp(call), "call it with one shape, or annotate the parameter", {}});
  }
}

void FunctionBuilder::build_body() {
  if (body_state_ != 0) return;
  if (!pending_params_.empty() && pending_site_.empty()) return;  // no call site has typed it yet
  body_state_ = 1;
  if (!sig_ok_) {
    body_state_ = 2;
    return;
  }
  TSNode body = field(decl_.def, "body");
  auto stmts = children(body);
  size_t skip = 0;
  std::string doc;
  if (!stmts.empty() && is(stmts[0], "expression_statement") && children(stmts[0]).size() == 1 &&
      string_value(children(stmts[0])[0], *file_, doc)) {
    // The function docstring becomes the function's comments.
    size_t b = 0;
    std::vector<std::string> lines;
    while (b <= doc.size()) {
      auto e = doc.find('\n', b);
      std::string line = doc.substr(b, e == std::string::npos ? std::string::npos : e - b);
      size_t i = 0;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      line = line.substr(i);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
      lines.push_back(line);
      if (e == std::string::npos) break;
      b = e + 1;
    }
    while (!lines.empty() && lines.front().empty()) lines.erase(lines.begin());
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    fn_->leading_comments.insert(fn_->leading_comments.end(), lines.begin(), lines.end());
    skip = 1;
  }
  TSNode header_end = field(decl_.def, "return_type");
  if (is_null(header_end)) header_end = field(decl_.def, "parameters");
  int64_t prev = skip ? int64_t(ts_node_end_point(stmts[0]).row) : int64_t(ts_node_end_point(header_end).row);
  auto out = block(body, prev, skip);
  fn_->body = make_body(std::move(out), sp(body));
  if (!ret_known_) {
    fn_->return_types.clear();
    // `-> pl.Tensor` on a body without a return (a @pl.jit.extern's `...`): the reference binds
    // the result to the first pl.Out parameter.
    if (!ret_bare_types_.empty() && !ret_bare_tuple_)
      for (size_t i = 0; i < fn_->params.size(); ++i)
        if (fn_->param_directions[i] == ParamDirection::Out && fn_->params[i] && as_tensor(fn_->params[i]->type)) {
          fn_->return_types = {fn_->params[i]->type};
          break;
        }
    ret_known_ = true;
  }
  body_state_ = 2;
}

std::optional<FuncDecl> FunctionBuilder::dsl_callee(const std::string& name, TSNode at) const {
  if (decl_.closure)
    if (auto it = decl_.closure->find(name); it != decl_.closure->end()) {
      if (!it->second.is_dsl_function()) return std::nullopt;
      const ConstDslFunction& f = it->second.as_dsl_function();
      FuncDecl d = f.decl;
      if (f.sibling) d.closure = decl_.closure;
      return d;
    }
  return mod().dsl_function(name, at);
}

// Pre-order walk with a tree cursor (ts_node_named_child(n, i) is O(i), which made this quadratic
// in the length of a block). Only the callee node is inspected, no dotted names are built:
// `f(...)` is a bare-name call, `self.f(...)` a method call.
static void collect_calls(TSNode root, const SourceFile& f, bool self_calls, std::vector<std::string>& out) {
  static const TSSymbol call = ts_language_symbol_for_name(tree_sitter_python(), "call", 4, true);
  walk_tree(root, [&](TSNode n) {
    if (ts_node_symbol(n) != call) return Walk::Descend;
    TSNode fn = field(n, "function");
    if (!self_calls && is(fn, "identifier")) {
      out.push_back(text(fn, f));
    } else if (!self_calls && is(fn, "attribute") && is(field(fn, "object"), "identifier")) {
      std::string obj = text(field(fn, "object"), f);  // mod.fn(...) of an imported module
      if (obj != "pl" && obj != "pld" && obj != "self") out.push_back(obj + "." + text(field(fn, "attribute"), f));
    } else if (self_calls && is(fn, "attribute")) {
      TSNode obj = field(fn, "object");
      if (is(obj, "identifier") && text(obj, f) == "self") out.push_back(text(field(fn, "attribute"), f));
    }
    return Walk::Descend;
  });
}

namespace {

// The calls of a function body depend on its text alone, and `pypto check` loads a file's modules
// once for the module check and once per entry (each load on its own thread): each load asks for
// the same bodies. They are walked once per process and text (the cache keeps the body's text, so
// a changed file is walked again).
class CallsCache {
 public:
  std::vector<std::string> get(TSNode body, const SourceFile& f, bool self_calls) {
    const uint32_t from = ts_node_start_byte(body), to = ts_node_end_byte(body);
    const std::string_view text = std::string_view(f.text).substr(from, to - from);
    const Key key{f.path, from, self_calls};
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (auto it = map_.find(key); it != map_.end() && it->second.text == text) return it->second.calls;
    }
    std::vector<std::string> out;
    collect_calls(body, f, self_calls, out);
    std::lock_guard<std::mutex> lk(mu_);
    if (map_.size() > 100'000) map_.clear();  // a long-running process (the unit tests) stays bounded
    map_.insert_or_assign(key, Value{std::string(text), out});
    return out;
  }

 private:
  using Key = std::tuple<std::string, uint32_t, bool>;
  struct Value {
    std::string text;
    std::vector<std::string> calls;
  };
  std::mutex mu_;
  std::map<Key, Value> map_;
};

CallsCache& calls_cache() {
  static CallsCache c;
  return c;
}

}  // namespace

std::vector<std::string> FunctionBuilder::called_names(bool self_calls) const {
  TSNode body = field(decl_.def, "body");
  if (ts_node_is_null(body)) return {};
  return calls_cache().get(body, *file_, self_calls);
}

}  // namespace pypto::parser
