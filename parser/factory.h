// Factories: a module-level builder function that defines a @pl.program class (or @pl.jit
// function) in its body and returns it, parameterised by its arguments —
// `def build_paged_attention_program(batch, num_heads, ..., q_tile=16)`. `--entry build_x` selects
// one; its arguments are its keyword defaults, overridden by `--factory-arg k=v`. The body runs in
// the constant evaluator (assignments, if/for/assert over constants, calls of builder functions
// that return DSL functions); the DSL definitions it makes see its local variables as their
// closure, and DSL functions it got from builders are values in that closure.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "parser/module_scan.h"

namespace pypto::parser {

struct FactoryOutcome {
  EntryDecl entry;                        // the returned @pl.program / @pl.jit
  std::optional<FuncDecl> entry_function;  // for a returned @pl.jit function
};

// Runs factory `name` of `mod` with `args` (NAME → Python expression text). Throws CompileError:
// an unknown or missing argument, one whose value contradicts the parameter's annotation (int,
// float, bool, str), a body outside the constant subset (located at the statement that leaves
// it), or a return value that is not one of the DSL definitions it made.
FactoryOutcome run_factory(ModuleInfo& mod, const std::string& name, const std::map<std::string, std::string>& args);

}  // namespace pypto::parser
