// Orchestration emitter: the Orchestration function → orchestration/<name>.cpp against the PTO2
// API (output-format.md §4): parameter binding from ChipTaskArgs, one PTO2_SCOPE per Runtime
// scope, TensorCreateInfo + alloc_tensors for tensor.create, one CoreTaskArgs + submit per kernel
// call (directions from Call::arg_directions), loops / ifs as C++ control flow.
#pragma once

#include <string>
#include <vector>

#include "emit/emit_options.h"
#include "emit/kernel_table.h"
#include "ir/function.h"

namespace pypto::emit {

std::string emit_orchestration(const ir::Program& p, const ir::Function& orch,
                               const std::vector<KernelRef>& kernels, const EmitOptions& opts);

}  // namespace pypto::emit
