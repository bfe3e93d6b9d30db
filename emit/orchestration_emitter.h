// Orchestration emitter: the Orchestration function → orchestration/<name>.cpp against the PTO2
// API (output-format.md §4): parameter binding from ChipTaskArgs, one PTO2_SCOPE per Runtime
// scope, TensorCreateInfo + one alloc_tensors per alloc_batch of tensor.create (PlanTensorAllocs),
// one CoreTaskArgs + submit per kernel call (directions from Call::arg_directions), loops / ifs as
// C++ control flow, tensor views (slice / reshape / transpose) and element reads / writes.
// Not supported yet (CompileError E900): several Orchestration functions, Group / Spmd / mixed
// submissions, manual scopes' explicit dependencies (pl.submit deps, TaskId arrays), runtime-
// allocated outputs (add_output(TensorCreateInfo)), tensor.assemble and other tensor compute
// in orchestration code, loop carries rebound to a different tensor.
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
