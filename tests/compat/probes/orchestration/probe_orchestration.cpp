// Compatibility probe (hand-written, not generated): an orchestration file in the layout pypto
// emits (output-format.md §4) that uses every PTO2 name of the generated-code contract: parameter
// binding, batched alloc_tensors, views / transpose / reshape, all CoreTaskArgs add_* forms,
// scalars, launch_spec, explicit dependencies, AIC / AIV / mixed / dummy submits, runtime-allocated
// outputs and task ids, manual scopes, scalar tensor access, loops and ifs with nested scopes.
// compat_test compiles it against the real simpler headers and against ours.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default")))
PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& orch_args) {
  (void)orch_args;
  return PTO2OrchestrationConfig{.expected_arg_count = 4};
}

__attribute__((visibility("default")))
void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {
  const ChipTensor& ext_a = orch_args.tensor(0).ref();
  const ChipTensor& ext_b = orch_args.tensor(1).ref();
  const ChipTensor& ext_c = orch_args.tensor(2).ref();
  int64_t n = from_u64<int64_t>(orch_args.scalar(0));
  int64_t M = (int64_t)orch_args.tensor(0).ref().shapes[0];
  PTO2_SCOPE() {
    uint32_t t_ci_shapes[2] = {64, 64};
    TensorCreateInfo t_ci(t_ci_shapes, 2, DataType::FLOAT16);
    uint32_t u_ci_shapes[1] = {64};
    TensorCreateInfo u_ci(u_ci_shapes, 1, DataType::INT32);
    TaskOutputTensors alloc_0 = alloc_tensors(t_ci, u_ci);
    const ChipTensor& t = alloc_0.get_ref(0);
    const ChipTensor& u = alloc_0.get_ref(1);
    uint32_t vs[2] = {32, 64};
    uint32_t vo[2] = {32, 0};
    ChipTensor v = ext_a.view(vs, vo);
    ChipTensor tr = v.transpose(0, 1);
    uint32_t rs[1] = {2048};
    ChipTensor rsh = tr.reshape(rs, 1);
    ChipTensor acc = ext_c;
    CoreTaskArgs params_t0;
    params_t0.add_input(v);
    params_t0.add_inout(acc);
    params_t0.add_no_dep(rsh);
    params_t0.add_output(t);
    params_t0.add_output(t_ci);
    params_t0.add_scalar(to_u64(n));
    params_t0.add_scalar(to_u64(1.5f));
    params_t0.launch_spec.set_block_num(4);
    params_t0.launch_spec.set_require_sync_start(true);
    params_t0.set_allow_early_resolve(true);
    TaskOutputTensors o0 = rt_submit_aic_task(0, params_t0);
    const ChipTensor& made = o0.get_ref(0);
    PTO2TaskId tid = o0.task_id();
    CoreTaskArgs params_t1;
    params_t1.add_input(made);
    params_t1.add_inout(ext_b);
    PTO2TaskId d[2];
    uint32_t cnt = 0;
    if (tid.is_valid()) d[cnt++] = tid;
    d[cnt++] = PTO2TaskId::invalid();
    params_t1.set_dependencies(d, cnt);
    MixedKernels m = {0, 1, INVALID_KERNEL_ID};
    rt_submit_task(m, params_t1);
    CoreTaskArgs params_t2;
    params_t2.add_input(u);
    rt_submit_dummy_task(params_t2);
    for (int64_t i = 0; i < M; i += 16) {
      PTO2_SCOPE(PTO2ScopeMode::MANUAL) {
        uint32_t idx[2] = {0, (uint32_t)i};
        float x = get_tensor_data<float>(ext_a, 2, idx);
        set_tensor_data(ext_b, 2, idx, x);
      }
    }
    if (n > 0) {
      PTO2_SCOPE() { (void)rt_available_cluster_count(); (void)rt_available_aiv_count(); }
    } else {
      PTO2_SCOPE() {}
    }
  }
}

}  // extern "C"
