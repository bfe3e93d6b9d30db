// tensor op table (placeholder, filled in by the op-table work).
#include "ir/op_registry.h"
namespace pypto::ir {
void register_tensor_ops(OpRegistry& r) {}
}  // namespace pypto::ir
