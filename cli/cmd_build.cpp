// `pypto build FILE -o OUT`: front end → pass pipeline → emitters → OUT (written atomically)
// → `ninja -C OUT` (unless --emit-only). An OUT pypto must not replace (a user's directory, the
// working directory, one holding FILE: emit/dir_writer.h) is a usage error before anything runs.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <sys/wait.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "cli/report.h"
#include "cli/time_report.h"
#include "emit/project_writer.h"
#include "ir/printer.h"
#include "ir/soc.h"
#include "passes/pipeline.h"

namespace pypto::cli {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int run_ninja(const std::string& out_dir, int jobs) {
  std::string cmd = "ninja -C " + shell_quote(out_dir);
  if (jobs > 0) cmd += fmt::format(" -j {}", jobs);
  std::fflush(stdout);
  int st = std::system(cmd.c_str());
  if (st == -1) throw UsageError("could not start ninja");
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
    throw UsageError("ninja not found on PATH; install ninja-build or use --emit-only");
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    std::fputs(fmt::format("error: building {} failed (ninja exit status {})\n", out_dir,
                           WIFEXITED(st) ? WEXITSTATUS(st) : -1).c_str(), stderr);
    return kUserError;
  }
  return kOk;
}

// The --time-report row of the IR printed for --dump-passes / --report (not a pass's own time).
constexpr const char* kDumpRow = "printing IR (--dump-passes / --report)";

int cmd_build(const BuildOptions& opts) {
  return guarded(opts.common, [&](ir::DiagnosticSink& sink) {
    TimeReport times(opts.time_report);
    if (auto why = emit::output_dir_refusal(opts.out_dir, {opts.file}); !why.empty()) throw UsageError(why);
    times.mark("output directory check");
    CommonOptions common = opts.common;
    common.depfile_target = (std::filesystem::path(opts.out_dir) / "build.ninja").string();
    auto prog = load_program(opts.file, common, sink);
    times.mark("front end (read, parse, check, build IR)");
    passes::PassContext ctx;
    ctx.soc = *ir::soc_from_name(opts.soc);
    ctx.auto_deps = opts.common.auto_deps;
    emit::EmitOptions eo;
    eo.soc = ctx.soc;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) eo.cxx = cxx;
    if (const char* l = std::getenv("PYPTO_COMPILER_LAUNCHER"); l && *l) eo.launcher = l;
    std::map<std::string, std::string> dumps;
    ReportInputs report;
    if (opts.report) {
      report.source = opts.file;
      report.soc = opts.soc;
      report.front_end_ir = ir::print_program(*prog);
      times.mark(kDumpRow);
    }
    auto after = [&](const passes::Pass& pass, size_t index, const ir::ProgramPtr& p) {
      if (times.enabled()) times.mark("pass " + pass.name);
      if (!opts.dump_passes && !opts.report) return;
      std::string text = ir::print_program(*p);
      if (opts.report) report.passes.emplace_back(pass.name, text);
      if (opts.dump_passes) dumps["passes_dump/" + dump_file_name(int(index) + 1, pass.name)] = std::move(text);
      times.mark(kDumpRow);
    };
    prog = passes::run_pipeline(prog, ctx, after);
    for (auto& d : ctx.diagnostics.take()) sink.report(std::move(d));
    // The pass dumps and the report go into the project's own atomic write: OUT is replaced in one step.
    auto files = emit::render_project(*prog, eo, opts.out_dir);
    times.mark("emitters");
    if (opts.report) {
      report.program = prog.get();
      report.files = &files;
      dumps["report.html"] = render_report(report);
    }
    files.merge(dumps);
    emit::write_files_atomically(files, opts.out_dir, {opts.file});
    times.mark("write OUT");
    int status = int(kOk);
    if (!opts.emit_only) {
      status = run_ninja(opts.out_dir, opts.jobs);
      times.mark("ninja (compile and link the project)");
    }
    if (times.enabled()) std::fputs(times.render().c_str(), stderr);
    return status;
  });
}

}  // namespace pypto::cli
