// The pypto executable's small-object allocator (small_alloc.cpp), which also serves operator new
// and delete. use_small_alloc_for_tree_sitter() routes tree-sitter's allocations (a node per
// token) through it; call it before the first parse (a block made before is still freed right).
#pragma once

namespace pypto::cli {

void use_small_alloc_for_tree_sitter();
// From now on every allocation comes from malloc (blocks the pool made are still freed right):
// for the interpreter's commands, whose threads come and go (small_alloc.cpp).
void small_alloc_off();

}  // namespace pypto::cli
