// system op table (placeholder, filled in by the op-table work).
#include "ir/op_registry.h"
namespace pypto::ir {
void register_system_ops(OpRegistry& r) {}
}  // namespace pypto::ir
