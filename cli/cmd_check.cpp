// `pypto check FILE`: front end + verifier, writes nothing.
#include <cstdio>
#include <fmt/format.h>

#include "cli/commands.h"

namespace pypto::cli {

int cmd_check(const std::string& file, const CommonOptions& opts) {
  return guarded(opts, [&](ir::DiagnosticSink& sink) {
    auto prog = load_program(file, opts, sink);
    if (opts.diagnostics_format != "json")
      std::fputs(fmt::format("{}: ok ({} function{})\n", file, prog->functions.size(),
                             prog->functions.size() == 1 ? "" : "s").c_str(), stderr);
    return int(kOk);
  });
}

}  // namespace pypto::cli
