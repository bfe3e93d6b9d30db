// pypto CPU runtime: SYNCALL, pto-isa's all-core barrier, as generated kernels call it:
//   SYNCALL<SyncCoreType::X>()                                   the hard (FFTS) form
//   SYNCALL<SyncAllMode::Soft, SyncCoreType::X>(ws, used_cores)  the soft form over a GM workspace
// Every kernel of the launch in the participant set (AIV only, AIC only, or both: Mix) waits here
// until all of them have arrived. A kernel outside the set passes straight through, as on the
// hardware (an AIVOnly barrier in a cube kernel). The executor keeps the barrier of each launch
// (runtime/src/executor_syncall.cpp) and stops the run, naming the kernel and the blocks, where
// the device would hang: a hard barrier whose launch does not fill every core of its type or lacks
// sync_start, a participant count that does not match the launch, a block that ends while others
// wait. Like pipe_barrier(PIPE_ALL), it completes every pipe first (the --check-syncs model).
#pragma once

#include <cstdint>

#include "pto_cpu_stub.hpp"
#include "pto_types.hpp"

namespace pto {
namespace sim {

struct SyncAllCall {
    SyncCoreType core_type = SyncCoreType::AIVOnly;
    bool soft = false;
    int32_t used_cores = 0;  // soft: the participant count (0: the launch's)
    const void* workspace = nullptr;
};

// Blocks until every participant of the running launch has arrived (runtime/src/executor_syncall.cpp).
void syncall(const SyncAllCall& c);

}  // namespace sim

template <SyncCoreType CoreType = SyncCoreType::AIVOnly>
inline void SYNCALL() {
    pipe_barrier(PIPE_ALL);
    sim::syncall(sim::SyncAllCall{CoreType, false, 0, nullptr});
}

template <SyncAllMode Mode, SyncCoreType CoreType = SyncCoreType::AIVOnly, typename GlobalData>
inline void SYNCALL(GlobalData& gm_workspace, int32_t used_cores = 0) {
    pipe_barrier(PIPE_ALL);
    if constexpr (Mode == SyncAllMode::Hard) {
        sim::syncall(sim::SyncAllCall{CoreType, false, 0, nullptr});
    } else {
        sim::syncall(sim::SyncAllCall{CoreType, true, used_cores, gm_workspace.data()});
    }
}

}  // namespace pto
