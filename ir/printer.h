// The IR printer: writes IR as DSL Python in the canonical text form of ir/TEXT_FORMAT.md (the
// contract with the front end: print → read → print is a fixed point). Output is deterministic:
// no pointers or ids, stable name disambiguation, one statement per line, 4-space indentation.
#pragma once

#include <string>

#include "ir/function.h"

namespace pypto::ir {

// A whole program: header comment, import, dynamic dims, `@pl.program class`, functions in
// topological order (callees first, ties by name).
std::string print_program(const Program& p);
// One function at indentation 0 (comments, decorator, signature, body).
std::string print_function(const Function& f);
// A statement (and its children) at indentation 0; free Vars print by their hints.
std::string print_stmt(const StmtPtr& s);
// An expression / a type annotation; free Vars print by their hints, MemRef bases as strings.
std::string print_expr(const ExprPtr& e);
std::string print_type(const TypePtr& t);
// Enums of the distributed module: their EnumLit::enum_name is "pld.<Enum>" (pld.WaitCmp, ...).
bool is_pld_enum(std::string_view enum_name);
// The spelling of an op attribute value (`pl.Mem.Vec`, `True`, `"round"`, `2.0`, `None`).
std::string print_attr(const AttrValue& v);
// Python float literal in shortest round-trip form that always contains '.' or 'e' ("2.0",
// "1e-06"); "inf" / "-inf" / "nan" for non-finite values (callers decide how to wrap those).
std::string format_float(double v);

}  // namespace pypto::ir
