// Reference semantics of the system ops: synchronisation and barriers order nothing in a
// sequential interpreter (they are no-ops here; the runtime's --check-syncs checks them), block
// queries read the SPMD block being run, task handles are opaque counters.
#include "ir/interp/op_semantics.h"

namespace pypto::ir::interp {

void define_system(OpRegistry& r) {
  for (const char* f : {"system.sync_set", "system.sync_wait", "system.sync_src", "system.sync_dst", "system.bar_v",
                        "system.bar_m", "system.bar_all", "system.fence", "system.syncall", "system.cacheinvalid"})
    define(r, f, [](const OpEval&) { return Value{}; });
  for (const char* f : {"tile.get_block_idx", "tensor.get_block_idx"})
    define(r, f, [](const OpEval& e) { return Value::scalar(e.result_dtype(), double(e.block_idx)); });
  for (const char* f : {"tile.get_block_num", "tensor.get_block_num"})
    define(r, f, [](const OpEval& e) { return Value::scalar(e.result_dtype(), double(e.block_num)); });
  for (const char* f : {"tile.get_subblock_idx", "tensor.get_subblock_idx"})
    define(r, f, [](const OpEval& e) { return Value::scalar(e.result_dtype(), 0.0); });
  // An allocation is a handle; the interpreter gives each MemRef base its own storage.
  define(r, "tile.alloc", [](const OpEval&) { return Value{}; });
  // An invalid task handle is -1; any other handle is valid.
  define(r, "system.task_invalid", [](const OpEval&) { return Value::scalar(DataType::TASK_ID, -1.0); });
  define(r, "system.task_is_valid", [](const OpEval& e) { return Value::scalar(DataType::BOOL, e.num(0) >= 0 ? 1.0 : 0.0); });
  define(r, "system.task_dummy", [](const OpEval&) { return Value::scalar(DataType::TASK_ID, 0.0); });
}

}  // namespace pypto::ir::interp
