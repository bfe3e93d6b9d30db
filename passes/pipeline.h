// The default pass pipeline and the runner. run_pipeline checks each pass's required properties
// before it runs and verifies the properties it produces after it (ir::verify); a violation after
// a pass is a compiler bug reported as ir::InternalError naming the pass.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace pypto::passes {

// Called after each pass with its 0-based position in the list being run and the resulting IR
// (the CLI's --dump-passes writes passes_dump/NN_<pass>.py from it).
using PassCallback = std::function<void(const Pass& pass, size_t index, const ir::ProgramPtr& program)>;

// The default pipeline, in execution order.
const std::vector<Pass>& default_pipeline();
// Names of the default pipeline, in order.
std::vector<std::string> pass_names();
// Reference passes for features not compiled yet (OutlineHierarchyScopes, OutlineClusterScopes):
// not in the default pipeline; run by name they change nothing and reject the feature at its line.
const std::vector<Pass>& reference_only_passes();
// A pass of the default pipeline (or a reference-only one) by name; throws std::invalid_argument
// listing the valid names. By its name (ConvertToSSA) or the reference's snake_case spelling (convert_to_ssa).
const Pass& find_pass(std::string_view name);
std::string snake_case_name(std::string_view camel);

// Runs the whole default pipeline.
ir::ProgramPtr run_pipeline(const ir::ProgramPtr& program, PassContext& ctx,
                            const PassCallback& after_each = {});
// Runs the named passes in the given order (`pypto ir --passes P1,P2`). Unknown names throw
// std::invalid_argument; a required property that does not hold on the input is a CompileError.
ir::ProgramPtr run_passes(const ir::ProgramPtr& program, const std::vector<std::string>& names,
                          PassContext& ctx, const PassCallback& after_each = {});
// Runs an explicit list of passes with the same checks.
ir::ProgramPtr run_pass_list(const ir::ProgramPtr& program, const std::vector<const Pass*>& passes,
                             PassContext& ctx, const PassCallback& after_each = {},
                             bool user_selected = false);

// "{SSAForm, HasMemRefs}"
std::string format_properties(const ir::PropertySet& props);

}  // namespace pypto::passes
