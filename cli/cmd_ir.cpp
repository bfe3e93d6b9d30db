// `pypto ir FILE [--passes P1,P2|all] [--dump-passes DIR]`: print the IR as DSL text (the dumps
// of the passes that ran are written also when a later one fails).
#include <cstdio>
#include <map>
#include <fmt/ranges.h>
#include <stdexcept>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/files.h"
#include "emit/project_writer.h"
#include "ir/printer.h"
#include "ir/soc.h"
#include "passes/pipeline.h"

namespace pypto::cli {

int cmd_ir(const IrOptions& opts) {
  return guarded(opts.common, [&](ir::DiagnosticSink& sink) {
    if (!opts.dump_dir.empty() && opts.passes.empty())
      throw UsageError("--dump-passes needs --passes (e.g. --passes all)");
    if (!opts.dump_dir.empty())
      if (auto why = emit::output_dir_refusal(opts.dump_dir, {opts.file}); !why.empty()) throw UsageError(why);
    auto prog = load_program(opts.file, opts.common, sink);
    std::vector<ir::Diagnostic> ctx_warnings;
    if (!opts.passes.empty()) {
      passes::PassContext ctx;
      ctx.soc = *ir::soc_from_name(opts.soc);
      ctx.auto_deps = opts.common.auto_deps;
      std::map<std::string, std::string> dumps;
      auto after = [&](const passes::Pass& pass, size_t index, const ir::ProgramPtr& p) {
        if (!opts.dump_dir.empty()) dumps[dump_file_name(int(index) + 1, pass.name)] = ir::print_program(*p);
      };
      bool all = opts.passes.size() == 1 && opts.passes[0] == "all";
      if (!all) {
        for (const auto& n : opts.passes) {
          try {
            // Naming the off-by-default pass asks for it.
            if (passes::find_pass(n).name == "AutoDeriveTaskDependencies") ctx.auto_deps = true;
          } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
          }
        }
      }
      try {
        prog = all ? passes::run_pipeline(prog, ctx, after) : passes::run_passes(prog, opts.passes, ctx, after);
      } catch (...) {
        // A pass failed: the IR after each pass that ran is what one needs to see why.
        if (!opts.dump_dir.empty() && !dumps.empty()) emit::write_files_atomically(dumps, opts.dump_dir, {opts.file});
        throw;
      }
      if (!opts.dump_dir.empty()) emit::write_files_atomically(dumps, opts.dump_dir, {opts.file});
      ctx_warnings = ctx.diagnostics.take();
    }
    for (auto& d : ctx_warnings) sink.report(std::move(d));
    std::fputs(ir::print_program(*prog).c_str(), stdout);
    return int(kOk);
  });
}

}  // namespace pypto::cli
