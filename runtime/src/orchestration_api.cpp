// pypto CPU runtime: the out-of-line PTO2 API entry points declared in pto_orchestration_api.h;
// each forwards to the executor running an orchestration on the calling thread.
#include <cstdio>
#include <cstdlib>

#include "pto_orchestration_api.h"
#include "pypto_rt/executor.h"

namespace {
pypto_rt::Executor& exec(const char* what) {
    pypto_rt::Executor* e = pypto_rt::Executor::current();
    if (!e) {
        std::fprintf(stderr, "pypto runtime: %s called outside an orchestration run\n", what);
        std::abort();
    }
    return *e;
}
}  // namespace

TaskOutputTensors pypto_rt_submit(const MixedKernels& mk, const CoreTaskArgs& args, uint32_t line) {
    return exec("rt_submit_task").submit(mk, args, false, line);
}
TaskOutputTensors pypto_rt_submit_dummy(const CoreTaskArgs& args, uint32_t line) {
    return exec("rt_submit_dummy_task").submit(MixedKernels{}, args, true, line);
}
TaskOutputTensors pypto_rt_alloc(const CoreTaskArgs& args) { return exec("alloc_tensors").alloc(args); }
void pypto_rt_scope_begin(PTO2ScopeMode mode) { exec("PTO2_SCOPE").scope_begin(mode); }
void pypto_rt_scope_end() { exec("PTO2_SCOPE").scope_end(); }
uint64_t pypto_rt_get_tensor_data(const ChipTensor& t, uint32_t ndims, const uint32_t idx[]) {
    return exec("get_tensor_data").get_tensor_data(t, ndims, idx);
}
void pypto_rt_set_tensor_data(const ChipTensor& t, uint32_t ndims, const uint32_t idx[], uint64_t value) {
    exec("set_tensor_data").set_tensor_data(t, ndims, idx, value);
}
int32_t pypto_rt_cluster_count() { return exec("rt_available_cluster_count").clusters(); }
int32_t pypto_rt_aiv_count() { return 2 * exec("rt_available_aiv_count").clusters(); }
