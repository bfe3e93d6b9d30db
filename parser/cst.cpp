// CST helper implementations (see cst.h).
#include "parser/cst.h"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_map>

#include "ir/diagnostic.h"
#include "parser/parse_cache.h"
#include "parser/syntax_check.h"

namespace pypto::parser {

namespace {

// Field ids of the Python grammar by name, built once. ts_node_child_by_field_name looks the name
// up with a linear strncmp scan over all field names on every call, and `field` is called for
// almost every node the front end visits (it was ~5% of the front end's instructions).
TSFieldId field_id(const char* name) {
  static const auto ids = [] {
    std::unordered_map<std::string_view, TSFieldId> m;
    const TSLanguage* lang = tree_sitter_python();
    const auto count = TSFieldId(ts_language_field_count(lang));
    for (TSFieldId id = 1; id <= count; ++id)
      if (const char* n = ts_language_field_name_for_id(lang, id)) m.emplace(n, id);
    return m;
  }();
  auto it = ids.find(name);
  return it == ids.end() ? TSFieldId(0) : it->second;
}

// The `comment` symbol (comments are extras and may appear among any node's children).
TSSymbol comment_symbol() {
  static const TSSymbol sym = ts_language_symbol_for_name(tree_sitter_python(), "comment", 7, true);
  return sym;
}

// One tree cursor per thread, re-pointed with ts_tree_cursor_reset: creating a cursor allocates,
// and the child lists below are built for nearly every node. (Not reentrant: the loops using it
// call nothing that iterates children.)
TSTreeCursor& shared_cursor(TSNode n) {
  struct Holder {
    TSTreeCursor cur;
    bool live = false;
    ~Holder() {
      if (live) ts_tree_cursor_delete(&cur);
    }
  };
  thread_local Holder h;
  if (h.live) {
    ts_tree_cursor_reset(&h.cur, n);
  } else {
    h.cur = ts_tree_cursor_new(n);
    h.live = true;
  }
  return h.cur;
}

}  // namespace

CstTree::CstTree(ir::SourceFilePtr file, bool whole) : file_(std::move(file)) {
  ParsedTree t = parsed_tree(file_, whole);
  tree_ = t.tree;
  clean_ = std::move(t.clean);
  deferred_ = std::move(t.deferred);
  if (deferred_) def_nodes_.resize(deferred_->size());
}

CstTree::~CstTree() {
  if (tree_) ts_tree_delete(tree_);
  for (TSTree* t : def_trees_) ts_tree_delete(t);
}

const std::vector<DeferredDef>& CstTree::deferred() const {
  static const std::vector<DeferredDef> none;
  return deferred_ ? *deferred_ : none;
}

bool CstTree::holds(TSNode n) const {
  if (n.tree == tree_) return true;
  std::lock_guard<std::mutex> lk(def_mu_);
  return std::find(def_trees_.begin(), def_trees_.end(), n.tree) != def_trees_.end();
}

TSNode CstTree::deferred_node(size_t i) const {
  std::lock_guard<std::mutex> lk(def_mu_);
  if (!ts_node_is_null(def_nodes_.at(i))) return def_nodes_[i];
  const DeferredDef& d = (*deferred_)[i];
  ParsedTree t = parsed_def(file_, d);
  def_trees_.push_back(t.tree);
  // The def is the module's one statement, or (a whole parse) the top-level statement at its byte.
  TSNode def{};
  for (TSNode top : children(ts_tree_root_node(t.tree)))
    if (ts_node_start_byte(top) == d.start_byte) def = top;
  if (ts_node_is_null(def) || !is(def, "function_definition")) {
    auto errs = syntax_errors(ts_tree_root_node(t.tree), file_);
    if (!errs.empty()) throw ir::CompileError(std::move(errs));
    throw ir::CompileError("E002", ir::Span{}, fmt::format("internal error (parser): '{}' at byte {} of {} is not a def",
                                                           d.name, d.start_byte, file_->path));
  }
  if (!t.clean->load()) {
    if (auto errs = syntax_errors(def, file_); !errs.empty()) throw ir::CompileError(std::move(errs));
    t.clean->store(true);
  }
  def_nodes_[i] = def;
  return def;
}

TSNode CstTree::root() const { return ts_tree_root_node(tree_); }

TSNode field(TSNode n, const char* name) {
  if (ts_node_is_null(n)) return n;
  TSFieldId id = field_id(name);
  if (id == 0) return TSNode{};
  return ts_node_child_by_field_id(n, id);
}

std::string_view symbol_name(TSSymbol sym) {
  static const std::vector<std::string_view> names = [] {
    const TSLanguage* lang = tree_sitter_python();
    std::vector<std::string_view> v(ts_language_symbol_count(lang));
    for (uint32_t i = 0; i < v.size(); ++i)
      if (const char* n = ts_language_symbol_name(lang, TSSymbol(i))) v[i] = n;
    return v;
  }();
  // ERROR (ts_builtin_sym_error, 65535) and other builtins beyond the table: tree-sitter's names.
  return sym < names.size() ? names[sym] : std::string_view(ts_language_symbol_name(tree_sitter_python(), sym));
}

void build_cst_tables() {
  (void)field_id("name");
  (void)symbol_name(0);
  (void)comment_symbol();
}

bool is_comment(TSNode n) { return !ts_node_is_null(n) && ts_node_symbol(n) == comment_symbol(); }

// ts_node_named_child(n, i) restarts from the first child on every call, so indexing through a
// block of k statements costs O(k^2); a cursor is linear but each step costs ~500 instructions
// (it re-derives its position through the grammar's hidden nodes). Indexing is cheaper for the
// small nodes that make up most calls (argument lists, tuples), the cursor for long blocks.
std::vector<TSNode> children(TSNode n) {
  std::vector<TSNode> out;
  if (ts_node_is_null(n)) return out;
  const uint32_t count = ts_node_named_child_count(n);
  out.reserve(count);
  if (count <= 8) {
    for (uint32_t i = 0; i < count; ++i) {
      TSNode ch = ts_node_named_child(n, i);
      if (!is_comment(ch)) out.push_back(ch);
    }
    return out;
  }
  TSTreeCursor& cur = shared_cursor(n);
  if (ts_tree_cursor_goto_first_child(&cur)) {
    do {
      TSNode ch = ts_tree_cursor_current_node(&cur);
      if (ts_node_is_named(ch) && !is_comment(ch)) out.push_back(ch);
    } while (ts_tree_cursor_goto_next_sibling(&cur));
  }
  return out;
}

std::vector<TSNode> field_children(TSNode n, const char* name) {
  std::vector<TSNode> out;
  if (ts_node_is_null(n)) return out;
  TSFieldId id = field_id(name);
  if (id == 0) return out;
  TSTreeCursor& cur = shared_cursor(n);
  if (ts_tree_cursor_goto_first_child(&cur)) {
    do {
      if (ts_tree_cursor_current_field_id(&cur) == id) out.push_back(ts_tree_cursor_current_node(&cur));
    } while (ts_tree_cursor_goto_next_sibling(&cur));
  }
  return out;
}

std::string text(TSNode n, const ir::SourceFile& f) {
  if (ts_node_is_null(n)) return {};
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (e > f.text.size() || b > e) return {};
  return f.text.substr(b, e - b);
}

ir::Span span_of(TSNode n, const ir::SourceFilePtr& f) {
  if (ts_node_is_null(n)) return {};
  return span_between(n, n, f);
}

ir::Span span_between(TSNode a, TSNode b, const ir::SourceFilePtr& f) {
  ir::Span s;
  s.file = f;
  TSPoint p = ts_node_start_point(a), q = ts_node_end_point(b);
  s.line = p.row + 1;
  s.col = p.column + 1;
  s.end_line = q.row + 1;
  s.end_col = q.column + 1;
  return s;
}

TSNode unparen(TSNode n) {
  while (is(n, "parenthesized_expression")) {
    auto c = children(n);
    if (c.size() != 1) break;
    n = c[0];
  }
  return n;
}

std::string dotted_name(TSNode n, const ir::SourceFile& f) {
  if (is(n, "identifier")) return text(n, f);
  if (is(n, "attribute")) {
    std::string base = dotted_name(field(n, "object"), f);
    if (base.empty()) return {};
    return base + "." + text(field(n, "attribute"), f);
  }
  return {};
}

bool string_value(TSNode n, const ir::SourceFile& f, std::string& out) {
  if (!is(n, "string")) return false;
  out.clear();
  TSNode start = ts_node_named_child(n, 0);
  std::string prefix = text(start, f);
  bool raw = prefix.find_first_of("rR") != std::string::npos;
  if (prefix.find_first_of("fFbB") != std::string::npos) return false;
  uint32_t c = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < c; ++i) {
    TSNode ch = ts_node_named_child(n, i);
    if (is(ch, "interpolation")) return false;
    if (!is(ch, "string_content")) continue;
    std::string t = text(ch, f);
    if (raw) {
      out += t;
      continue;
    }
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] != '\\' || k + 1 >= t.size()) {
        out += t[k];
        continue;
      }
      char e = t[++k];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case '\n': break;
        default: out += '\\'; out += e; break;
      }
    }
  }
  // Escape sequences may also be separate named children (escape_sequence) in some grammar
  // versions; they are covered by string_content text above in tree-sitter-python 0.23.
  return true;
}

}  // namespace pypto::parser

namespace pypto::parser {

NestingGuard::NestingGuard(int& depth, TSNode at, const ir::SourceFilePtr& f) : depth_(depth) {
  if (++depth_ > kMaxNestingDepth) {
    --depth_;
    throw ir::CompileError("E004", span_of(at, f),
                           fmt::format("expression or block nested too deeply (more than {} levels)", kMaxNestingDepth),
                           "split it into several statements with intermediate names");
  }
}

}  // namespace pypto::parser
