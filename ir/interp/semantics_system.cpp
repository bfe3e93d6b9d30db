// Reference semantics of the system ops: pipe synchronisation orders nothing in a sequential
// interpreter (no-ops here; the runtime's --check-syncs checks them), pl.system.syncall waits for
// the other blocks of its launch (which then run together), the launch-shape queries give
// bin/run's default machine (2 clusters), block
// queries read the SPMD block being run, task handles are opaque counters. The cross-core FIFO ops
// move whole tiles through the running mixed task's FIFO (ir/interp/gang.h): a push hands over a
// copy, a pop takes the oldest (waiting for its push), a release and the pipe set-up do nothing.
// An L2 prefetch changes no value (its wait has always completed).
#include "ir/interp/op_semantics.h"

#include <fmt/format.h>

#include <algorithm>

namespace pypto::ir::interp {

void define_system(OpRegistry& r) {
  for (const char* f : {"system.sync_set", "system.sync_wait", "system.sync_src", "system.sync_dst", "system.bar_v",
                        "system.bar_m", "system.bar_all", "system.fence", "system.cacheinvalid"})
    define(r, f, [](const OpEval&) { return Value{}; });
  // The all-core barrier: the blocks of its launch run together (the interpreter's Gang of blocks).
  // Outside a launch of several blocks it has nobody to wait for.
  define(r, "system.syncall", [](const OpEval& e) {
    if (e.launch) e.launch->barrier(e);
    return Value{};
  });
  // The launch geometry of the machine bin/run simulates by default (--clusters 2: 2 AIC + 4 AIV).
  constexpr int64_t kClusters = 2;
  define(r, "system.available_cluster_count", [](const OpEval& e) { return Value::scalar(e.result_dtype(), double(kClusters)); });
  define(r, "system.available_aiv_count", [](const OpEval& e) { return Value::scalar(e.result_dtype(), double(2 * kClusters)); });
  for (const char* f : {"tile.get_block_idx", "tensor.get_block_idx"})
    define(r, f, [](const OpEval& e) { return Value::scalar(e.result_dtype(), double(e.block_idx)); });
  for (const char* f : {"tile.get_block_num", "tensor.get_block_num"})
    define(r, f, [](const OpEval& e) { return Value::scalar(e.result_dtype(), double(e.block_num)); });
  for (const char* f : {"tile.get_subblock_idx", "tensor.get_subblock_idx"})
    define(r, f, [](const OpEval& e) { return Value::scalar(e.result_dtype(), e.fifo ? double(e.fifo->lane()) : 0.0); });
  // An allocation is a handle; the interpreter gives each MemRef base its own storage.
  define(r, "tile.alloc", [](const OpEval&) { return Value{}; });
  // An invalid task handle is -1; any other handle is valid.
  define(r, "system.task_invalid", [](const OpEval&) { return Value::scalar(DataType::TASK_ID, -1.0); });
  define(r, "system.task_is_valid", [](const OpEval& e) { return Value::scalar(DataType::BOOL, e.num(0) >= 0 ? 1.0 : 0.0); });
  define(r, "system.task_dummy", [](const OpEval&) { return Value::scalar(DataType::TASK_ID, 0.0); });
  // A prefetch warms L2 and changes no value: its handles are nothing, a wait has completed.
  for (const char* f : {"prefetch.make_context", "prefetch.async_prefetch", "prefetch.session"})
    define(r, f, [](const OpEval&) { return Value{}; });
  define(r, "prefetch.wait", [](const OpEval&) { return Value::scalar(DataType::BOOL, 1.0); });
  auto fifo = [](const OpEval& e) -> CrossCoreFifo& {
    if (!e.fifo) e.fail(fmt::format("pl.{} outside a mixed AIC + AIV task", e.call.op->name));
    return *e.fifo;
  };
  define(r, "tile.tpush_to_aiv", [fifo](const OpEval& e) { return fifo(e).push(0, Value::array(e.arr(0).copy()), e), Value{}; });
  define(r, "tile.tpush_to_aic", [fifo](const OpEval& e) { return fifo(e).push(1, Value::array(e.arr(0).copy()), e), Value{}; });
  define(r, "tile.tpop_from_aic", [fifo](const OpEval& e) { return fifo(e).pop(0, e); });
  define(r, "tile.tpop_from_aiv", [fifo](const OpEval& e) { return fifo(e).pop(1, e); });
  for (const char* f : {"system.tfree_to_aic", "system.tfree_to_aiv", "system.aic_initialize_pipe", "system.aiv_initialize_pipe"})
    define(r, f, [](const OpEval&) { return Value{}; });
  for (const char* f : {"system.reserve_buffer", "system.import_peer_buffer"})
    define(r, f, [](const OpEval& e) { return Value::scalar(DataType::INT32, double(std::max<int64_t>(0, e.kw_int("base", 0)))); });
}

}  // namespace pypto::ir::interp
