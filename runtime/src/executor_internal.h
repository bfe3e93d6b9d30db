// pypto CPU runtime: the executor's private records, shared by executor.cpp (scheduling) and
// executor_checks.cpp (the checkers' hooks and messages); mixed tasks' gangs are executor_gang.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <pto/pto_sim_context.hpp>

#include "executor_gang.h"
#include "executor_syncall.h"
#include "pypto_rt/executor.h"

namespace pypto_rt {

struct Executor::Task {
    uint64_t seq = 0;
    PTO2TaskId id = PTO2TaskId::invalid();
    MixedKernels mk;
    int block_num = 1;
    std::vector<ChipTensor> tensors;
    std::vector<uint64_t> scalars;
    uint32_t submit_line = 0;  // orchestration C++ line of the rt_submit_* call
    int pending = 1;  // unfinished producers (+1 while being submitted)
    int jobs_left = 0;
    bool done = false;
    bool mixed = false;                        // gang-scheduled (aic and aiv kernels)
    std::vector<std::unique_ptr<Gang>> gangs;  // mixed: one per block, made when it becomes ready
    bool sync_start = false;                   // launch_spec: all blocks start together
    // pl.system.syncall barriers, by (core type, soft), made at the first arrival; the jobs that
    // have ended (block * 3 + slot, failed), for barriers made after them.
    std::map<int, std::unique_ptr<BlockBarrier>> barriers;
    std::vector<std::pair<int, bool>> ended;
    std::vector<Task*> successors;
    std::vector<Task*> producers;  // to avoid duplicate edges
    // --trace: every dependency edge (also on producers already finished), with its reasons, and
    // the argument tags.
    std::vector<std::pair<const Task*, uint8_t>> trace_deps;
    std::vector<TensorArgType> trace_tags;
};

// What the tile API's hooks need to know about one dispatch (KernelContext::job).
struct Executor::JobContext {
    Executor* ex;
    const Task* task;
    const KernelInfo* kernel;
    int kernel_id;
    int block;
    int sub_block;
    bool pure;  // holds a run slot (Job::pure)
    pto::sim::GmView views[CORE_MAX_TENSOR_ARGS];
    std::vector<GmTouch> touches;  // --check-races
};

}  // namespace pypto_rt
