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

namespace pypto::parser {

using namespace ir;

namespace {

// Byte offset of the first invalid UTF-8 sequence, or npos.
size_t invalid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return i;
    if (n == 2 && c < 0xC2) return i;
    i += n;
  }
  return std::string::npos;
}

void syntax_errors(TSNode n, const SourceFilePtr& f, std::vector<Diagnostic>& out) {
  if (out.size() >= 20) return;
  if (ts_node_is_missing(n)) {
    out.push_back(Diagnostic{Severity::Error, "E002", fmt::format("invalid syntax: missing '{}'", ts_node_type(n)),
                             span_of(n, f), "", {}});
    return;
  }
  if (is(n, "ERROR")) {
    Span s = span_of(n, f);
    std::string t = text(n, *f);
    auto nl = t.find('\n');
    if (nl != std::string::npos) {
      t = t.substr(0, nl);
    }
    if (t.size() > 40) t = t.substr(0, 40) + "...";
    // Point at the first line only.
    if (s.end_line != s.line) {
      s.end_line = s.line;
      s.end_col = s.col + uint32_t(t.size() ? t.size() : 1);
    }
    out.push_back(Diagnostic{Severity::Error, "E002", fmt::format("invalid syntax near '{}'", t), s,
                             "this is not valid Python; pypto reads the file with a Python 3 grammar", {}});
    return;
  }
  if (!ts_node_has_error(n)) return;
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c; ++i) syntax_errors(ts_node_child(n, i), f, out);
}

void sort_diags(std::vector<Diagnostic>& d) {
  std::stable_sort(d.begin(), d.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.span.line, a.span.col) < std::tie(b.span.line, b.span.col);
  });
}

}  // namespace

std::vector<std::string> list_entries(SourceFilePtr file) {
  CstTree tree(file);
  ModuleInfo mod(tree, {});
  std::vector<std::string> out;
  for (const auto& e : mod.entries()) out.push_back(e.name);
  return out;
}

ProgramPtr parse_file(const std::string& path, const FrontendOptions& opts, DiagnosticSink& sink) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError("E000", Span{}, fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto file = std::make_shared<const SourceFile>(path, text);
  if (size_t bad = invalid_utf8(text); bad != std::string::npos) {
    auto line_it = std::upper_bound(file->line_starts.begin(), file->line_starts.end(), uint32_t(bad));
    uint32_t line = uint32_t(line_it - file->line_starts.begin());
    Span s{file, line, uint32_t(bad - file->line_starts[line - 1]) + 1, line, uint32_t(bad - file->line_starts[line - 1]) + 2};
    throw CompileError("E000", s, fmt::format("'{}' is not valid UTF-8 (byte offset {})", path, bad),
                       "save the file as UTF-8");
  }
  return parse_source(file, opts, sink);
}

ProgramPtr parse_source(SourceFilePtr file, const FrontendOptions& opts, DiagnosticSink& sink) {
  CstTree tree(file);
  {
    std::vector<Diagnostic> errs;
    syntax_errors(tree.root(), file, errs);
    if (!errs.empty()) throw CompileError(std::move(errs));
  }
  ModuleInfo mod(tree, opts.defines);
  const auto& entries = mod.entries();
  std::string names;
  for (const auto& e : entries) names += (names.empty() ? "" : ", ") + e.name;
  const EntryDecl* entry = nullptr;
  if (!opts.entry.empty()) {
    for (const auto& e : entries)
      if (e.name == opts.entry) entry = &e;
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

  ProgramCtx ctx(mod, sink);
  ctx.program_name = entry->name;
  std::vector<std::string> order;  // insertion order for dependency discovery
  auto add = [&](const FuncDecl& d, bool is_method) {
    if (ctx.funcs.count(d.name)) {
      ctx.errors.push_back(Diagnostic{Severity::Error, "E201", fmt::format("function '{}' is defined twice", d.name),
                                      span_of(field(d.def, "name"), file), "", {}});
      return;
    }
    ctx.funcs[d.name] = std::make_unique<FunctionBuilder>(ctx, d, is_method);
    order.push_back(d.name);
  };
  if (entry->is_program) {
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
    ctx.is_jit = true;
    const FuncDecl* d = mod.top_function(entry->name);
    add(*d, false);
  }
  // Dependencies: bare-name calls to module-level DSL functions (jit: .incore/.inline/.opaque/
  // .extern; program: standalone @pl.function), transitively.
  auto is_dependency = [&](const FuncDecl& d) {
    return ctx.is_jit ? (d.kind == DeclKind::JitIncore || d.kind == DeclKind::JitInline ||
                         d.kind == DeclKind::JitOpaque || d.kind == DeclKind::JitExtern)
                      : d.kind == DeclKind::Function;
  };
  // Scanning the bodies for calls walks every node, so skip it when nothing could be added.
  bool any_candidate = false;
  for (const auto& [name, d] : mod.top_functions()) any_candidate = any_candidate || is_dependency(d);
  for (size_t i = 0; any_candidate && i < order.size(); ++i) {
    auto* b = ctx.find(order[i]);
    for (const auto& callee : b->called_names(false)) {
      if (ctx.funcs.count(callee)) continue;
      const FuncDecl* d = mod.top_function(callee);
      if (d && is_dependency(*d)) add(*d, false);
    }
  }
  for (auto& [name, b] : ctx.funcs) {
    try {
      b->build_signature();
    } catch (const CompileError& e) {
      ctx.record(e);
    }
  }
  for (auto& [name, b] : ctx.funcs) {
    try {
      b->build_body();
    } catch (const CompileError& e) {
      ctx.record(e);
    } catch (const PoisonedName&) {
    }
  }
  if (!ctx.errors.empty()) {
    sort_diags(ctx.errors);
    throw CompileError(std::move(ctx.errors));
  }
  std::vector<FunctionPtr> fns;
  for (auto& [name, b] : ctx.funcs) fns.push_back(b->result());
  return make_program(entry->name, std::move(fns), mod.dynamic_dims(), span_of(entry->node, file));
}

}  // namespace pypto::parser
