// Syntax errors of a parsed file (syntax_check.h). Both walks are iterative (a tree-sitter cursor):
// a statement of 50,000 tokens (cst.cpp's limit) can be a tree as deep.
#include "parser/syntax_check.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <string_view>

namespace pypto::parser {

using namespace ir;

namespace {

constexpr size_t kMaxErrors = 20;
constexpr const char* kPythonHint = "this is not valid Python; pypto reads the file with a Python 3 grammar";

// The span of `n` cut to its first line.
Span first_line(TSNode n, const SourceFilePtr& f, size_t width_if_empty = 1) {
  Span s = span_of(n, f);
  if (s.end_line != s.line) {
    const std::string_view line = f->line(s.line);
    s.end_line = s.line;
    s.end_col = std::max<uint32_t>(uint32_t(line.size()) + 1, s.col + uint32_t(width_if_empty));
  }
  return s;
}

void tree_sitter_errors(TSNode root, const SourceFilePtr& f, std::vector<Diagnostic>& out) {
  walk_tree(root, [&](TSNode n) {
    if (out.size() >= kMaxErrors) return Walk::Stop;
    if (ts_node_is_missing(n)) {
      out.push_back(Diagnostic{Severity::Error, "E002", fmt::format("invalid syntax: missing '{}'", ts_node_type(n)),
                               span_of(n, f), "", {}});
      return Walk::Skip;
    }
    if (is(n, "ERROR")) {
      std::string t = text(n, *f);
      if (auto nl = t.find('\n'); nl != std::string::npos) t = t.substr(0, nl);
      if (t.size() > 40) t = t.substr(0, 40) + "...";
      Span s = span_of(n, f);
      if (s.end_line != s.line) {  // point at the first line only
        s.end_line = s.line;
        s.end_col = s.col + uint32_t(t.size() ? t.size() : 1);
      }
      out.push_back(Diagnostic{Severity::Error, "E002", fmt::format("invalid syntax near '{}'", t), s, kPythonHint, {}});
      return Walk::Skip;
    }
    return ts_node_has_error(n) ? Walk::Descend : Walk::Skip;
  });
}

bool is_statement_parent(std::string_view k) { return k == "block" || k == "module"; }

// The first token of `n` as python_rules walks tokens: a leaf, or a whole string.
TSNode first_token(TSNode n) {
  while (ts_node_child_count(n) > 0 && std::string_view(ts_node_type(n)) != "string") n = ts_node_child(n, 0);
  return n;
}

// Whether a node of this kind can hold no block: not a compound statement, a clause or a
// definition (and not a block or the module), which may sit on one row (`if x: y`,
// `def f(): pass`) and still need the empty-block check inside.
bool may_be_unit(std::string_view k) {
  auto ends = [&](std::string_view suffix) {
    return k.size() >= suffix.size() && k.substr(k.size() - suffix.size()) == suffix;
  };
  return !is_statement_parent(k) && !ends("_statement") && !ends("_clause") && !ends("_definition");
}

// What tree-sitter-python accepts and Python does not (see syntax_check.h).
void python_rules(TSNode root, const SourceFilePtr& f, std::vector<Diagnostic>& out) {
  struct Level {
    TSNode node;
    size_t statement;  // index in the path of the statement holding this node (0: none)
    size_t decorator;  // index of the decorator holding it (0: none)
  };
  std::vector<Level> path;
  struct Token {
    uint32_t end_byte, end_row;
    size_t statement_start;  // the statement's start byte
    size_t decorator_start;  // the decorator's start byte + 1 (0: none)
  };
  std::optional<Token> prev;
  int brackets = 0;
  const std::string& src = f->text;
  // Pushes n onto `path` and checks it; returns whether to descend into it.
  auto enter = [&](TSNode n) -> bool {
    const std::string_view kind = ts_node_type(n);
    Level lv{n, 0, 0};
    if (!path.empty()) {
      lv.statement = is_statement_parent(ts_node_type(path.back().node)) ? path.size() : path.back().statement;
      lv.decorator = path.back().decorator;
    }
    if (kind == "decorator") lv.decorator = path.size();
    path.push_back(lv);
    if (out.size() >= kMaxErrors) return false;

    if (kind == "block") {
      bool any = false;
      for (uint32_t i = 0, c = ts_node_named_child_count(n); i < c && !any; ++i)
        any = !is_comment(ts_node_named_child(n, i));
      if (!any)
        out.push_back(Diagnostic{Severity::Error, "E002", "invalid syntax: expected an indented block",
                                 first_line(path.size() > 1 ? path[path.size() - 2].node : n, f),
                                 "indent the statements of the block under the line ending with ':' (`pass` for none)",
                                 {}});
    }
    const bool leaf = ts_node_child_count(n) == 0 || kind == "string";
    // A node on one row that holds no block (an expression, a decorator) is checked as one token:
    // no line ends inside it, and its brackets are balanced (the tree has no errors here).
    const bool unit = !leaf && ts_node_start_point(n).row == ts_node_end_point(n).row && may_be_unit(kind);
    if ((!leaf && !unit) || kind == "comment" || ts_node_start_byte(n) == ts_node_end_byte(n)) return !leaf && !unit;
    const uint32_t start = ts_node_start_byte(n), row = ts_node_start_point(n).row;
    const size_t stmt = lv.statement ? ts_node_start_byte(path[lv.statement].node) : 0;
    const size_t dec = lv.decorator ? ts_node_start_byte(path[lv.decorator].node) + 1 : 0;
    if (prev && row > prev->end_row && brackets == 0 && stmt == prev->statement_start &&
        !(prev->decorator_start && prev->decorator_start != dec)) {
      const std::string_view gap = std::string_view(src).substr(prev->end_byte, start - prev->end_byte);
      if (gap.find("\\\n") == std::string_view::npos && gap.find("\\\r\n") == std::string_view::npos)
        out.push_back(Diagnostic{Severity::Error, "E002", "invalid syntax: the statement goes on after the end of its line",
                                 span_of(unit ? first_token(n) : n, f),
                                 "Python ends a statement at the end of its line: continue it inside brackets or end "
                                 "the line with a backslash",
                                 {}});
    }
    if (unit) {
      prev = Token{ts_node_end_byte(n), ts_node_end_point(n).row, stmt, dec};
      return false;
    }
    if (kind == "(" || kind == "[" || kind == "{") ++brackets;
    if ((kind == ")" || kind == "]" || kind == "}") && brackets > 0) --brackets;
    prev = Token{ts_node_end_byte(n), ts_node_end_point(n).row, stmt, dec};
    return false;
  };
  // The walk of `walk` above, keeping `path` in step with the cursor (ts_node_parent would
  // search from the root every time).
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool descend = enter(root);
  for (;;) {
    if (descend && ts_tree_cursor_goto_first_child(&cur)) {
      descend = enter(ts_tree_cursor_current_node(&cur));
      continue;
    }
    path.pop_back();
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cur))) {
      if (!ts_tree_cursor_goto_parent(&cur)) break;
      path.pop_back();
    }
    if (!moved) break;
    descend = enter(ts_tree_cursor_current_node(&cur));
  }
  ts_tree_cursor_delete(&cur);
}

}  // namespace

std::vector<Diagnostic> syntax_errors(const CstTree& tree) { return syntax_errors(tree.root(), tree.file()); }

std::vector<Diagnostic> syntax_errors(TSNode root, const SourceFilePtr& file) {
  std::vector<Diagnostic> out;
  tree_sitter_errors(root, file, out);
  if (out.empty()) python_rules(root, file, out);
  return out;
}

}  // namespace pypto::parser
