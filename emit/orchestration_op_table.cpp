// Orchestration emit table rows (orchestration_op_table.h); spellings follow output-format.md §4.
#include "emit/orchestration_op_table.h"

namespace pypto::emit {

namespace {
using F = OrchForm;
constexpr OrchOpRow kRows[] = {
    {"tensor.create", "alloc_tensors", F::Create},
    {"tensor.slice", "view", F::View},
    {"tensor.reshape", "reshape", F::Reshape},
    {"tensor.transpose", "transpose", F::Transpose},
    {"tensor.read", "get_tensor_data", F::Read},
    {"tensor.write", "set_tensor_data", F::Write},
    {"tensor.dim", "shapes", F::Dim},
    {"system.task_dummy", "rt_submit_dummy_task", F::Dummy},
    {"system.task_invalid", "PTO2TaskId::invalid", F::Invalid},
    {"system.task_is_valid", "is_valid", F::IsValid},
    {"system.available_aiv_count", "rt_available_aiv_count", F::Query},
    {"system.available_cluster_count", "rt_available_cluster_count", F::Query},
    {"array.create", "", F::ArrayNew},
    {"array.get_element", "", F::ArrayGet},
    {"array.update_element", "", F::ArraySet},
};
}  // namespace

const ir::OpInfoTable<OrchOpRow>& orchestration_op_table() {
  static const ir::OpInfoTable<OrchOpRow> table{std::span<const OrchOpRow>(kRows)};
  return table;
}

}  // namespace pypto::emit
