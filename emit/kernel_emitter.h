// Kernel emitter: one AIV / AIC function → the text of kernels/aiv/<name>.cpp or
// kernels/aic/<name>.cpp (output-format.md §2): banner, guards, includes, Tile / GlobalTensor
// type aliases, a static compute function fenced by the core macro with one pto-isa call per
// tile op (kernel_op_table.h) and the sync ops translated 1:1, and the kernel_entry ABI wrapper.
// Expects the full pipeline's output (planned MemRef offsets, syncs inserted).
// Not supported yet (CompileError E900 at the op's span): tile.slice (the planner does not yet
// encode the view offset in the MemRef), tiles with a dynamic valid shape, loads with a smaller
// valid_shape or clamp, while / break / continue, pl.unroll / pl.pipeline loops left over, early
// returns, cube/vector mixed kernels and cross-core tpush/tpop, block / sub-block ids, gather /
// scatter / sort ops, non-ND GM layouts, store atomics other than AtomicAdd, ops without a row
// in kernel_op_table.cpp.
#pragma once

#include <string>

#include "emit/emit_options.h"
#include "ir/function.h"

namespace pypto::emit {

// "aiv" or "aic" (the kernels/ subfolder and kernel_config core_type); an InternalError for other
// function types (MixedKernelExpanded and CheckKernelForms leave none in a project).
std::string kernel_core_dir(const ir::Function& f);

std::string emit_kernel(const ir::Function& f, const EmitOptions& opts);

}  // namespace pypto::emit
