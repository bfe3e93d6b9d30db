// GM-tensor access facts shared by OutlineIncoreScopes and ConvertTensorToTileOps: which ops write
// a tensor operand (and which operand), whether a kernel reads and/or writes a tensor through any
// of its SSA aliases (the results of writes into it, loop carries seeded by it), the direction a
// written parameter earns (Out when only written, InOut when also read), and which loop carries
// hold computed values rather than GM tensors.
#pragma once

#include <vector>

#include "ir/function.h"

namespace pypto::passes {

// Index of the operand a tensor/tile op writes in GM (the registry's `written_tensor`:
// tensor.assemble/tensor.write → 0, tile.store → 2), or -1 when the op writes no GM operand.
int written_operand(const ir::Call& c);

struct TensorAccess {
  bool read = false;
  bool written = false;
};

// How `body` uses the GM tensor `root`: every write through a writer op's destination operand
// (following the write results and loop carries as aliases of `root`) and every other use as a
// read. Returning or yielding an alias is neither.
TensorAccess analyze_access(const ir::StmtPtr& body, const ir::Var& root);

// In → Out (written only) / InOut (written and read); other directions are kept.
ir::ParamDirection upgraded_direction(ir::ParamDirection d, const TensorAccess& a);

// A MakeTuple of INDEX constants / expressions (offsets and shapes of tile ops).
ir::ExprPtr index_list(const std::vector<ir::ExprPtr>& elems, const ir::Span& span = {});
ir::ExprPtr zero_offsets(size_t rank, const ir::Span& span = {});

// For each of the first `n` carries of a loop whose body is `body`: whether the body computes it
// (its yielded value will be a tile: the result of a tensor op that writes no operand, a copy of
// one, or the result of an if — either arm yields one — or of an inner loop whose body yields one;
// online softmax's `if lane == 0: oi = oi_sb else: oi = pl.add(oi, oi_sb)`), as opposed to a GM
// tensor the body stores into.
std::vector<bool> computed_carries(const ir::StmtPtr& body, size_t n);

}  // namespace pypto::passes
