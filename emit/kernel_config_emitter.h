// kernel_config.py (output-format.md §5): RUNTIME_CONFIG, ORCHESTRATION (source, entry symbol,
// tensor-parameter directions) and KERNELS (func_id, name, source, core_type, signature of the
// first call), tab-indented, entries in func_id order.
#pragma once

#include <string>
#include <vector>

#include "emit/emit_options.h"
#include "emit/file_names.h"
#include "emit/kernel_table.h"
#include "ir/function.h"

namespace pypto::emit {

// Source paths use the file stems of `names`; kernel names are the functions' own, quoted.
std::string emit_kernel_config(const ir::Function& orch, const std::vector<KernelRef>& kernels,
                               const ProjectNames& names, const EmitOptions& opts);

}  // namespace pypto::emit
