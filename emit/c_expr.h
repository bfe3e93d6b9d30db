// Scalar IR expressions → C++ expressions (shared by the kernel and orchestration emitters):
// fully parenthesised, `int64_t` index arithmetic, Python floor semantics for `//` and `%` via
// the pypto_floordiv / pypto_floormod helpers (floor_helpers() is their definition text).
// Every form it meets has a translation: the form checks (passes/form_rules.h) reject the others
// before emission, so meeting one is an InternalError (unreachable_form).
#pragma once

#include <functional>
#include <string>
#include <string_view>

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
// A form a pass, a type rule or a verified property rejects reached an emitter: a pypto bug, not a
// user error. InternalError(emitter, "<what> (<by> rejects it before emission)", span).
[[noreturn]] void unreachable_form(std::string_view emitter, const ir::Span& span, const std::string& what,
                                   std::string_view by);
// Who rejects the forms the shared printer cannot write (passes/form_rules.h).
inline constexpr std::string_view kFormChecks = "CheckKernelForms / CheckOrchestrationForms";

}  // namespace pypto::emit
