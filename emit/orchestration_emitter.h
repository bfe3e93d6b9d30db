// Orchestration emitter: the Orchestration function → orchestration/<name>.cpp against the PTO2
// API (output-format.md §4): parameter binding from ChipTaskArgs, one PTO2_SCOPE per Runtime
// scope, TensorCreateInfo + one alloc_tensors per alloc_batch of tensor.create (PlanTensorAllocs),
// one CoreTaskArgs + submit per kernel call (directions from Call::arg_directions), loops / ifs as
// C++ control flow, tensor views (slice / reshape / transpose) and element reads / writes.
// It only translates: the forms it cannot write (several Orchestration functions, calls to
// non-kernels, tensor compute outside pl.at, loop carries rebound to another tensor, entry
// parameters the runtime cannot describe, ...) are rejected by CheckOrchestrationForms at their
// line before emission; meeting one here is an InternalError naming that rule.
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
