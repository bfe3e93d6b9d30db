// pypto CPU runtime: the executor's private records, shared by executor.cpp (scheduling) and
// executor_checks.cpp (the checkers' hooks and messages).
#pragma once

#include <cstdint>
#include <vector>

#include <pto/pto_sim_context.hpp>

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
    std::vector<Task*> successors;
    std::vector<Task*> producers;  // to avoid duplicate edges
};

// What the tile API's hooks need to know about one dispatch (KernelContext::job).
struct Executor::JobContext {
    Executor* ex;
    const Task* task;
    const KernelInfo* kernel;
    int kernel_id;
    int block;
    int sub_block;
    pto::sim::GmView views[CORE_MAX_TENSOR_ARGS];
    std::vector<GmTouch> touches;  // --check-races
};

}  // namespace pypto_rt
