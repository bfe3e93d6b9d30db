// Helpers shared by the memory-planning passes (InitMemRef, MemoryReuse, AllocateMemoryAddr):
// building and recognising `tile.alloc` statements and reading a Var's MemRef.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "ir/function.h"
#include "ir/soc.h"

namespace pypto::passes {

// `base = tile.alloc(space, size)` (the op's two keyword attributes, in schema order).
ir::StmtPtr make_alloc_stmt(const ir::VarPtr& base, ir::MemorySpace space, int64_t size, const ir::Span& span);

struct AllocInfo {
  ir::VarPtr base;
  ir::MemorySpace space;
  int64_t size;
};
// The allocation a statement makes, if it is a `tile.alloc` assignment.
std::optional<AllocInfo> as_alloc(const ir::StmtPtr& s);

// MemRef of a tile/tensor-typed Var (nullptr when none).
const ir::MemRef* memref_of(const ir::TypePtr& t);
// The same type with its MemRef replaced.
ir::TypePtr with_memref_any(const ir::TypePtr& t, const ir::MemRef& m);

// Bytes a tile occupies in its memory space (Acc rows rounded up to the fractal height); nullopt
// for dynamic shapes.
std::optional<int64_t> tile_bytes(const ir::TileType& t, ir::Soc soc);

// Cross-core FIFO slot windows (mixed kernels): the `system.reserve_buffer` window each popped
// tile of `f` lands in (tile.tpop_from_* with id k → the function's pipe init with id k → its
// c2v / v2c consumer-buffer argument → the reserve_buffer that defined it). The window is the
// popped tile's buffer: InitMemRef names its base after the window and gives it no tile.alloc,
// AllocateMemoryAddr places the windows first. A pop whose pipe was given a plain address (a
// hand-written kernel) has no window here and keeps a buffer of its own.
struct FifoWindow {
  std::string name;
  int64_t size = 0;
};
std::unordered_map<const ir::Var*, FifoWindow> fifo_windows(const ir::Function& f);

// MX scale bindings (`b = tile.tget_scale_addr(scale, data)`, InsertMxScaleAddr): the cube reads
// a data tile's scales at its L0 address / 16, so the scale's buffer is placed there
// (AllocateMemoryAddr) and lives as long as its data buffer (MemoryReuse). One per binding, in
// program order, with the MemRefs of both tiles (bases of tile.alloc buffers).
struct ScaleBinding {
  const ir::Var* scale_base;  // the LeftScale / RightScale buffer
  const ir::Var* data_base;   // the Left / Right buffer
  ir::ExprPtr data_offset;    // the data tile's offset in its buffer
  ir::Span span;
  std::string scale_name, data_name;
};
std::vector<ScaleBinding> scale_bindings(const ir::Function& f);

}  // namespace pypto::passes
