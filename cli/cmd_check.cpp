// `pypto check FILE`: front end + verifier for every entry of the file (or only --entry NAME),
// one line per entry; a file without an entry is checked as a module (syntax, imports). Writes
// nothing but an optional --depfile (target: FILE) listing every source file read.
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>

#include "cli/commands.h"
#include "parser/module_set.h"

namespace pypto::cli {

int cmd_check(const std::string& file, const CommonOptions& opts) {
  const bool text = opts.diagnostics_format != "json";
  auto say = [&](const std::string& s) {
    if (text) std::fputs(s.c_str(), stderr);
  };
  std::vector<std::string> sources;
  auto add_sources = [&](const std::vector<std::string>& more) {
    for (const auto& s : more)
      if (std::find(sources.begin(), sources.end(), s) == sources.end()) sources.push_back(s);
  };
  // The module first: syntax, imports, and the list of entries.
  parser::ModuleReport mod;
  int rc = guarded(opts, [&](ir::DiagnosticSink&) {
    auto fo = frontend_options(opts);
    std::vector<std::string> read;
    fo.files_read = &read;
    mod = parser::check_module(parser::read_source(file), fo);
    add_sources(read);
    return int(kOk);
  });
  if (rc != kOk) return rc;
  const std::vector<std::string> entries = opts.entry.empty() ? mod.entries : std::vector<std::string>{opts.entry};
  int worst = kOk;
  size_t failed = 0;
  if (entries.empty())
    say(fmt::format("{}: ok: no entry, checked as a module ({} DSL function{}; its imports resolve)\n", file,
                    mod.dsl_functions, mod.dsl_functions == 1 ? "" : "s"));
  for (const auto& e : entries) {
    CommonOptions one = opts;
    one.entry = e;
    one.depfile.clear();
    int r = guarded(one, [&](ir::DiagnosticSink& sink) {
      std::vector<std::string> read;
      auto prog = load_program(file, one, sink, &read);
      add_sources(read);
      say(fmt::format("{}: {}: ok ({} function{})\n", file, e, prog->functions.size(),
                      prog->functions.size() == 1 ? "" : "s"));
      return int(kOk);
    });
    if (r != kOk) {
      ++failed;
      say(fmt::format("{}: {}: failed\n", file, e));
      worst = std::max(worst, r);
    }
  }
  if (entries.size() > 1) say(fmt::format("{}: {} of {} entries ok\n", file, entries.size() - failed, entries.size()));
  if (opts.depfile.empty() || worst != kOk) return worst;
  return guarded(opts, [&](ir::DiagnosticSink&) {
    write_depfile(opts.depfile, file, sources);
    return int(kOk);
  });
}

}  // namespace pypto::cli
