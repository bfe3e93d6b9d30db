// The broadcast lowering of ConvertTensorToTileOps: which tile op a tensor-level binary
// elementwise op becomes when its operands have different shapes (numpy broadcasting, which the
// type rule accepts but the equal-shape tile instructions TADD, TMUL, ... cannot compute).
#pragma once

#include "ir/op_registry.h"

namespace pypto::passes {

struct BroadcastLowering {
  const ir::OpDef* tile;  // the tile op to call
  bool swap;              // call it with (rhs, lhs): a commutative op whose broadcast operand is lhs
};

// For a tensor op whose tile form needs equal operand shapes (OpDef::same_shapes): the tile form
// itself when the operands' static shapes agree (or are dynamic: the loads reject those), else
// the op's registry broadcast form for 2-D [R, C] with [1, C] (col_broadcast) or [R, 1]
// (row_broadcast), the full operand first. Anything else is an E501 CompileError at the call.
BroadcastLowering broadcast_lowering(const ir::Call& c);

}  // namespace pypto::passes
