// Functions and programs. A Function has typed parameter Vars with directions, return types, a
// body, and its placement (FunctionType, level, role). A Program is a named set of functions
// kept sorted by name (deterministic output) plus the module-level dynamic dims.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace pypto::ir {

struct Function {
  std::string name;
  std::vector<VarPtr> params;
  std::vector<ParamDirection> param_directions;  // same length as params
  std::vector<TypePtr> return_types;
  StmtPtr body;
  FunctionType type = FunctionType::Opaque;
  std::optional<Level> level;
  std::optional<Role> role;
  bool auto_scope = true;
  Span span;
  std::vector<std::string> leading_comments;  // docstring / comments before the body
};
using FunctionPtr = std::shared_ptr<const Function>;

struct Program {
  std::string name;
  std::vector<FunctionPtr> functions;     // sorted by name
  std::vector<VarPtr> dynamic_dims;       // module-level pl.dynamic("M") symbols
  Span span;

  FunctionPtr find(std::string_view fname) const;
};
using ProgramPtr = std::shared_ptr<const Program>;

// A program from a list of functions (sorts them by name).
ProgramPtr make_program(std::string name, std::vector<FunctionPtr> functions,
                        std::vector<VarPtr> dynamic_dims = {}, Span span = {});
// Copy of `f` with a new body (and optionally new params / return types kept).
FunctionPtr with_body(const Function& f, StmtPtr body);

}  // namespace pypto::ir
