// Structural equality and hashing of IR (ir-and-passes.md §1.5).
//
// Ignored: spans, Var name hints, comments, scope name hints, the program name, and how
// statements are grouped into (nested) SeqStmts. Binding sites
// (assignment targets, loop vars, iter_args, return_vars, function params, program dynamic dims,
// and MemRef bases at their first occurrence — DDR bases have no other binding site) map left to
// right bijectively, so two independently built programs compare equal while `x + x` != `y + z`.
// Unmapped (free) Vars compare by identity. Types are compared fully at binding sites (dtype,
// shape expressions, memory space, views, MemRef base/offset/size); the types of Calls and
// operators are derived from their operands and not compared again (Cast's target is).
// Calls compare op identity (same OpDef) or callee name, arguments, kwargs and arg_directions.
// Function names are compared (callee references are names).
//
// The hash agrees with equality (equal ⇒ same hash) and is deterministic: bound Vars are numbered
// by first binding occurrence, free Vars contribute their name hint; never pointers or ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/function.h"

namespace pypto::ir {

struct EqualResult {
  bool equal = true;
  std::string path;     // first mismatch: "function 'main' / body / stmt[2] / value / args[1]"
  std::string message;  // "ConstInt value mismatch (3 != 4)"
  Span lhs_span, rhs_span;
};

// The statements of a body as equality and hashing see them: nested SeqStmts are spliced in
// (grouping has no meaning and the text form cannot show it), null statements dropped.
std::vector<StmtPtr> flatten_stmts(const StmtPtr& body);

EqualResult structural_equal(const Program& a, const Program& b);
EqualResult structural_equal(const Function& a, const Function& b);
bool structural_equal(const ExprPtr& a, const ExprPtr& b);
// Same as the bool form, with the mismatch path and message.
EqualResult structural_equal_detail(const ExprPtr& a, const ExprPtr& b);

uint64_t structural_hash(const Program& p);
uint64_t structural_hash(const Function& f);
uint64_t structural_hash(const ExprPtr& e);

}  // namespace pypto::ir
