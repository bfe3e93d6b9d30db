// tile op table (placeholder, filled in by the op-table work).
#include "ir/op_registry.h"
namespace pypto::ir {
void register_tile_ops(OpRegistry& r) {}
}  // namespace pypto::ir
