// The emit table of orchestration code generation: one row per op that orchestration code
// executes directly — tensor ops on ChipTensor handles (output-format.md §4: allocation, views,
// scalar element access) and the TaskId ops of manual dependencies — saying which PTO2 API call
// spells it. Keyed by the op's registry entry
// (ir/op_table.h); the registry test checks that every op marked `orchestration` has a row.
#pragma once

#include <string_view>

#include "ir/op_table.h"

namespace pypto::emit {

enum class OrchForm : unsigned char {
  Create,     // TensorCreateInfo + alloc_tensors(...)                 tensor.create
  View,       // const ChipTensor v = src.view(shapes, offsets)        tensor.slice
  Reshape,    // const ChipTensor v = src.reshape(shapes, rank)        tensor.reshape
  Transpose,  // const ChipTensor v = src.transpose(a, b)              tensor.transpose
  Read,       // T v = get_tensor_data<T>(src, rank, idx)              tensor.read
  Write,      // set_tensor_data(src, rank, idx, value)                tensor.write
  Dim,        // int64_t v = src.shapes[axis]                          tensor.dim
  Dummy,      // const PTO2TaskId v = rt_submit_dummy_task(args).task_id()  system.task_dummy
  Invalid,    // PTO2TaskId::invalid()                                  system.task_invalid
  IsValid,    // tid.is_valid()                                         system.task_is_valid
  Query,      // const T v = rt_available_aiv_count();                  system.available_aiv_count / cluster
  ArrayNew,   // PTO2TaskId a[N]; (every slot invalid) / T a[N] = {};     array.create
  ArrayGet,   // T v = a[i];                                             array.get_element
  ArraySet,   // a[i] = v;  (the result is the same array)               array.update_element
};

struct OrchOpRow {
  std::string_view op;    // registry name
  std::string_view call;  // the PTO2 API function or ChipTensor method
  OrchForm form;
};

const ir::OpInfoTable<OrchOpRow>& orchestration_op_table();
inline const OrchOpRow* find_orchestration_op(const ir::OpDef& op) { return orchestration_op_table().find(op); }

}  // namespace pypto::emit
