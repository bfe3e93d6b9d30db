// The lexical pre-pass tree-sitter's parse of a file goes through (parse_cache.cpp).
//
// tree-sitter 0.20.7 (Debian 12's libtree-sitter) corrupts its heap when error recovery meets a
// parse stack deeper than 65535 entries, so a statement of more than 50,000 tokens, or brackets
// nested more than kMaxNestingDepth deep (as CPython's tokenizer refuses them), are refused here
// with E004 before tree-sitter runs.
//
// The same scan finds the top-level statements (a line that starts in column 0 outside brackets,
// strings and continuations; decorator lines belong to the definition under them) and, when
// asked, the plain `def`s among them that an imported module's parse may leave out (DeferredDef,
// cst.h): no decorator on them or on a line inside them, and no indented comment between their
// last line of code and the next statement. A text that ends inside a bracket or has an
// unterminated string defers nothing (its whole parse reports the error).
#pragma once

#include <vector>

#include "ir/span.h"
#include "parser/cst.h"

namespace pypto::parser {

// Throws CompileError E004 for a text beyond the parser's limits; returns the deferrable defs
// in source order when `want_defs` (else none).
std::vector<DeferredDef> prescan(const ir::SourceFilePtr& f, bool want_defs);

}  // namespace pypto::parser
