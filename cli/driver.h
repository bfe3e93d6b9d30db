// The pieces every `pypto` command shares: options common to all commands, loading a program
// through the front end, reporting diagnostics (text or JSON), and the exception barrier that
// turns every failure into an exit code — 0 ok, 1 errors in the user's program, 2 usage errors,
// 70 internal errors (named after the stage), never an abort or an uncaught exception.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "parser/frontend.h"

namespace pypto::cli {

enum ExitCode : int { kOk = 0, kUserError = 1, kUsageError = 2, kInternalError = 70 };

struct CommonOptions {
  std::string entry;
  std::vector<std::string> defines;        // "NAME=VALUE" or "MODULE.NAME=VALUE"
  std::vector<std::string> include_dirs;   // -I DIR: module search path
  std::vector<std::string> args;           // --arg NAME=DTYPE[d0,...]
  std::vector<std::string> scalars;        // --scalar NAME=VALUE|runtime
  std::vector<std::string> factory_args;   // --factory-arg NAME=VALUE
  std::string specs;                       // --specs FUNC | none
  std::string depfile;                     // --depfile FILE (build / check): Make/Ninja depfile of the sources read
  std::string depfile_target;              // the depfile's target (build: OUT/build.ninja)
  std::string diagnostics_format = "text"; // text | json
  std::string color = "auto";             // auto | always | never
  bool auto_deps = false;                  // --auto-deps: run AutoDeriveTaskDependencies
};

// Thrown for command-line misuse discovered after parsing (bad -D syntax, unknown pass name...).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `body` inside the barrier: renders CompileError diagnostics and warnings, maps exceptions
// to exit codes. `stage` names what was running for unexpected exceptions.
// With `shown` given, a diagnostic already in it (same code, place and text) is not printed
// again: `pypto check` over several entries that share a callee or module says each thing once.
int guarded(const CommonOptions& opts, const std::function<int(ir::DiagnosticSink&)>& body,
            std::set<std::string>* shown = nullptr);
// guarded() in two halves, for bodies run on other threads and reported in a fixed order: what
// the body produced (its exit code, diagnostics and warnings, or the failure it threw) ...
struct Guarded {
  int rc = 0;
  std::vector<ir::Diagnostic> diags;
  enum Failure { None, Usage, Internal } failure = None;
  std::string stage, what;  // Usage: the message; Internal: the stage and the message
  ir::Span span;
};
Guarded run_guarded(const std::function<int(ir::DiagnosticSink&)>& body);
// ... and its report on stderr, as guarded() prints it; returns the exit code.
int render_guarded(const CommonOptions& opts, const Guarded& g, std::set<std::string>* shown = nullptr);

// Front end + structural verification; throws CompileError on errors. With opts.depfile set, the
// depfile is written once the front end succeeded.
// `sources`, when given, receives every source file the front end read.
// `spec_scalars`, when given, receives the spec function's ScalarSpec values (FrontendOptions).
ir::ProgramPtr load_program(const std::string& path, const CommonOptions& opts, ir::DiagnosticSink& sink,
                            std::vector<std::string>* sources = nullptr,
                            std::map<std::string, std::string>* spec_scalars = nullptr);
parser::FrontendOptions frontend_options(const CommonOptions& opts);
// load_program, then the whole pass pipeline for `soc` ("910b" / "950"); its warnings go to `sink`.
ir::ProgramPtr compile_program(const std::string& path, const CommonOptions& opts, const std::string& soc,
                               ir::DiagnosticSink& sink);
// Writes `target: sources…` (spaces, '#' and '$' escaped as Make and Ninja read them) to `path`
// through a temporary file and a rename.
void write_depfile(const std::string& path, const std::string& target, const std::vector<std::string>& sources);

// Writes one file the user named (`what` for messages: "depfile", "memory plan") through a
// temporary file and a rename; refuses to overwrite any of `protect` (the input files).
void write_output_file(const std::string& path, const std::string& text, const std::string& what,
                       const std::vector<std::string>& protect = {});

inline bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Splits "NAME=VALUE"; throws UsageError on a malformed define.
std::pair<std::string, std::string> split_define(const std::string& d);

}  // namespace pypto::cli
