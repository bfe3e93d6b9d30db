// Function attributes → ir::FuncAttr (language.md §2.1, §4): the body prologue
// `pl.func_attr({"key": value, ...})` (only before the other statements of the body; string keys,
// no duplicates, not the decorator-only auto_scope / external_source), the deprecated decorator
// `attrs={...}`, `external_source="kernel.cpp"`, and the options of @pl.jit.extern (core_type,
// source / aic_source / aiv_source, include_dirs, dual_aiv_dispatch). In the body form a bare name
// refers to a parameter (`{"stationary": w}`); in the decorator form it is a module constant.
// `"split": pl.SplitMode.NONE` is dropped: it is the "no split" default.
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

namespace {

void add_attr(FunctionBuilder& b, FuncAttr a, TSNode at, const std::string& owner) {
  for (const auto& x : b.fn_->attrs)
    if (x.key == a.key)
      b.fail(at, "E302", fmt::format("Duplicate function attribute '{}' in {}", a.key, owner),
             "each attribute may be declared only once (decorator attrs= and pl.func_attr together)");
  b.fn_->attrs.push_back(std::move(a));
}

// One attribute value: an enum / dtype literal, a constant, a list of those, or (body form) a
// parameter reference.
FuncAttr attr_of(FunctionBuilder& b, const std::string& key, TSNode v, bool body_form) {
  FuncAttr a;
  a.key = key;
  TSNode u = unparen(v);
  if (body_form && is(u, "identifier")) {
    auto it = b.names_.find(b.txt(u));
    if (it == b.names_.end())
      b.fail(u, "E200", fmt::format("pl.func_attr() value '{}' is not a parameter of '{}'", b.txt(u), b.fn_->name),
             "a bare name in pl.func_attr({...}) refers to a parameter; write a literal for a constant");
    a.expr = it->second;
    return a;
  }
  if (is(u, "list") || is(u, "tuple")) {
    a.is_list = true;
    for (TSNode e : children(u)) {
      a.list.push_back(b.attr_value(e, nullptr));
      if (!std::holds_alternative<std::string>(a.list.back()))
        b.fail(e, "E302", fmt::format("Unsupported list element type for key: {} (list attributes hold strings)", key),
               "function attributes hold scalars, enums, strings, lists of strings or parameters");
    }
    return a;
  }
  if (is(u, "call") && dotted_name(field(u, "function"), *b.file_).rfind("pl.", 0) == 0) {
    a.expr = b.expr(u);  // an op the runtime evaluates, e.g. pl.system.available_cluster_count()
    return a;
  }
  if (!body_form) {  // the decorator form evaluates its dict: lists of constants come from module names
    if (auto c = is(u, "identifier") ? b.try_const(u) : std::nullopt; c && c->is_list()) {
      a.is_list = true;
      for (const auto& e : c->as_list()) {
        if (!e.is_str())
          b.fail(u, "E302", fmt::format("Unsupported list element type for key: {} (list attributes hold strings)", key));
        a.list.push_back(std::get<std::string>(e.v));
      }
      return a;
    }
  }
  a.value = b.attr_value(u, nullptr);
  return a;
}

// The entries of an attribute dict literal, in order.
void attr_dict(FunctionBuilder& b, TSNode dict, bool body_form, const std::string& owner) {
  TSNode d = unparen(dict);
  if (!is(d, "dictionary"))
    b.fail(dict, "E302", fmt::format("{} argument must be a dict literal", owner),
           "write pl.func_attr({\"split\": pl.SplitMode.UP_DOWN})");
  for (TSNode pair : children(d)) {
    if (is(pair, "dictionary_splat"))
      b.fail(pair, "E302", fmt::format("Unsupported `**` unpacking in {}", owner), "use string literal keys only");
    std::string key;
    TSNode kn = field(pair, "key");
    if (!string_value(unparen(kn), *b.file_, key))
      b.fail(kn, "E302", fmt::format("{} key must be a string literal, got {}", owner, b.txt(kn)),
             "write string keys, e.g. {\"split\": ...}");
    if (body_form && (key == "auto_scope" || key == "external_source"))
      b.fail(kn, "E302", fmt::format("'{}' cannot be set with pl.func_attr()", key),
             fmt::format("pass it as the {}= keyword of @pl.function(...)", key));
    TSNode vn = field(pair, "value");
    if (key == "split") {
      std::string dv = dotted_name(unparen(vn), *b.file_);
      auto m = dv.rfind("pl.SplitMode.", 0) == 0 ? split_mode_from_name(dv.substr(13)) : std::nullopt;
      if (!m) b.fail(vn, "E302", "the 'split' attribute must be pl.SplitMode.NONE, UP_DOWN or LEFT_RIGHT");
      for (const auto& x : b.fn_->attrs)
        if (x.key == key) b.fail(pair, "E302", fmt::format("Duplicate function attribute '{}' in {}", key, owner));
      if (*m == SplitMode::NONE) continue;
      FuncAttr a;
      a.key = key;
      a.value = EnumLit{"SplitMode", std::string(to_string(*m))};
      add_attr(b, std::move(a), pair, owner);
      continue;
    }
    add_attr(b, attr_of(b, key, vn, body_form), pair, owner);
  }
}

// A string-valued option; a path the constant evaluator cannot compute (it reads the environment)
// is kept as its source text — externs are rejected before emission, nothing reads the file.
std::string source_text(FunctionBuilder& b, TSNode v) {
  std::string s;
  if (string_value(unparen(v), *b.file_, s)) return s;
  std::optional<ConstValue> c;
  try {
    c = b.try_const(v);
  } catch (const CompileError&) {
  }
  if (c && c->is_str()) return std::get<std::string>(c->v);
  return b.txt(v);
}

}  // namespace

void decorator_attrs(FunctionBuilder& b, TSNode dict) { attr_dict(b, dict, false, "@pl.function(attrs={...})"); }

void decorator_external_source(FunctionBuilder& b, TSNode v) {
  FuncAttr a;
  a.key = "external_source";
  a.value = source_text(b, v);
  add_attr(b, std::move(a), v, "@pl.function(external_source=...)");
}

// @pl.jit.extern(core_type=..., source= | aic_source= + aiv_source=, include_dirs=, dual_aiv_dispatch=).
void jit_extern_options(FunctionBuilder& b, const std::vector<std::pair<std::string, TSNode>>& kw, TSNode deco) {
  std::string core = "aiv";
  TSNode source{}, aic{}, aiv{}, dirs{}, dual{};
  for (const auto& [k, v] : kw) {
    if (k == "core_type") {
      if (!string_value(unparen(v), *b.file_, core) || (core != "aic" && core != "aiv" && core != "mixed"))
        b.fail(v, "E302", fmt::format("@pl.jit.extern core_type must be 'aic', 'aiv' or 'mixed', got {}", b.txt(v)));
    } else if (k == "source") {
      source = v;
    } else if (k == "aic_source") {
      aic = v;
    } else if (k == "aiv_source") {
      aiv = v;
    } else if (k == "include_dirs") {
      dirs = v;
    } else if (k == "dual_aiv_dispatch") {
      dual = v;
    } else {
      b.fail(v, "E302", fmt::format("Unknown keyword argument '{}' in @pl.jit.extern()", k),
             "keywords: core_type, source, aic_source, aiv_source, include_dirs, dual_aiv_dispatch");
    }
  }
  const bool dual_on = !is_null(dual) && b.bool_literal(dual, "@pl.jit.extern dual_aiv_dispatch");
  if (dual_on && core != "mixed")
    b.fail(dual, "E302", "@pl.jit.extern dual_aiv_dispatch=True requires core_type='mixed'");
  b.fn_->type = core == "aic" ? FunctionType::AIC : core == "aiv" ? FunctionType::AIV : FunctionType::Group;
  auto str_attr = [&](const char* key, TSNode v) {
    FuncAttr a;
    a.key = key;
    a.value = source_text(b, v);
    add_attr(b, std::move(a), v, "@pl.jit.extern()");
  };
  if (core == "mixed") {
    if (is_null(aic) || is_null(aiv))
      b.fail(deco, "E302", "@pl.jit.extern(core_type='mixed') requires both aic_source= and aiv_source=");
    str_attr("aic_source", aic);
    str_attr("aiv_source", aiv);
  } else {
    TSNode single = !is_null(source) ? source : !is_null(aic) ? aic : aiv;
    if (is_null(single)) b.fail(deco, "E302", fmt::format("@pl.jit.extern(core_type='{}') requires source=", core));
    str_attr("external_source", single);
  }
  if (!is_null(dirs)) {
    FuncAttr a;
    a.key = "include_dirs";
    a.is_list = true;
    TSNode u = unparen(dirs);
    if (is(u, "list") || is(u, "tuple")) {
      for (TSNode e : children(u)) a.list.push_back(source_text(b, e));
    } else {
      a.list.push_back(source_text(b, dirs));
    }
    add_attr(b, std::move(a), dirs, "@pl.jit.extern()");
  }
  if (dual_on) {
    FuncAttr a;
    a.key = "dual_aiv_dispatch";
    a.value = true;
    add_attr(b, std::move(a), dual, "@pl.jit.extern()");
  }
}

std::vector<StmtPtr> FunctionBuilder::func_attr_stmt(TSNode stmt, TSNode call) {
  if (body_started_)
    fail(call, "E302", "pl.func_attr() must come before the other statements of the body",
         "move pl.func_attr({...}) to the top of the function (after the docstring)");
  auto a = split_args(*this, call);
  if (a.pos.size() != 1 || !a.kw.empty())
    fail(call, "E302", "pl.func_attr() takes exactly one positional dict argument (no keywords)",
         "write pl.func_attr({\"split\": pl.SplitMode.UP_DOWN})");
  attr_dict(*this, a.pos[0], true, "pl.func_attr({...})");
  (void)stmt;
  return {};
}

}  // namespace pypto::parser
