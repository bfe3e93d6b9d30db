// Scalar IR expressions → C++ expressions (shared by the kernel and orchestration emitters):
// fully parenthesised, `int64_t` index arithmetic, Python floor semantics for `//` and `%` via
// the pypto_floordiv / pypto_floormod helpers (floor_helpers() is their definition text).
// Forms with no translation raise CompileError "not supported yet" at the expression's span.
#pragma once

#include <functional>
#include <string>

#include "ir/expr.h"

namespace pypto::emit {

using VarNamer = std::function<std::string(const ir::Var&)>;

std::string c_expr(const ir::ExprPtr& e, const VarNamer& name_of);
// C++ spelling of a scalar dtype ("int64_t" for INDEX, "float", "half", "bool", ...).
std::string c_type(ir::DataType t);
// Definitions of the floor helpers; `qualifier` goes before each (e.g. "__aicore__").
std::string floor_helpers(const std::string& qualifier);
// `// <file>:<line>: <source line text>` for a span ("" when the span has no source).
std::string source_comment(const ir::Span& sp);
// CompileError("E900", span, "<what> is not supported yet by the C++ emitter", hint).
[[noreturn]] void not_supported(const ir::Span& span, const std::string& what, const std::string& hint = {});

}  // namespace pypto::emit
