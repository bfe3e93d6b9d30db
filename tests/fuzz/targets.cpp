// The fuzz targets' bodies (targets.h).
#include "tests/fuzz/targets.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <new>

#include "emit/project_writer.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/diagnostics_render.h"
#include "parser/frontend.h"
#include "passes/pipeline.h"
#include "tests/fuzz/mutator.h"

namespace fs = std::filesystem;

namespace pypto::fuzz {

namespace {

constexpr const char* kPath = "/nonexistent-pypto-fuzz/input.py";

// "" when every diagnostic points into `file` (rendering each on the way), else the first that
// does not.
std::string check_diagnostics(const std::vector<ir::Diagnostic>& diags, const ir::SourceFile& file) {
  for (const auto& d : diags) {
    (void)parser::render_diagnostic(d, true);
    if (!d.span.valid()) return fmt::format("diagnostic without a location: [{}] {}", d.code, d.message);
    if (d.span.file->path != file.path)
      return fmt::format("diagnostic in another file '{}': [{}] {}", d.span.file->path, d.code, d.message);
    if (d.span.line > file.line_starts.size() + 1)
      return fmt::format("diagnostic past the end of the file (line {}): [{}] {}", d.span.line, d.code, d.message);
    if (d.code.empty()) return fmt::format("diagnostic without a code: {}", d.message);
  }
  (void)parser::render_diagnostics_json(diags);
  return "";
}

std::string rejected(const ir::CompileError& e, const ir::SourceFile& file) {
  if (e.diagnostics().empty()) return fmt::format("CompileError without a diagnostic: {}", e.what());
  return check_diagnostics(e.diagnostics(), file);
}

// Runs `body`; maps what it throws to a problem description ("" = fine).
template <class F>
std::string barrier(const ir::SourceFile& file, F&& body) {
  try {
    return body();
  } catch (const ir::CompileError& e) {
    return rejected(e, file);
  } catch (const ir::InternalError& e) {
    return fmt::format("internal error[{}]: {}{}", e.stage(), e.what(),
                       e.span().valid() ? " at " + e.span().to_string() : "");
  } catch (const std::bad_alloc&) {
    return "std::bad_alloc";
  } catch (const std::exception& e) {
    return fmt::format("exception: {}", e.what());
  } catch (...) {
    return "unknown exception";
  }
}

// Top-level `def NAME(` functions that are not entries already: factories are entries only when
// named (--entry build_x), so the targets try the first `most` such names too (a plain function
// is a quick "not a factory" diagnostic).
void add_factory_candidates(std::string_view text, std::vector<std::string>& entries, size_t most) {
  size_t added = 0;
  for (size_t pos = 0; pos < text.size() && added < most;) {
    const size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.substr(0, 4) != "def ") continue;
    size_t end = 4;
    while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
    std::string name(line.substr(4, end - 4));
    if (name.empty() || std::find(entries.begin(), entries.end(), name) != entries.end()) continue;
    entries.push_back(std::move(name));
    ++added;
  }
}

// The printed IR is DSL text the front end reads back, printing the same (ir/TEXT_FORMAT.md).
std::string reread_problem(const ir::Program& prog) {
  const std::string printed = ir::print_program(prog);
  auto file = std::make_shared<const ir::SourceFile>("/nonexistent-pypto-fuzz/printed.py", printed);
  try {
    ir::DiagnosticSink sink;
    auto again = parser::parse_source(file, {}, sink);
    if (ir::print_program(*again) != printed) return "the printed IR, read back, prints differently";
  } catch (const ir::CompileError& e) {
    const auto& d = e.diagnostics();
    return fmt::format("the printed IR does not read back: {}", d.empty() ? e.what() : d[0].span.to_string() + ": " + d[0].message);
  }
  return "";
}

}  // namespace

std::string frontend_problem(std::string_view bytes) {
  auto file = std::make_shared<const ir::SourceFile>(kPath, std::string(bytes));
  parser::FrontendOptions opts;
  std::vector<std::string> entries;
  bool module_ok = false;  // as in `pypto check`, the entries are built only after the module check passed
  std::string p = barrier(*file, [&] {
    auto report = parser::check_module(file, opts);
    entries = report.entries;
    module_ok = true;
    return std::string();
  });
  if (!p.empty() || !module_ok) return p;
  if (entries.size() > 2) entries.resize(2);
  add_factory_candidates(bytes, entries, 1);
  for (size_t i = 0; i < entries.size(); ++i) {
    p = barrier(*file, [&] {
      ir::DiagnosticSink sink;
      parser::FrontendOptions o;
      o.entry = entries[i];
      auto prog = parser::parse_source(file, o, sink);
      ir::DiagnosticSink vsink;
      if (!ir::verify(*prog, ir::structural_properties(), vsink)) throw ir::CompileError(vsink.take());
      return check_diagnostics(sink.diagnostics(), *file);
    });
    if (!p.empty()) return fmt::format("entry '{}': {}", entries[i], p);
  }
  return "";
}

std::string pipeline_problem(std::string_view text, const emit::EmitOptions& emit) {
  auto file = std::make_shared<const ir::SourceFile>(kPath, std::string(text));
  std::vector<std::string> entries;
  std::string p = barrier(*file, [&] {
    entries = parser::list_entries(file);
    return std::string();
  });
  if (!p.empty()) return p;
  if (entries.empty()) entries.push_back("");  // standalone functions, or the "no entry" diagnostic
  if (entries.size() > 1) entries.resize(1);
  add_factory_candidates(text, entries, 1);
  const bool soc950 = fnv1a(text) & 1;
  for (size_t i = 0; i < entries.size(); ++i) {
    p = barrier(*file, [&] {
      ir::DiagnosticSink sink;
      parser::FrontendOptions o;
      o.entry = entries[i];
      auto prog = parser::parse_source(file, o, sink);
      ir::DiagnosticSink vsink;
      if (!ir::verify(*prog, ir::structural_properties(), vsink)) throw ir::CompileError(vsink.take());
      if (std::string why = reread_problem(*prog); !why.empty()) return why;
      passes::PassContext ctx;
      ctx.soc = soc950 ? ir::Soc::Ascend950 : ir::Soc::Ascend910B;
      prog = passes::run_pipeline(prog, ctx);
      (void)ir::print_program(*prog);
      emit::EmitOptions eo = emit;
      eo.soc = ctx.soc;
      (void)emit::render_project(*prog, eo, "/nonexistent-pypto-fuzz/out");
      auto warnings = sink.take();
      for (auto& d : ctx.diagnostics.take()) warnings.push_back(std::move(d));
      return check_diagnostics(warnings, *file);
    });
    if (!p.empty()) return entries[i].empty() ? p : fmt::format("entry '{}': {}", entries[i], p);
  }
  return "";
}

emit::EmitOptions stub_emit_options(const std::string& scratch_dir) {
  const fs::path pre = fs::path(scratch_dir) / "prebuilt";
  fs::create_directories(pre / "lib");
  for (const char* lib : {"libpypto_runner.a", "libpypto_runtime.a"})
    if (!fs::exists(pre / "lib" / lib)) std::ofstream(pre / "lib" / lib) << "";
  emit::EmitOptions eo;
  eo.prebuilt_dir = fs::absolute(pre).string();
  return eo;
}

}  // namespace pypto::fuzz
