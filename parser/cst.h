// Thin helpers over tree-sitter CST nodes (TSNode): node kind, source text, fields, named
// children without comments, and the conversion of a node's extent to an ir::Span.
// tree-sitter points are 0-based row/byte-column; ir::Span is 1-based with an exclusive end.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "ir/span.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace pypto::parser {

// A top-level `def` left out of its module's tree (an imported module's plain function: no
// decorator, no `@` in it), parsed when the front end first needs it. [start_byte, end_byte) ends
// after the line break of its last line of code; rows are 0-based.
struct DeferredDef {
  std::string name;
  uint32_t start_byte = 0, end_byte = 0;
  uint32_t start_row = 0;
  uint32_t last_row = 0;  // the row of its last line of code
};

// One parsed file: owns its copy of the file's tree (RAII; the parse itself is the process's one
// parse of this path and text, parse_cache.h) and the SourceFile. `whole` = false lets the tree
// leave out the file's plain top-level defs (an imported module, parse_cache.h): deferred() lists
// them, and deferred_node parses one when it is first needed.
class CstTree {
 public:
  explicit CstTree(ir::SourceFilePtr file, bool whole = true);
  ~CstTree();
  CstTree(const CstTree&) = delete;
  CstTree& operator=(const CstTree&) = delete;
  TSNode root() const;
  const ir::SourceFilePtr& file() const { return file_; }
  // Whether this text was already found free of syntax errors (by any tree of it in this process).
  bool syntax_clean() const { return clean_ && clean_->load(); }
  void mark_syntax_clean() const {
    if (clean_) clean_->store(true);
  }
  // The plain top-level defs the tree leaves out, in source order.
  const std::vector<DeferredDef>& deferred() const;
  // The function_definition of deferred()[i], parsed on first use (and syntax-checked: throws
  // CompileError with its syntax errors).
  TSNode deferred_node(size_t i) const;
  // Is `n` a node of this file (of its tree or of a deferred def's)?
  bool holds(TSNode n) const;

 private:
  ir::SourceFilePtr file_;
  TSTree* tree_ = nullptr;  // ts_tree_copy of the cached parse (parse_cache.cpp)
  std::shared_ptr<std::atomic<bool>> clean_;
  std::shared_ptr<const std::vector<DeferredDef>> deferred_;
  mutable std::mutex def_mu_;
  mutable std::vector<TSTree*> def_trees_;  // the deferred defs' trees made so far (copies)
  mutable std::vector<TSNode> def_nodes_;   // by index into deferred_ (null: not parsed yet)
};

// The grammar's symbol names by (public) symbol, built once: ts_node_type looks the name up and
// the string_view then measures it, for every `is` the front end asks.
std::string_view symbol_name(TSSymbol sym);
inline std::string_view kind(TSNode n) { return ts_node_is_null(n) ? std::string_view{} : symbol_name(ts_node_symbol(n)); }
inline bool is(TSNode n, std::string_view k) { return kind(n) == k; }
inline bool is_null(TSNode n) { return ts_node_is_null(n); }
TSNode field(TSNode n, const char* name);
bool is_comment(TSNode n);
// Builds the symbol and field tables now. An object whose threads use them until its destructor
// (the parse-ahead pool) calls this first, so that the tables, made earlier, outlive it at exit.
void build_cst_tables();
// Named children, skipping comments.
std::vector<TSNode> children(TSNode n);

// Pre-order walk of every node under `root` (itself included, named and anonymous) with a tree
// cursor: nothing is allocated per node and no recursion, however deep the tree. `visit(node)`
// says whether to go into the node's children, pass them by, or end the walk.
enum class Walk { Descend, Skip, Stop };
template <class F>
void walk_tree(TSNode root, F&& visit) {
  if (ts_node_is_null(root)) return;
  TSTreeCursor cur = ts_tree_cursor_new(root);
  for (;;) {
    const Walk w = visit(ts_tree_cursor_current_node(&cur));
    if (w == Walk::Stop) break;
    if (w == Walk::Descend && ts_tree_cursor_goto_first_child(&cur)) continue;
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cur)))
      if (!ts_tree_cursor_goto_parent(&cur)) break;
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cur);
}
// All children for a repeated field (e.g. subscript's `subscript`).
std::vector<TSNode> field_children(TSNode n, const char* name);
std::string text(TSNode n, const ir::SourceFile& f);
ir::Span span_of(TSNode n, const ir::SourceFilePtr& f);
// Span covering [a.start, b.end).
ir::Span span_between(TSNode a, TSNode b, const ir::SourceFilePtr& f);

// Bounds the walkers' recursion over the CST, so pathologically deep nesting (thousands of
// parentheses, a 20,000-term sum, hundreds of nested blocks) is a diagnostic (E004) rather than
// a stack overflow. Each walker keeps one counter; every recursive entry point holds a guard.
constexpr int kMaxNestingDepth = 200;
class NestingGuard {
 public:
  NestingGuard(int& depth, TSNode at, const ir::SourceFilePtr& f);
  ~NestingGuard() { --depth_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  int& depth_;
};
// Strips parenthesized_expression wrappers.
TSNode unparen(TSNode n);
// "pl.tile.load" for nested attribute chains over identifiers; "" when the node is not such a chain.
std::string dotted_name(TSNode n, const ir::SourceFile& f);
// Value of a string literal node (no interpolation; simple escapes decoded); false when `n`
// is not a plain string.
bool string_value(TSNode n, const ir::SourceFile& f, std::string& out);

}  // namespace pypto::parser
