// The reference interpreter (`pypto eval`, the oracle of `pypto test`): executes a program's IR —
// as the front end builds it, or after any pass — statement by statement, with each op's
// registered semantics (op_semantics.h). Calls pass tensors by handle; scopes (pl.at, pl.spmd,
// ...) run their body in place (an SPMD scope once per block); loops run in order. When a function
// returns a tensor for an Out / InOut parameter that lives in other storage, the values are
// written into the parameter's storage, as the compiled program writes its output buffers.
// Errors in the program (a window outside a tensor, an op without semantics) are CompileErrors
// located at the op.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/interp/value.h"

namespace pypto::ir::interp {

struct EvalInputs {
  std::map<std::string, Array> tensors;  // by parameter name: In and InOut parameters
  std::map<std::string, double> scalars;  // by parameter name
  std::map<std::string, std::vector<int64_t>> shapes;  // by parameter name: extents given for Out parameters
};

// The extents of every tensor parameter of `entry`, as bin/run sizes them: a static dim is its
// value; a dynamic dim that is a variable takes the value of the integer scalar parameter of
// its name (`scalars`), or of the same variable in any tensor whose extents are `given` (input
// arrays, --shape); a tensor in `given` keeps its extents. Throws CompileError (E603) at the
// parameter for a rank or static-dim mismatch, a variable bound to two values, or a dim nothing
// gives — the message says what would give it.
std::map<std::string, std::vector<int64_t>> entry_shapes(const Function& entry,
                                                         const std::map<std::string, std::vector<int64_t>>& given,
                                                         const std::map<std::string, double>& scalars);

struct EvalOutput {
  std::string name;  // the Out / InOut parameter
  Array value;
};

// The function `pypto eval` runs: the program's Orchestration function, else its only function,
// else the one function no other function calls. Throws CompileError (E600) naming the choices.
const Function& eval_entry(const Program& p);

// The entry's parameters with the shapes they take from `in` (Out parameters zero-filled at the
// extents entry_shapes gives them).
// Returns every Out / InOut parameter after the run, in parameter order.
std::vector<EvalOutput> evaluate(const Program& p, const Function& entry, const EvalInputs& in);

}  // namespace pypto::ir::interp
