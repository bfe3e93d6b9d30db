// Kernel emitter: one AIV / AIC function → the text of kernels/aiv/<name>.cpp or
// kernels/aic/<name>.cpp (output-format.md §2): banner, guards, includes, Tile / GlobalTensor
// type aliases, a static compute function fenced by the core macro with one pto-isa call per
// tile op (kernel_op_table.h) and the sync ops translated 1:1, and the kernel_entry ABI wrapper.
// Expects the full pipeline's output (planned MemRef offsets, syncs inserted).
// It only translates: the forms it cannot write (tile.slice, dynamic valid shapes, smaller load
// valid_shapes or clamp, while / break / continue / early return, mixed kernels,
// non-ND or dynamically strided GM views, unspelled memory spaces and element types, ...) are
// rejected by CheckKernelForms at their line before emission; meeting one here is an
// InternalError naming that rule.
#pragma once

#include <string>

#include "emit/emit_options.h"
#include "ir/function.h"

namespace pypto::emit {

// "aiv" or "aic" (the kernels/ subfolder and kernel_config core_type); an InternalError for other
// function types (MixedKernelExpanded and CheckKernelForms leave none in a project).
std::string kernel_core_dir(const ir::Function& f);

std::string emit_kernel(const ir::Function& f, const EmitOptions& opts);

// Whether the kernel makes a prefetch context (an op whose kernel-table form is PrefetchContext):
// it then takes the task's SDMA workspace (a hidden last parameter kernel_entry reads with
// get_dma_workspace), and the project enables SDMA.
bool kernel_uses_sdma(const ir::Function& f);

}  // namespace pypto::emit
