// Front-end driver: file reading and UTF-8 check, syntax errors from the CST, entry selection,
// the set of functions of the program (class methods, jit dependencies), two-phase building
// (all signatures first so forward references work, then bodies), error collection.
#include "parser/frontend.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "parser/builder.h"
#include "parser/factory.h"
#include "parser/module_set.h"

namespace pypto::parser {

using namespace ir;

namespace {

void sort_diags(std::vector<Diagnostic>& d) {
  std::stable_sort(d.begin(), d.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.span.line, a.span.col) < std::tie(b.span.line, b.span.col);
  });
  // One error reached from several places (a module value two calls need) is reported once.
  auto same = [](const Diagnostic& a, const Diagnostic& b) {
    return a.code == b.code && a.message == b.message && a.span.filename() == b.span.filename() &&
           a.span.line == b.span.line && a.span.col == b.span.col;
  };
  d.erase(std::unique(d.begin(), d.end(), same), d.end());
}

}  // namespace

FunctionBuilder* ProgramCtx::find(const FuncDecl& d) const {
  for (const auto& [name, b] : funcs)
    if (same_dsl_function(b->decl(), d)) return b.get();
  return nullptr;
}

std::vector<std::string> list_entries(SourceFilePtr file) {
  ModuleSet set({}, {}, false);
  ModuleInfo& mod = set.load_main(file);
  std::vector<std::string> out;
  for (const auto& e : mod.entries()) out.push_back(e.name);
  return out;
}

ModuleReport check_module(SourceFilePtr file, const FrontendOptions& opts) {
  // Only imports and entries are checked here: modules load as needed (the entries are built by
  // parse_source, which runs them in order).
  ModuleSet set(opts.include_dirs, opts.defines, false);
  ModuleInfo& mod = set.load_main(file);
  std::vector<Diagnostic> errors;
  mod.check_imports(errors);
  if (mod.entries().empty() && mod.top_functions().empty() && !mod.imports_dsl())
    errors.push_back(Diagnostic{Severity::Error, "E010", "no PyPTO code in this file: it defines no DSL function and "
                                "does not import pypto.language", Span{file, 1, 1, 1, 2},
                                "pypto reads files written in the PyPTO DSL (import pypto.language as pl)", {}});
  if (!errors.empty()) {
    sort_diags(errors);
    throw CompileError(std::move(errors));
  }
  ModuleReport r;
  for (const auto& e : mod.entries()) r.entries.push_back(e.name);
  // Calls of one jit entry from another, found in the caller's syntax (an explicit stack: no
  // recursion over arbitrarily deep source).
  for (const auto& caller : mod.entries()) {
    if (caller.is_program) continue;
    std::vector<TSNode> todo{caller.node};
    while (!todo.empty()) {
      TSNode n = todo.back();
      todo.pop_back();
      if (is(n, "call")) {
        TSNode f = field(n, "function");
        if (is(f, "identifier")) {
          std::string callee = text(f, *mod.file());
          for (const auto& e : mod.entries())
            if (!e.is_program && e.name == callee && callee != caller.name) r.called_by.emplace(callee, caller.name);
        }
      }
      for (uint32_t i = ts_node_named_child_count(n); i-- > 0;) todo.push_back(ts_node_named_child(n, i));
    }
  }
  r.dsl_functions = mod.top_functions().size();
  if (opts.files_read) *opts.files_read = set.files_read();
  return r;
}

ProgramPtr parse_file(const std::string& path, const FrontendOptions& opts, DiagnosticSink& sink) {
  return parse_source(read_source(path), opts, sink);
}

ProgramPtr parse_source(SourceFilePtr file, const FrontendOptions& opts, DiagnosticSink& sink) {
  ModuleSet set(opts.include_dirs, opts.defines);
  // The files read so far are reported even when the build fails (a depfile then still names them).
  struct Report {
    ModuleSet& set;
    std::vector<std::string>* out;
    DiagnosticSink& sink;
    ~Report() {
      if (out) *out = set.files_read();
      // Warnings found while loading (W013), also when the build fails: they may be why.
      for (auto& d : set.warnings()) sink.report(std::move(d));
    }
  } report{set, opts.files_read, sink};
  ModuleInfo& mod = set.load_main(file);
  const auto& entries = mod.entries();
  std::string names;
  for (const auto& e : entries) names += (names.empty() ? "" : ", ") + e.name;
  const EntryDecl* entry = nullptr;
  std::optional<FactoryOutcome> factory;
  for (const auto& [k, _] : mod.factories()) names += (names.empty() ? "" : ", ") + k + " (factory)";
  if (!opts.entry.empty()) {
    for (const auto& e : entries)
      if (e.name == opts.entry) entry = &e;
    if (!entry && mod.factories().count(opts.entry)) {
      factory = run_factory(mod, opts.entry, opts.factory_args);
      entry = &factory->entry;
    }
    if (!entry)
      throw CompileError("E010", Span{file, 1, 1, 1, 2},
                         entries.empty() ? fmt::format("no entry named '{}': the file has no @pl.program class or @pl.jit function", opts.entry)
                                         : fmt::format("no entry named '{}'; entries in this file: {}", opts.entry, names),
                         "pass --entry NAME with one of the listed names");
  } else if (entries.size() == 1) {
    entry = &entries[0];
  } else if (entries.empty()) {
    throw CompileError("E010", Span{file, 1, 1, 1, 2}, "no @pl.program class or @pl.jit function found",
                       "decorate a class with @pl.program or a function with @pl.jit");
  } else {
    throw CompileError("E010", span_of(entries[1].node, file),
                       fmt::format("the file has {} entries ({}); choose one", entries.size(), names),
                       "pass --entry NAME");
  }

  if (!opts.factory_args.empty() && !factory)
    throw CompileError("E108", span_of(entry->node, file),
                       fmt::format("--factory-arg given, but entry '{}' is not a factory", entry->name),
                       mod.factories().empty() ? std::string("this file has no factory functions")
                                               : fmt::format("select a factory with --entry NAME"));
  ProgramCtx ctx(mod, sink);
  ctx.program_name = entry->name;
  std::optional<SpecTable> specs;
  bool specs_read = false;
  if (opts.specs != "none")
    ctx.specs = [&]() -> const SpecTable* {
      if (!specs_read) {
        specs_read = true;
        for (const std::string& f : opts.specs.empty() ? std::vector<std::string>{"build_tensor_specs", "build_specs"}
                                                      : std::vector<std::string>{opts.specs})
          if (!specs && (specs = read_specs(mod, f))) break;
        if (!specs && !opts.specs.empty())
          throw CompileError("E109", Span{file, 1, 1, 1, 2}, fmt::format("--specs {}: the file defines no function '{}'",
                                                                         opts.specs, opts.specs),
                             "name a module-level function that returns TensorSpec / ScalarSpec records");
        if (opts.specs.empty()) {
          // Then the file's own host call of the entry (`entry.lower(*inputs, out)`) for what the
          // spec function does not name.
          std::string why;
          if (auto host = read_host_call(mod, *entry, &why)) {
            if (!specs) specs = std::move(host);
            else {
              specs->tensors.merge(host->tensors);
              specs->scalars.merge(host->scalars);
            }
          } else if (!why.empty()) {
            if (!specs) specs = SpecTable{};
            specs->note = why;
          }
        }
      }
      return specs ? &*specs : nullptr;
    };
  ctx.spec.args = opts.args;
  ctx.spec.scalars = opts.scalars;
  if (!entry->is_program) ctx.entry_def = entry->node.id;
  else if (!opts.args.empty() || !opts.scalars.empty()) {
    // A program's entry is its orchestration function (or its only function).
    for (const auto& m : entry->methods)
      if (!ctx.entry_def && text(m.decorator, *file).find("Orchestration") != std::string::npos) ctx.entry_def = m.def.id;
    if (!ctx.entry_def && !entry->methods.empty()) ctx.entry_def = entry->methods.front().def.id;
  }
  std::vector<std::string> order;  // insertion order for dependency discovery
  auto add = [&](const FuncDecl& d, bool is_method) {
    if (auto it = ctx.funcs.find(d.name); it != ctx.funcs.end()) {
      const FuncDecl& had = it->second->decl();
      const bool rebuilt = had.def.id == d.def.id;  // one def, two builder calls with other arguments
      Diagnostic e{Severity::Error, "E201",
                   rebuilt ? fmt::format("DSL function '{}' is built twice with different closures", d.name)
                           : fmt::format("function '{}' is defined twice", d.name),
                   span_of(field(d.def, "name"), d.module->file()),
                   rebuilt ? "a program holds one function per name: call its builder with the same arguments "
                             "everywhere, or give the variants different names"
                           : "",
                   {}};
      if (!rebuilt && had.module && had.def.id != d.def.id)
        e.notes.emplace_back(span_of(field(had.def, "name"), had.module->file()), "the other definition");
      ctx.errors.push_back(std::move(e));
      return;
    }
    ctx.funcs[d.name] = std::make_unique<FunctionBuilder>(ctx, d, is_method);
    order.push_back(d.name);
  };
  if (entry->is_program) {
    if (entry->methods.empty())
      throw CompileError("E010", span_of(field(entry->node, "name"), file),
                         fmt::format("@pl.program class '{}' has no @pl.function methods", entry->name),
                         "a program needs at least one method decorated with @pl.function");
    if (is(entry->decorator, "call")) {
      for (TSNode a : children(field(entry->decorator, "arguments"))) {
        std::string k = is(a, "keyword_argument") ? text(field(a, "name"), *file) : "";
        if (k == "strict_ssa") ctx.strict_ssa = is(unparen(field(a, "value")), "true");
        else
          ctx.errors.push_back(Diagnostic{Severity::Error, "E302",
                                          fmt::format("Unknown argument '{}' in @pl.program()", text(a, *file)),
                                          span_of(a, file), "", {}});
      }
    }
    for (const auto& m : entry->methods) add(m, true);
  } else {
    const FuncDecl* d = factory && factory->entry_function ? &*factory->entry_function
                                                           : static_cast<const ModuleInfo&>(mod).top_function(entry->name);
    ctx.is_jit = d->kind != DeclKind::Function;  // a standalone @pl.function calls standalone @pl.functions
    add(*d, false);
  }
  // Dependencies: bare-name calls to module-level DSL functions (jit: .incore/.inline/.opaque/
  // .extern, and from a @pl.jit.host the chip-level @pl.jit orchestrators it dispatches; program:
  // standalone @pl.function), transitively.
  auto is_dependency = [&](const FuncDecl& d, const FuncDecl& caller) {
    if (d.module != &mod) return true;  // imported DSL functions are always callees
    if (!ctx.is_jit) return d.kind == DeclKind::Function;
    return d.kind == DeclKind::JitIncore || d.kind == DeclKind::JitInline || d.kind == DeclKind::JitOpaque ||
           d.kind == DeclKind::JitExtern || (d.kind == DeclKind::Jit && caller.kind == DeclKind::JitHost);
  };
  // Scanning the bodies for calls walks every node, so skip it when nothing could be added.
  for (size_t i = 0; i < order.size(); ++i) {
    auto* b = ctx.find(order[i]);
    ModuleInfo& in = b->mod();
    for (const auto& callee : b->called_names(false)) {
      const FuncDecl* d = nullptr;
      std::optional<FuncDecl> found;
      // A DSL function value (closure, module global, import) that cannot be evaluated is not an
      // error here: the call reports it.
      auto value = [&](auto&& get) {
        try {
          if ((found = get())) d = &*found;
        } catch (const CompileError&) {
        }
      };
      try {
        if (auto dot = callee.find('.'); dot != std::string::npos) {
          if (ModuleInfo* m = in.module_binding(callee.substr(0, dot), TSNode{})) {
            d = m->top_function(callee.substr(dot + 1));
            if (!d) value([&] { return m->dsl_function(callee.substr(dot + 1), TSNode{}); });
          }
        } else {
          // The closure's names shadow the module's.
          if (!b->decl().closure || !b->decl().closure->count(callee)) d = in.top_function(callee);
          if (!d) value([&] { return b->dsl_callee(callee, TSNode{}); });
        }
      } catch (const CompileError& e) {
        ctx.record(e);
        continue;
      }
      if (!d || ctx.find(*d)) continue;
      if (is_dependency(*d, b->decl())) add(*d, false);
    }
  }
  for (auto& [name, b] : ctx.funcs) {
    try {
      b->build_signature();
    } catch (const CompileError& e) {
      ctx.record(e);
    }
  }
  // Bodies; a dependency with bare parameters waits for the call that types it, so repeat while
  // building one types another.
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& [name, b] : ctx.funcs) {
      if (b->body_state_ != 0 || b->has_untyped_params()) continue;
      progress = true;
      try {
        b->build_body();
      } catch (const CompileError& e) {
        ctx.record(e);
      } catch (const PoisonedName&) {
      }
    }
  }
  for (auto& [name, b] : ctx.funcs)
    if (ctx.errors.empty() && b->has_untyped_params() && b->sig_ok_)  // else a failed caller is why
      for (size_t i : b->pending_params_)
        ctx.errors.push_back(Diagnostic{Severity::Error, "E103",
                                        fmt::format("parameter '{}' of '{}' has a bare 'pl.Tensor' annotation and no "
                                                    "call gives it a type",
                                                    b->param_names_[i], name),
                                        b->sp(b->param_nodes_[i]),
                                        "annotate the shape (pl.Tensor[[d0, d1], pl.FP32]), or call it from the entry", {}});
  if (!ctx.errors.empty()) {
    sort_diags(ctx.errors);
    throw CompileError(std::move(ctx.errors));
  }
  if (opts.spec_scalars && ctx.specs) {
    try {
      if (const SpecTable* t = ctx.specs())
        for (const auto& [name, v] : t->scalars)
          if (const_numeric(v)) (*opts.spec_scalars)[name] = v.is_bool() ? (std::get<bool>(v.v) ? "true" : "false") : v.repr();
    } catch (const CompileError&) {
      // A spec function outside the constant subset gives no defaults; nothing needed it.
    }
  }
  std::vector<FunctionPtr> fns;
  for (auto& [name, b] : ctx.funcs) fns.push_back(b->result());
  for (const auto& k : set.unused_module_defines())
    sink.report(Diagnostic{Severity::Warning, "W010",
                           fmt::format("-D {}: the program imports no module '{}'", k, k.substr(0, k.rfind('.'))),
                           Span{}, "", {}});
  return make_program(entry->name, std::move(fns), set.dynamic_order(), span_of(entry->node, file));
}

}  // namespace pypto::parser
