// `pypto memplan FILE [-o plan.svg|plan.json]`: the memory plan of every kernel after the whole
// pipeline (passes/memory_plan.h) -- per on-chip memory space, each tile's address range against
// its live range, and how close the space comes to its capacity. Without -o a table on stdout;
// with -o an SVG picture (one panel per kernel and space: statements across, addresses up, one
// box per tile, the capacity at the top) or the same data as JSON.
#include <cstdio>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/pictures.h"
#include "ir/soc.h"
#include "passes/memory_plan.h"

namespace pypto::cli {

int cmd_memplan(const MemplanOptions& opts) {
  return guarded(opts.common, [&](ir::DiagnosticSink& sink) {
    const bool svg = has_suffix(opts.output, ".svg"), json = has_suffix(opts.output, ".json");
    if (!opts.output.empty() && !svg && !json)
      throw UsageError(fmt::format("-o {}: write a .svg picture or a .json file", opts.output));
    const auto prog = compile_program(opts.file, opts.common, opts.soc, sink);
    const auto plan = passes::memory_plan(*prog, *ir::soc_from_name(opts.soc));
    if (opts.output.empty()) {
      std::fputs(memory_plan_text(plan).c_str(), stdout);
      return int(kOk);
    }
    const std::string text = svg ? memory_plan_svg(plan, prog->name, opts.soc) : memory_plan_json(plan, prog->name, opts.soc);
    write_output_file(opts.output, text, "memory plan", {opts.file});
    return int(kOk);
  });
}

}  // namespace pypto::cli
