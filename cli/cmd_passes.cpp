// `pypto passes [-v]`: the default pass pipeline in execution order, optionally with each pass's
// description and required / produced / invalidated properties.
#include <cstdio>
#include <fmt/format.h>

#include "cli/commands.h"
#include "passes/pipeline.h"

namespace pypto::cli {

int cmd_passes(bool verbose) {
  const auto& pipeline = passes::default_pipeline();
  for (size_t i = 0; i < pipeline.size(); ++i) {
    const auto& p = pipeline[i];
    std::fputs(fmt::format("{:2}. {}\n", i + 1, p.name).c_str(), stdout);
    if (!verbose) continue;
    std::fputs(fmt::format("    {}\n", p.description).c_str(), stdout);
    const auto& pr = p.properties;
    if (!pr.required.empty()) std::fputs(fmt::format("    requires    {}\n", passes::format_properties(pr.required)).c_str(), stdout);
    if (!pr.produced.empty()) std::fputs(fmt::format("    produces    {}\n", passes::format_properties(pr.produced)).c_str(), stdout);
    if (!pr.invalidated.empty())
      std::fputs(fmt::format("    invalidates {}\n", passes::format_properties(pr.invalidated)).c_str(), stdout);
  }
  return kOk;
}

}  // namespace pypto::cli
