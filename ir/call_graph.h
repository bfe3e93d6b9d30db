// The call graph of a program: its functions in topological order over calls (callees first),
// ties and call cycles broken by function name, so the order is deterministic. The printer
// prints functions in this order.
#pragma once

#include <vector>

#include "ir/function.h"

namespace pypto::ir {

std::vector<const Function*> topo_order(const Program& p);

}  // namespace pypto::ir
