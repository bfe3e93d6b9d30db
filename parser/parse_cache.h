// The process's tree-sitter parses of source files. Each path and text is parsed once per process
// (`pypto check` loads a file's modules once for the file and again for each entry, and an import
// shared by several modules is read by each load): a later tree of it is a ts_tree_copy of the
// first, a reference count that is safe to use from another thread. parse_ahead hands files to a
// background pool that parses them (and checks their syntax) while the front end works on
// another, so a program's imports are parsed on the machine's other cores.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <tree_sitter/api.h>

#include "ir/span.h"
#include "parser/cst.h"

namespace pypto::parser {

struct ParsedTree {
  TSTree* tree = nullptr;                    // the caller's copy (ts_tree_delete it)
  std::shared_ptr<std::atomic<bool>> clean;  // the text is known free of syntax errors (shared by the copies)
  // The defs the tree leaves out, in source order (empty for a whole parse).
  std::shared_ptr<const std::vector<DeferredDef>> deferred;
};

// A tree of `file`: the cached parse of the same path and text, the background parse of it (waited
// for, or taken over when it has not started), or a parse made now. Throws CompileError E004 for a
// text beyond the parser's limits (see prescan.h).
//
// `whole` = false (an imported module) allows the tree to leave out the module's plain top-level
// functions (DeferredDef): tree-sitter costs about a thousand instructions per byte, and most of
// a model library's helpers (golden references, tensor-spec builders) are never run at compile
// time. A text whose parse without them shows an error is parsed whole instead, so syntax errors
// outside deferred defs are reported as before; an error inside a deferred def is reported when
// the def is used (parsed_def). The file named on the command line is always parsed whole.
ParsedTree parsed_tree(const ir::SourceFilePtr& file, bool whole = true);

// The tree of one deferred def of `file`: a module holding that function_definition alone (a parse
// of its range, made once per process), or, should that parse not give exactly the def, a whole
// parse of the file (find the def in it by its start byte).
ParsedTree parsed_def(const ir::SourceFilePtr& file, const DeferredDef& def);

// Queues a background parse and syntax check of `file` unless its path is already parsed, queued
// or being parsed (an edited text of that path is parsed when parsed_tree asks for it).
void parse_ahead(const ir::SourceFilePtr& file);

// A function each parse-ahead thread runs first (before its first parse): the process's memory
// policy for a thread that allocates much (cli/heap_prefault.h). Set it before any parse_ahead.
void set_parse_thread_init(void (*init)());

}  // namespace pypto::parser
