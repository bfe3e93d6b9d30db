// `pypto check FILE`: front end + verifier for every entry of the file (or only --entry NAME),
// one line per entry; a file without an entry is checked as a module (syntax, imports). Writes
// nothing but an optional --depfile (target: FILE) listing every source file read.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/run_parallel.h"
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
  std::set<std::string> shown;  // what entries share (a callee, a module) is reported once
  // An entry another entry calls is checked after its callers: when a caller passed and its
  // program holds the callee (specialised with the caller's argument types, as the reference
  // does at that call), the callee is reported as checked through it. Otherwise it is checked
  // on its own (and, with bare parameters, says which flags would type it).
  std::vector<std::string> order;
  for (const auto& e : entries)
    if (!mod.called_by.count(e)) order.push_back(e);
  for (const auto& e : entries)
    if (mod.called_by.count(e)) order.push_back(e);
  std::map<std::string, std::set<std::string>> ok_functions;  // entry that passed -> its functions
  // Entries are independent compilations (each loads its own modules; the parse cache is shared):
  // they are checked in parallel, a round at a time (callers, then the entries they call), and
  // reported in `order`, so the output is the same as one after the other.
  struct Run {
    std::string entry;
    Guarded result;
    std::set<std::string> functions;
    std::vector<std::string> read;
  };
  auto run_round = [&](std::vector<Run*>& runs) {
    run_parallel(runs.size(), [&](size_t i) {
      Run& run = *runs[i];
      CommonOptions one = opts;
      one.entry = run.entry;
      one.depfile.clear();
      run.result = run_guarded([&](ir::DiagnosticSink& sink) {
        auto prog = load_program(file, one, sink, &run.read);
        for (const auto& fn : prog->functions) run.functions.insert(fn->name);
        return int(kOk);
      });
    });
  };
  auto report = [&](Run& run) {
    add_sources(run.read);
    const int r = render_guarded(opts, run.result, &shown);
    if (r == kOk) {
      say(fmt::format("{}: {}: ok ({} function{})\n", file, run.entry, run.functions.size(),
                      run.functions.size() == 1 ? "" : "s"));
      ok_functions[run.entry] = std::move(run.functions);
    } else {
      ++failed;
      say(fmt::format("{}: {}: failed\n", file, run.entry));
      worst = std::max(worst, r);
    }
  };
  std::vector<Run> runs;
  for (const auto& e : order) runs.push_back(Run{e, {}, {}, {}});
  std::vector<Run*> round;
  for (Run& run : runs)
    if (!mod.called_by.count(run.entry)) round.push_back(&run);
  run_round(round);
  for (Run* run : round) report(*run);
  // The entries other entries call: the ones not checked through a caller, then all in order.
  auto through = [&](const Run& run) -> const std::string* {
    auto c = mod.called_by.find(run.entry);
    if (c == mod.called_by.end() || !opts.entry.empty()) return nullptr;
    auto f = ok_functions.find(c->second);
    return f != ok_functions.end() && f->second.count(run.entry) ? &c->second : nullptr;
  };
  round.clear();
  for (Run& run : runs)
    if (mod.called_by.count(run.entry) && !through(run)) round.push_back(&run);
  run_round(round);
  for (Run& run : runs) {
    if (!mod.called_by.count(run.entry)) continue;
    if (const std::string* caller = through(run))
      say(fmt::format("{}: {}: ok (checked through entry '{}', which calls it)\n", file, run.entry, *caller));
    else
      report(run);
  }
  if (entries.size() > 1) say(fmt::format("{}: {} of {} entries ok\n", file, entries.size() - failed, entries.size()));
  if (opts.depfile.empty() || worst != kOk) return worst;
  return guarded(opts, [&](ir::DiagnosticSink&) {
    write_depfile(opts.depfile, file, sources);
    return int(kOk);
  });
}

}  // namespace pypto::cli
