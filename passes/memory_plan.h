// The memory plan of a compiled program, as data: per kernel and on-chip memory space, every
// tile's buffer -- the byte range AllocateMemoryAddr placed it at (after MemoryReuse shared it)
// against its live range in the kernel's statement numbering (buffer_lifetimes.h) -- and the
// space's capacity on the SoC. `pypto memplan` draws it (SVG) and writes it (JSON).
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/soc.h"

namespace pypto::passes {

struct PlannedTile {
  std::string name;  // the tile's Var
  std::string type;  // "[16, 64] FP32"
  std::string buffer;  // the allocation it lives in (after MemoryReuse: shared by several tiles)
  int64_t addr = 0, size = 0;  // bytes
  int def = 0, last = 0;       // live range, statements [def, last]
  ir::Span span;               // where it is defined
};

struct SpacePlan {
  ir::MemorySpace space;
  int64_t capacity = 0;  // the SoC's budget
  int64_t used = 0;      // highest byte any tile reaches
  std::vector<PlannedTile> tiles;  // by address, then definition
};

struct KernelPlan {
  std::string name;
  ir::FunctionType type;
  int statements = 0;  // the numbering's last statement
  std::vector<SpacePlan> spaces;  // in MemorySpace order, only spaces the kernel uses
};

// Needs the program after AllocateMemoryAddr (property AllocatedMemoryAddr): kernels without
// on-chip buffers are left out.
std::vector<KernelPlan> memory_plan(const ir::Program& program, ir::Soc soc);

}  // namespace pypto::passes
