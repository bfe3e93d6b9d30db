// Function signatures (decorator fields, parameters, return annotation) and bodies.
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

FunctionBuilder::FunctionBuilder(ProgramCtx& ctx, FuncDecl decl, bool is_method)
    : ctx_(ctx), decl_(std::move(decl)), file_(decl_.module->file()), is_method_(is_method) {
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
      if (want_bool()) fail(v, "E301", "strict_ssa=True on a single function is not supported; put it on @pl.program");
    } else if (k == "attrs" && decl_.kind == DeclKind::Function) {
      decorator_attrs(*this, v);
    } else if (k == "external_source" && decl_.kind == DeclKind::Function) {
      decorator_external_source(*this, v);
    } else {
      fail(a, "E302", fmt::format("Unknown keyword argument '{}' in @{}()", k, deco));
    }
  }
}

void FunctionBuilder::build_signature() {
  parse_decorator();
  const auto& f = *file_;
  TSNode params = field(decl_.def, "parameters");
  auto ps = children(params);
  size_t i0 = 0;
  if (is_method_ && !ps.empty() && is(ps[0], "identifier") && txt(ps[0]) == "self") i0 = 1;
  else if (is_method_ && fn_->role != Role::SubWorker)
    fail(is_null(params) ? decl_.def : params, "E100",
         fmt::format("method '{}' must take 'self' first (only role=pl.Role.SubWorker functions have no self)", decl_.name));
  std::vector<CompileError> errs;
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
      TypePtr t = parse_type(field(p, "type"), &dir, name);
      VarPtr v;
      // A Scalar[INDEX] parameter named like a module pl.dynamic symbol binds that symbol.
      if (auto dv = mod().lookup(name, name_node); dv && dv->is_dyn() && as_scalar(t) &&
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
    } catch (const CompileError& e) {
      errs.push_back(e);
    }
  }
  TSNode rt = field(decl_.def, "return_type");
  if (!is_null(rt)) {
    try {
      TypePtr t = parse_type(rt, nullptr, "", true);
      TSNode inner = children(rt).empty() ? rt : children(rt)[0];
      bool multi = is(inner, "generic_type") ||
                   (is(inner, "subscript") && dotted_name(field(inner, "value"), f).ends_with("Tuple"));
      if (multi) fn_->return_types = as_tuple(t)->elems;
      else fn_->return_types = {t};
      ret_annotated_ = ret_known_ = true;
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

void FunctionBuilder::build_body() {
  if (body_state_ != 0) return;
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
    ret_known_ = true;
  }
  body_state_ = 2;
}

// Pre-order walk with a tree cursor (ts_node_named_child(n, i) is O(i), which made this quadratic
// in the length of a block). Only the callee node is inspected, no dotted names are built:
// `f(...)` is a bare-name call, `self.f(...)` a method call.
static void collect_calls(TSNode root, const SourceFile& f, bool self_calls, std::vector<std::string>& out) {
  if (ts_node_is_null(root)) return;
  TSTreeCursor cur = ts_tree_cursor_new(root);
  while (true) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    if (is(n, "call")) {
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
    }
    if (ts_tree_cursor_goto_first_child(&cur)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cur)) {
      if (!ts_tree_cursor_goto_parent(&cur)) {
        ts_tree_cursor_delete(&cur);
        return;
      }
    }
  }
}

std::vector<std::string> FunctionBuilder::called_names(bool self_calls) const {
  std::vector<std::string> out;
  collect_calls(field(decl_.def, "body"), *file_, self_calls, out);
  return out;
}

}  // namespace pypto::parser
