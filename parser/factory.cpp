// Running a factory function at compile time (see factory.h).
#include "parser/factory.h"

#include <fmt/format.h>
#include <memory>

#include "ir/diagnostic.h"

namespace pypto::parser {

namespace {

struct Param {
  std::string name;
  TSNode node{};
  TSNode annotation{};
  bool has_default = false;
};

std::vector<Param> params_of(TSNode def, const ir::SourceFile& f) {
  std::vector<Param> out;
  for (TSNode p : children(field(def, "parameters"))) {
    Param q;
    q.node = p;
    if (is(p, "identifier")) {
      q.name = text(p, f);
    } else if (is(p, "typed_parameter")) {
      auto c = children(p);
      if (c.empty() || !is(c[0], "identifier")) continue;
      q.name = text(c[0], f);
      q.annotation = field(p, "type");
    } else if (is(p, "default_parameter") || is(p, "typed_default_parameter")) {
      q.name = text(field(p, "name"), f);
      q.annotation = field(p, "type");
      q.has_default = true;
    } else {
      continue;
    }
    out.push_back(q);
  }
  return out;
}

// Does `v` fit the annotation `int` / `float` / `bool` / `str` (others are not checked)?
std::string type_mismatch(const ConstValue& v, TSNode ann, const ir::SourceFile& f) {
  if (is_null(ann)) return {};
  const std::string t = text(ann, f);
  if (t == "int" && !v.is_int()) return "int";
  if (t == "float" && !v.is_float() && !v.is_int()) return "float";
  if (t == "bool" && !v.is_bool()) return "bool";
  if (t == "str" && !v.is_str()) return "str";
  return {};
}

}  // namespace

FactoryOutcome run_factory(ModuleInfo& mod, const std::string& name, const std::map<std::string, std::string>& args) {
  const TSNode def = mod.factories().at(name);
  const auto& file = mod.file();
  const auto& f = *file;
  auto params = params_of(def, f);
  ConstEvaluator::Args call;
  std::vector<ir::Diagnostic> errors;
  auto err = [&](TSNode at, const std::string& msg, const std::string& hint) {
    errors.push_back(ir::Diagnostic{ir::Severity::Error, "E108", msg, span_of(at, file), hint, {}});
  };
  std::string names;
  for (const auto& p : params) names += (names.empty() ? "" : ", ") + p.name;
  for (const auto& arg : args) {
    const auto& [k, v] = arg;
    const std::string& key = arg.first;  // clang < 16 cannot capture a structured binding in a lambda
    auto it = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.name == key; });
    if (it == params.end()) {
      err(field(def, "name"), fmt::format("--factory-arg {}={}: factory '{}' has no parameter '{}'", k, v, name, k),
          names.empty() ? "it takes no parameters" : fmt::format("its parameters: {}", names));
      continue;
    }
    ConstValue val = eval_expression_text(v, fmt::format("--factory-arg {}={}", k, v),
                                          [&mod](const std::string& n, TSNode at) { return mod.global(n, at); }, &mod);
    if (auto want = type_mismatch(val, it->annotation, f); !want.empty()) {
      err(it->node, fmt::format("--factory-arg {}={}: parameter '{}' is annotated {}, got {} {}", k, v, k, want,
                                val.type_name(), val.repr()),
          fmt::format("give a {} value", want));
      continue;
    }
    call.kw.emplace_back(k, val);
  }
  for (const auto& p : params)
    if (!p.has_default && !args.count(p.name))
      err(p.node, fmt::format("factory '{}' needs a value for '{}', which has no default", name, p.name),
          fmt::format("pass --factory-arg {}=VALUE", p.name));
  if (!errors.empty()) throw ir::CompileError(std::move(errors));

  FactoryOutcome out;
  std::map<std::string, EntryDecl> programs;
  ConstEvaluator::DefHook on_def = [&](TSNode stmt) {
    if (!is(stmt, "decorated_definition")) return;
    TSNode d = field(stmt, "definition");
    if (!is(d, "class_definition")) return;
    for (TSNode dec : children(stmt)) {
      if (!is(dec, "decorator") || children(dec).empty()) continue;
      bool is_program = false;
      if (classify_decorator(children(dec)[0], f, is_program) && is_program)
        programs[text(field(d, "name"), f)] = mod.program_decl(d, children(dec)[0]);
    }
  };
  ConstFunction fn{name, &mod, def, {}, {}};
  ConstEvaluator ev(file, [&mod](const std::string& n, TSNode at) { return mod.global(n, at); }, &mod);
  ConstEvaluator::Closure closure;
  auto result = ev.run_factory(fn, call, def, on_def, closure);
  if (!result) {
    // Located at the statement that leaves the constant subset (maybe inside a builder the
    // factory calls), with the factory as a note.
    auto site = ConstEvaluator::non_constant_site();
    ir::Diagnostic d{ir::Severity::Error, "E108",
                     fmt::format("factory '{}' cannot be run at compile time: {} leaves the constant subset pypto "
                                 "evaluates",
                                 name, site ? "this statement" : "its body"),
                     site ? *site : span_of(field(def, "name"), file),
                     "a factory may assign constants, branch and loop over them, call builder functions and define "
                     "DSL code; it may not call host libraries or read files",
                     {}};
    if (site) d.notes.emplace_back(span_of(field(def, "name"), file), fmt::format("while running factory '{}'", name));
    throw ir::CompileError({d});
  }
  const std::string marker = result->is_builtin() ? std::get<ConstBuiltin>(result->v).name : "";
  const std::string returned = marker.rfind("dsl:", 0) == 0 ? marker.substr(4) : "";
  for (auto& [k, p] : programs)
    for (auto& m : p.methods) m.closure = closure;
  const FuncDecl* fd = result->is_dsl_function() ? &result->as_dsl_function().decl : nullptr;
  if (auto it = programs.find(returned); it != programs.end()) {
    out.entry = it->second;
  } else if (fd && (fd->kind == DeclKind::Jit || fd->kind == DeclKind::JitHost || fd->kind == DeclKind::Function)) {
    out.entry = EntryDecl{fd->name, false, fd->def, fd->decorator, {}};
    out.entry_function = *fd;
  } else {
    throw ir::CompileError("E108", span_of(field(def, "name"), file),
                           fmt::format("factory '{}' returns {}, not a @pl.program class or @pl.jit function it defines",
                                       name, returned.empty() ? result->repr() : "'" + returned + "'"),
                           "end the factory with `return ProgramClass`");
  }
  out.entry.name = out.entry.name.empty() ? name : out.entry.name;
  return out;
}

}  // namespace pypto::parser
