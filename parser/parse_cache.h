// The process's tree-sitter parses of source files. Each path and text is parsed once per process
// (`pypto check` loads a file's modules once for the file and again for each entry, and an import
// shared by several modules is read by each load): a later tree of it is a ts_tree_copy of the
// first, a reference count that is safe to use from another thread. parse_ahead hands files to a
// background pool that parses them (and checks their syntax) while the front end works on
// another, so a program's imports are parsed on the machine's other cores.
#pragma once

#include <atomic>
#include <memory>

#include <tree_sitter/api.h>

#include "ir/span.h"

namespace pypto::parser {

struct ParsedTree {
  TSTree* tree = nullptr;                    // the caller's copy (ts_tree_delete it)
  std::shared_ptr<std::atomic<bool>> clean;  // the text is known free of syntax errors (shared by the copies)
};

// A tree of `file`: the cached parse of the same path and text, the background parse of it (waited
// for, or taken over when it has not started), or a parse made now. Throws CompileError E004 for a
// text beyond the parser's limits (see parse_cache.cpp).
ParsedTree parsed_tree(const ir::SourceFilePtr& file);

// Queues a background parse and syntax check of `file` unless its path is already parsed, queued
// or being parsed (an edited text of that path is parsed when parsed_tree asks for it).
void parse_ahead(const ir::SourceFilePtr& file);

// A function each parse-ahead thread runs first (before its first parse): the process's memory
// policy for a thread that allocates much (cli/heap_prefault.h). Set it before any parse_ahead.
void set_parse_thread_init(void (*init)());

}  // namespace pypto::parser
