// The kernels a project submits, numbered the way the orchestration code, kernel_config.py and
// the runner's program table all see them: func_ids dense from 0 in order of first submission
// (a walk of the orchestration body in program order); a kernel called again keeps its id. A
// mixed kernel's Group contributes its AIC half, then its AIV half.
// Also picks the project's entry (the one Orchestration function).
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace pypto::emit {

struct KernelRef {
  int func_id;
  const ir::Function* fn;
  bool aic;                                     // AIC (cube) kernel, else AIV
  std::vector<ir::ArgDirection> signature;      // first call's tensor argument directions
};

// The Orchestration function of the program. A program without one (kernels only: valid IR, but
// nothing to build a project from) is CompileError E900; several are an InternalError
// (CheckOrchestrationForms rejects a second).
const ir::Function& entry_function(const ir::Program& p);

// Kernels in func_id order.
std::vector<KernelRef> kernel_table(const ir::Program& p, const ir::Function& orch);

// Direction of tensor argument `i` of `call`, as DeriveCallDirections set it (InternalError when
// the call carries none).
ir::ArgDirection tensor_arg_direction(const ir::Call& call, const ir::Function& callee, size_t i);

}  // namespace pypto::emit
