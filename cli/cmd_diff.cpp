// `pypto diff A B`: structural equality of two programs (names, spans and comments ignored).
#include <cstdio>
#include <fmt/format.h>

#include "cli/commands.h"
#include "ir/structural_equal.h"

namespace pypto::cli {

int cmd_diff(const std::string& a, const std::string& b, const CommonOptions& opts) {
  return guarded(opts, [&](ir::DiagnosticSink& sink) {
    auto pa = load_program(a, opts, sink);
    auto pb = load_program(b, opts, sink);
    ir::EqualResult r = ir::structural_equal(*pa, *pb);
    if (r.equal) {
      std::fputs(fmt::format("{} and {} are structurally equal\n", a, b).c_str(), stdout);
      return int(kOk);
    }
    std::fputs(fmt::format("programs differ at {}: {}\n", r.path, r.message).c_str(), stdout);
    if (r.lhs_span.valid()) std::fputs(fmt::format("  --> {} (first)\n", r.lhs_span.to_string()).c_str(), stdout);
    if (r.rhs_span.valid()) std::fputs(fmt::format("  --> {} (second)\n", r.rhs_span.to_string()).c_str(), stdout);
    return int(kUserError);
  });
}

}  // namespace pypto::cli
