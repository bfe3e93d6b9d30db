// Syntax errors of a parsed file (E002): what tree-sitter marks (ERROR and MISSING nodes), then
// what tree-sitter-python accepts although Python does not — a block without a statement
// (`def f():` at the end of the file, `if x:` followed by an unindented line) and a line break
// inside a statement outside brackets without a backslash (`import` / `b` read as `import b`).
#pragma once

#include <vector>

#include "ir/diagnostic.h"
#include "parser/cst.h"

namespace pypto::parser {

// At most 20 diagnostics; the strict checks run only on a tree without tree-sitter errors.
std::vector<ir::Diagnostic> syntax_errors(const CstTree& tree);
std::vector<ir::Diagnostic> syntax_errors(TSNode root, const ir::SourceFilePtr& file);

}  // namespace pypto::parser
