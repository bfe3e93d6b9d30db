// `pypto check FILE`: front end + verifier for every entry of the file (or only --entry NAME),
// one line per entry; a file without an entry is checked as a module (syntax, imports). Writes
// nothing but an optional --depfile (target: FILE) listing every source file read.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <thread>
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
  // Entries are independent compilations (each loads its own modules; the parse cache is shared),
  // checked in parallel: each batch holds the entries whose fate is known (run, or checked through
  // a caller) from the entries before them in `order`, exactly as one after the other decides it.
  // Cores the batch leaves idle check entries still waiting for their caller, speculatively: the
  // result is used if the caller turns out not to cover the entry, and dropped if it does. Reports
  // follow in `order`, so the output is the same as checking one after the other.
  struct Run {
    std::string entry;
    enum { Pending, Through, Ran } state = Pending;
    bool computed = false;  // checked (maybe ahead of its fate)
    Guarded result;
    std::set<std::string> functions;
    std::vector<std::string> read;
  };
  std::vector<Run> runs;
  std::map<std::string, size_t> position;
  for (const auto& e : order) {
    position[e] = runs.size();
    runs.push_back(Run{e});
  }
  // Whether `run` is run or checked through its caller, as the sequential loop decides it (the
  // caller passed and its program holds this entry); Wait while that caller is still undecided.
  enum class Fate { Wait, Run, Through };
  auto decide = [&](const Run& run) {
    auto c = mod.called_by.find(run.entry);
    if (c == mod.called_by.end() || !opts.entry.empty()) return Fate::Run;
    auto at = position.find(c->second);
    if (at == position.end() || at->second > position[run.entry]) return Fate::Run;  // caller not before it
    if (runs[at->second].state == Run::Pending) return Fate::Wait;
    auto f = ok_functions.find(c->second);
    return f != ok_functions.end() && f->second.count(run.entry) ? Fate::Through : Fate::Run;
  };
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  for (;;) {
    // Decide in order (a decision sees the ones before it): a checked entry whose fate is to run
    // is done; one to check joins the batch.
    std::vector<Run*> batch;
    bool progress = false;
    for (Run& run : runs) {
      if (run.state != Run::Pending) continue;
      const Fate fate = decide(run);
      if (fate == Fate::Through) {
        run.state = Run::Through;
        progress = true;
      } else if (fate == Fate::Run && run.computed) {
        run.state = Run::Ran;
        if (run.result.rc == kOk) ok_functions[run.entry] = run.functions;
        progress = true;
      } else if (fate == Fate::Run) {
        batch.push_back(&run);
      }
    }
    for (Run& run : runs) {
      if (batch.size() >= cores) break;
      if (run.state == Run::Pending && !run.computed && decide(run) == Fate::Wait) batch.push_back(&run);
    }
    if (batch.empty()) {
      if (progress) continue;
      break;
    }
    run_parallel(batch.size(), [&](size_t i) {
      Run& run = *batch[i];
      CommonOptions one = opts;
      one.entry = run.entry;
      one.depfile.clear();
      run.result = run_guarded([&](ir::DiagnosticSink& sink) {
        auto prog = load_program(file, one, sink, &run.read);
        for (const auto& fn : prog->functions) run.functions.insert(fn->name);
        return int(kOk);
      });
    });
    for (Run* run : batch) run->computed = true;
  }
  for (Run& run : runs) {
    if (run.state == Run::Through) {
      say(fmt::format("{}: {}: ok (checked through entry '{}', which calls it)\n", file, run.entry,
                      mod.called_by.at(run.entry)));
      continue;
    }
    add_sources(run.read);
    const int r = render_guarded(opts, run.result, &shown);
    if (r == kOk) {
      say(fmt::format("{}: {}: ok ({} function{})\n", file, run.entry, run.functions.size(),
                      run.functions.size() == 1 ? "" : "s"));
    } else {
      ++failed;
      say(fmt::format("{}: {}: failed\n", file, run.entry));
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
