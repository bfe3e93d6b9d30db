// InsertPipeSync: explicit intra-core synchronisation for AIV / AIC kernels (output-format.md §3).
// Every cross-pipe dependency (RAW / WAR / WAW on overlapping planned bytes of one on-chip space,
// or on one GM tensor) gets `system.sync_src` after the producer and `system.sync_dst` before
// the consumer; dependent vector ops get `system.bar_v`; buffers reused across loop iterations get
// the primed back-edge protocol. check_pipe_sync is the static checker that stands in for
// hardware: it simulates flags and pipe ordering along the paths of a kernel.
#pragma once

#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "passes/pass.h"

namespace pypto::passes {

// The pass (requires AllocatedMemoryAddr, produces PipeSyncInserted). Kernels that already
// contain set/wait flags (system.sync_src / sync_dst) are left as written; user barriers are
// kept and synchronisation is added around them.
Pass insert_pipe_sync_pass();

// The transformation itself, per function / per program (non-kernel functions are unchanged).
ir::FunctionPtr insert_pipe_sync(const ir::FunctionPtr& f);
ir::ProgramPtr insert_pipe_sync(const ir::ProgramPtr& p);

// Static check of one kernel's synchronisation. Explores the kernel's paths (each if branch; each
// loop run 0, 1 and 2 times) and reports, as Error diagnostics with spans:
//   * a wait_flag with no pending set_flag of the same (src, dst, event);
//   * a set_flag whose event is still pending (set twice without a wait);
//   * a set_flag never waited for by the end of the kernel;
//   * a dependency between two instructions on different pipes (or two vector ops) that no
//     chain of set/wait flags or barriers orders.
// Empty result = clean. Identical findings on several paths are reported once.
std::vector<ir::Diagnostic> check_pipe_sync(const ir::Function& f);

}  // namespace pypto::passes
