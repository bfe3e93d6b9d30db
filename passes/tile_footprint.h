// On-chip footprint estimates shared by the passes that decide how many copies of a loop body's
// tiles may be live at once (LowerPipelineLoops' stages, SkewCrossCorePipeline's run-ahead sends):
// the bytes a statement list keeps live per memory space, peak over its statements, before
// MemoryReuse and AllocateMemoryAddr decide the real placement (alignment padding is ignored, so
// an admitted kernel can still overflow; AllocateMemoryAddr says so).
#pragma once

#include <map>
#include <unordered_map>
#include <vector>

#include "ir/function.h"

namespace pypto::passes {

using SpaceBytes = std::map<ir::MemorySpace, int64_t>;

// The bytes of the buffer a tile assignment makes: 0 for a copy, a view, an in-place result, or a
// tile without a memory space.
int64_t own_tile_bytes(const ir::AssignStmt& a);

// The peak bytes per space a statement list keeps live: tiles bound by its own statements live
// from their definition to their last use there; a nested loop / if / scope adds its own peak
// (one iteration, the larger arm) while it runs.
SpaceBytes peak_tile_bytes(const std::vector<ir::StmtPtr>& stmts);

// Every tile binding in `body` (a function's: the `defs` outside_tile_bytes takes).
using TileDefs = std::unordered_map<const ir::Var*, const ir::AssignStmt*>;
TileDefs tile_defs(const ir::StmtPtr& body);

// The bytes per space of the tiles `body` reads but does not bind, given every tile binding of the
// function (`defs`): they stay live while the body runs.
SpaceBytes outside_tile_bytes(const ir::StmtPtr& body, const TileDefs& defs);

}  // namespace pypto::passes
