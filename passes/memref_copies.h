// The copies InitMemRef inserts before it lets Vars share one on-chip buffer (init_memref.cpp's
// header paragraph states the rule; memref_copies.cpp holds the liveness model that applies it).
#pragma once

#include "ir/function.h"

namespace pypto::passes {

// `f` (an InCore-like kernel in SSA form, memory spaces inferred) with a `tile.move` copy inserted
// at every sharing site — a loop's init or yielded value, an if arm's yielded value, an in-place
// op's operand — where one buffer would otherwise be written while another value it holds is
// still read. Returns `f` itself when no site needs a copy. Throws CompileError (E603) when a copy
// is needed in a memory space other than Vec (pto-isa has no same-space TMOV there).
ir::FunctionPtr insert_buffer_copies(const ir::FunctionPtr& f);

}  // namespace pypto::passes
