// runner/program_table.cpp: defines pypto_rt::kProgram (runtime/include/pypto_rt/program.h) —
// the kernel table indexed by func_id (each kernel's entry compiled as pypto_kernel_<stem>, see
// file_names.h), the
// entry's tensor parameters (dtype, shape, direction) and scalar parameters, and the two
// orchestration entry points. The runtime's bin/run reads inputs and writes outputs through it.
#pragma once

#include <string>
#include <vector>

#include "emit/file_names.h"
#include "emit/kernel_table.h"
#include "ir/function.h"

namespace pypto::emit {

std::string emit_program_table(const ir::Function& orch, const std::vector<KernelRef>& kernels,
                               const ProjectNames& names);

}  // namespace pypto::emit
