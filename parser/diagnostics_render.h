// Presentation of diagnostics: rustc-style text (with the source line and carets under the span)
// and JSON for tools.
//
// Text:
//   error[E200]: Undefined variable 'x'
//     --> prog.py:12:9
//      |
//   12 |         y = x + 1
//      |             ^
//      = help: <hint>
// JSON: an array with one object per diagnostic:
//   {"severity": "error", "code": "E200", "message": "...", "file": "prog.py", "line": 12,
//    "col": 13, "end_line": 12, "end_col": 14, "hint": "..."}
// (line/col 1-based, end exclusive; 0 when the diagnostic has no location).
#pragma once

#include <string>
#include <vector>

#include "ir/diagnostic.h"

namespace pypto::parser {

std::string render_diagnostic(const ir::Diagnostic& d, bool color);
std::string render_diagnostics_json(const std::vector<ir::Diagnostic>& diags);

}  // namespace pypto::parser
