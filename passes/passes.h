// Factories of the individual passes, one per file (passes/<snake_name>.cpp). The default order
// lives in pipeline.cpp; this header only makes each pass constructible on its own (tests, the
// `pypto ir --passes` command).
#pragma once

#include "passes/pass.h"

namespace pypto::passes {

Pass check_program_forms_pass();
Pass inline_functions_pass();
Pass ctrl_flow_transform_pass();
Pass unroll_loops_pass();
Pass convert_to_ssa_pass();
Pass simplify_pass();
Pass check_window_bounds_pass();
Pass normalize_stmt_structure_pass();
Pass flatten_call_expr_pass();
Pass outline_incore_scopes_pass();
Pass outline_cluster_scopes_pass();
Pass bind_kernel_param_dims_pass();
Pass canonicalize_tile_slice_pass();
Pass insert_mx_scale_addr_pass();
Pass skew_cross_core_pipeline_pass();
Pass convert_tensor_to_tile_ops_pass();
Pass optimize_orch_tensors_pass();
Pass lower_composite_ops_pass();
Pass legalize_tile_cast_pass();
Pass flatten_tile_nd_to_2d_pass();
Pass auto_tile_matmul_l0_pass();
Pass infer_tile_memory_space_pass();
Pass resolve_backend_op_layouts_pass();
Pass expand_mixed_kernel_pass();
Pass inject_gm_pipe_buffer_pass();
Pass split_vector_kernel_pass();
Pass normalize_return_order_pass();
Pass lower_pipeline_loops_pass();
Pass canonicalize_io_order_pass();
Pass materialize_tensor_strides_pass();
Pass init_memref_pass();
Pass memory_reuse_pass();
Pass allocate_memory_addr_pass();
Pass fold_no_op_reshape_pass();
Pass fuse_create_assemble_to_slice_pass();
Pass derive_call_directions_pass();
Pass check_task_arg_limits_pass();
Pass check_syncall_launches_pass();
Pass auto_derive_task_dependencies_pass();
Pass expand_manual_phase_fence_pass();
Pass check_kernel_forms_pass();
Pass check_orchestration_forms_pass();
Pass materialize_runtime_scopes_pass();
Pass classify_iter_arg_carry_pass();
Pass plan_tensor_allocs_pass();

}  // namespace pypto::passes
