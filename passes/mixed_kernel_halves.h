// The halves of a mixed kernel (ExpandMixedKernel): one side's copy of the kernel body, with the
// statements of the other side already left out and the crossings already turned into pushes and
// pops, is made a well-formed kernel of its own here:
//   * repair: a pure statement reading a value this side does not compute is dropped (its result
//     is then not computed either); a loop / if carry whose init or yielded values are not all on
//     this side is dropped; an effectful statement (a store, a push, a sync) reading such a value
//     is CompileError E504 naming the value and the side;
//   * dead code: pure statements, carries, and loops / ifs left without effect are removed, to a
//     fixpoint (the shared index arithmetic each side keeps only where it uses it);
//   * slot release: after the last use of each popped tile (and of the views sharing its buffer),
//     a system.tfree_to_* in pop order per direction; a popped tile leaving its block (yielded,
//     returned) is E504.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace pypto::passes {

struct HalfContext {
  std::string kernel;  // the mixed kernel's name, for diagnostics
  std::string side;    // "cube" / "vector"
  std::string other;   // the other side
};

// Repairs `body` (this side's copy of `kernel_body`) given the function parameters; a Var the
// kernel binds nowhere (a parameter, a module-level dynamic dimension) is defined on both sides.
// Return statements keep the values this side computes; `kept_returns` receives their indices.
ir::StmtPtr repair_half(const ir::StmtPtr& body, const ir::StmtPtr& kernel_body, const std::vector<ir::VarPtr>& params,
                        const HalfContext& cx, std::vector<size_t>& kept_returns);

// Removes dead pure code (to a fixpoint).
ir::StmtPtr remove_dead_code(const ir::StmtPtr& body);

// Inserts the slot releases of every pop in `body`; returns the largest number of popped tiles
// live at once per direction ({from AIC, from AIV}) so the caller can size the rings.
ir::StmtPtr insert_slot_releases(const ir::StmtPtr& body, const HalfContext& cx, int max_live[2]);

// Whether a statement's value is free of effects (so it may be dropped when unused).
bool pure_value(const ir::ExprPtr& value);

}  // namespace pypto::passes
