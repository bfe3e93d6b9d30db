// LowerCompositeOps' rule table, as the registry test sees it: which ops have an expansion
// recipe (every op the registry marks `composite` must have one, and only those).
#pragma once

#include <string_view>
#include <vector>

#include "ir/op_registry.h"

namespace pypto::passes {

bool has_composite_rule(const ir::OpDef& op);
// Rule names that match no registered op, or repeat one (must be empty).
const std::vector<std::string_view>& composite_rules_unknown();

}  // namespace pypto::passes
