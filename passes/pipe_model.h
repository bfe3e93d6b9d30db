// The hardware pipe model shared by InsertPipeSync and its static checker (check_pipe_sync):
// which pipe executes each tile instruction (the op registry's pipe facts), which on-chip byte ranges /
// GM tensors it reads and writes (planned MemRef addresses, so tiles that share memory after
// reuse conflict), and how the sync ops (system.sync_src / sync_dst / bar_v / bar_all) read.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/function.h"
#include "ir/op_registry.h"

namespace pypto::passes {

// The pipe of each op is a registry fact (OpDef::pipe_rule, ir::call_pipe).
using ir::kNumPipes;
using ir::Pipe;
using ir::pipe_from_name;
using ir::pipe_name;

// One memory access of an instruction: bytes [lo, hi) of an on-chip space, or a whole GM tensor.
struct MemAccess {
  ir::MemorySpace space = ir::MemorySpace::DDR;
  const void* gm_root = nullptr;  // GM only: identity of the tensor's buffer
  int64_t lo = 0, hi = 0;
  bool write = false;
};
// Same buffer, overlapping bytes, at least one writer.
bool conflicts(const MemAccess& a, const MemAccess& b);

struct InstrInfo {
  Pipe pipe = Pipe::None;  // None: not a tile instruction (scalar code, views, allocs, syncs)
  std::vector<MemAccess> accesses;
};

enum class SyncKind : uint8_t { None, Set, Wait, BarrierV, BarrierAll };
struct SyncInfo {
  SyncKind kind = SyncKind::None;
  Pipe src = Pipe::None, dst = Pipe::None;
  int event = 0;
};

// Classification of the statements of one kernel function.
class PipeModel {
 public:
  explicit PipeModel(const ir::Function& f);
  // Pipe and accesses of an AssignStmt / EvalStmt holding a tile op; {None, {}} otherwise.
  InstrInfo classify(const ir::Stmt& s) const;
  // The sync op held by an EvalStmt, kind None otherwise.
  static SyncInfo sync_of(const ir::Stmt& s);

 private:
  const void* gm_root(const ir::ExprPtr& e) const;
  std::unordered_map<const ir::Var*, const void*> alias_;  // GM tensor var → root identity
};

// The op call of an AssignStmt / EvalStmt (nullptr for anything else or a function call).
const ir::Call* stmt_op_call(const ir::Stmt& s);

}  // namespace pypto::passes
