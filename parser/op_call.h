// Internal to the call builders (op_call.cpp, op_forms.cpp): binding a call's arguments to a
// registry op, and the op forms whose DSL spelling differs from their registry entry. Not a
// public header.
#pragma once

#include <string>
#include <vector>

#include "parser/builder.h"

namespace pypto::parser {

// Binds positional and keyword arguments to `op`'s operands and attributes (positional
// attributes fill its keywords in order) and builds the Call. `prebuilt[i]`, when set, is the
// already built operand i.
ir::ExprPtr op_call(FunctionBuilder& b, const ir::OpDef& op, const CallArgsCst& a, std::vector<ir::ExprPtr> prebuilt,
                    TSNode call);

// pld.<category>.<op>(...) and the short pld.<op>(...) forms.
ir::ExprPtr pld_call(FunctionBuilder& b, TSNode n, const std::vector<std::string>& parts);
// pl[.tile|.tensor].mrgsort: one list of sorted runs (block_len=) or 2-4 sorted lists. `family`
// is "tile", "tensor" or "" (by the first operand).
ir::ExprPtr mrgsort_call(FunctionBuilder& b, TSNode n, std::string family);
// pl[.tensor|.tile].gather / .scatter as the reference writes them: the mask form (mask_pattern=,
// and for scatter dst=) and the tensor index form with dim in second place, (input, dim, index[,
// src]). Null when the call is the registry's own form; prebuilt[0] may then hold the built
// first operand.
ir::ExprPtr gather_scatter_call(FunctionBuilder& b, TSNode n, const std::string& family, bool scatter,
                                std::vector<ir::ExprPtr>& prebuilt);

}  // namespace pypto::parser
