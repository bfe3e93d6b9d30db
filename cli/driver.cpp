// Shared CLI plumbing: loading, diagnostics rendering, the exception barrier.
#include "cli/driver.h"

#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <fmt/format.h>
#include <new>
#include <tuple>

#include "ir/soc.h"
#include "ir/verifier.h"
#include "parser/diagnostics_render.h"
#include "parser/frontend.h"
#include "passes/pipeline.h"

namespace pypto::cli {

std::pair<std::string, std::string> split_define(const std::string& d) {
  auto eq = d.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError(fmt::format("-D expects NAME=VALUE, got '{}'", d));
  return {d.substr(0, eq), d.substr(eq + 1)};
}

parser::FrontendOptions frontend_options(const CommonOptions& opts) {
  parser::FrontendOptions fo;
  fo.entry = opts.entry;
  for (const auto& d : opts.defines) fo.defines.push_back(split_define(d));
  fo.include_dirs = opts.include_dirs;
  fo.specs = opts.specs;
  for (const auto& [flag, list, out] : {std::tuple{"--arg", &opts.args, &fo.args}, std::tuple{"--scalar", &opts.scalars, &fo.scalars},
                                  std::tuple{"--factory-arg", &opts.factory_args, &fo.factory_args}})
    for (const auto& a : *list) {
      auto eq = a.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError(fmt::format("{} expects NAME={}, got '{}'", flag, std::string(flag) == "--arg" ? "DTYPE[d0,d1,...]" : "VALUE", a));
      if (!out->emplace(a.substr(0, eq), a.substr(eq + 1)).second)
        throw UsageError(fmt::format("{} {} is given twice", flag, a.substr(0, eq)));
    }
  return fo;
}

ir::ProgramPtr load_program(const std::string& path, const CommonOptions& opts, ir::DiagnosticSink& sink,
                            std::vector<std::string>* sources_out, std::map<std::string, std::string>* spec_scalars) {
  parser::FrontendOptions fo = frontend_options(opts);
  fo.spec_scalars = spec_scalars;
  std::vector<std::string> sources;
  fo.files_read = &sources;
  ir::ProgramPtr prog = parser::parse_file(path, fo, sink);
  ir::DiagnosticSink vsink;
  if (!ir::verify(*prog, ir::structural_properties(), vsink)) throw ir::CompileError(vsink.take());
  for (auto& d : vsink.take()) sink.report(std::move(d));
  if (!opts.depfile.empty()) write_depfile(opts.depfile, opts.depfile_target, sources);
  if (sources_out) *sources_out = std::move(sources);
  return prog;
}

static std::string depfile_escape(const std::string& p) {
  std::string out;
  for (char c : p) {
    if (c == ' ' || c == '#' || c == '\\') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

void write_output_file(const std::string& path, const std::string& text, const std::string& what,
                       const std::vector<std::string>& protect) {
  std::error_code ec;
  for (const auto& p : protect)
    if (std::filesystem::equivalent(path, p, ec))
      throw UsageError(fmt::format("refusing to write the {} over the input file '{}'", what, p));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UsageError(fmt::format("cannot write {} '{}': {}", what, path, std::strerror(errno)));
    out << text;
    if (!out.flush()) throw UsageError(fmt::format("cannot write {} '{}'", what, path));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw UsageError(fmt::format("cannot write {} '{}': {}", what, path, std::strerror(errno)));
  }
}

void write_depfile(const std::string& path, const std::string& target, const std::vector<std::string>& sources) {
  std::string text = depfile_escape(target) + ":";
  for (const auto& s : sources) text += " \\\n  " + depfile_escape(s);
  text += "\n";
  write_output_file(path, text, "depfile", sources);
}

static bool use_color(const CommonOptions& opts) {
  if (opts.color == "always") return true;
  if (opts.color == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(fileno(stderr)) && !(no_color && *no_color);
}

static void render(const CommonOptions& opts, std::vector<ir::Diagnostic> diags, std::set<std::string>* shown) {
  if (shown)
    std::erase_if(diags, [&](const ir::Diagnostic& d) {
      return !shown->insert(d.code + d.span.to_string() + d.message).second;
    });
  if (diags.empty()) return;
  if (opts.diagnostics_format == "json") {
    std::fputs(parser::render_diagnostics_json(diags).c_str(), stderr);
    return;
  }
  for (const auto& d : diags) std::fputs(parser::render_diagnostic(d, use_color(opts)).c_str(), stderr);
  size_t errors = 0;
  for (const auto& d : diags) errors += d.severity == ir::Severity::Error;
  if (errors)
    std::fputs(fmt::format("error: aborting due to {} previous error{}\n", errors, errors == 1 ? "" : "s").c_str(),
               stderr);
}

static void render_internal(const std::string& stage, const std::string& msg, const ir::Span& span) {
  std::fputs(fmt::format("internal error[{}]: {}\n", stage, msg).c_str(), stderr);
  if (span.valid()) std::fputs(fmt::format("  --> {}\n", span.to_string()).c_str(), stderr);
  std::fputs("   = note: this is a bug in pypto, not in your program; please report it with the input file\n", stderr);
}

Guarded run_guarded(const std::function<int(ir::DiagnosticSink&)>& body) {
  Guarded g;
  ir::DiagnosticSink sink;
  try {
    g.rc = body(sink);
    g.diags = sink.take();
  } catch (const ir::CompileError& e) {
    g.diags = sink.take();
    for (const auto& d : e.diagnostics()) g.diags.push_back(d);
    g.rc = kUserError;
  } catch (const UsageError& e) {
    g.diags = sink.take();
    g.failure = Guarded::Usage;
    g.what = e.what();
    g.rc = kUsageError;
  } catch (const ir::InternalError& e) {
    g.diags = sink.take();
    g.failure = Guarded::Internal;
    g.stage = e.stage();
    g.what = e.what();
    g.span = e.span();
    g.rc = kInternalError;
  } catch (const std::bad_alloc&) {
    g.failure = Guarded::Internal;
    g.stage = "memory";
    g.what = "out of memory";
    g.rc = kInternalError;
  } catch (const std::exception& e) {
    g.diags = sink.take();
    g.failure = Guarded::Internal;
    g.stage = "unknown stage";
    g.what = e.what();
    g.rc = kInternalError;
  } catch (...) {
    g.failure = Guarded::Internal;
    g.stage = "unknown stage";
    g.what = "unknown exception";
    g.rc = kInternalError;
  }
  return g;
}

int render_guarded(const CommonOptions& opts, const Guarded& g, std::set<std::string>* shown) {
  render(opts, g.diags, shown);
  if (g.failure == Guarded::Usage) std::fputs(fmt::format("error: {}\n", g.what).c_str(), stderr);
  if (g.failure == Guarded::Internal) render_internal(g.stage, g.what, g.span);
  return g.rc;
}

int guarded(const CommonOptions& opts, const std::function<int(ir::DiagnosticSink&)>& body,
            std::set<std::string>* shown) {
  Guarded g = run_guarded(body);
  try {
    return render_guarded(opts, g, shown);
  } catch (const std::exception& e) {  // rendering itself failed: still a report, not a crash
    render_internal("rendering diagnostics", e.what(), {});
    return kInternalError;
  }
}

ir::ProgramPtr compile_program(const std::string& path, const CommonOptions& opts, const std::string& soc,
                               ir::DiagnosticSink& sink) {
  auto prog = load_program(path, opts, sink);
  passes::PassContext ctx;
  ctx.soc = *ir::soc_from_name(soc);
  ctx.auto_deps = opts.auto_deps;
  prog = passes::run_pipeline(prog, ctx);
  for (auto& d : ctx.diagnostics.take()) sink.report(std::move(d));
  return prog;
}

}  // namespace pypto::cli
