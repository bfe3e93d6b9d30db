// The lexical pre-pass over a source text (see prescan.h): one scan that tracks strings,
// comments, brackets and line continuations, enforces the parser's limits and finds the top-level
// statements and the deferrable defs among them.
#include "parser/prescan.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fmt/format.h>
#include <string>

#include "ir/diagnostic.h"

namespace pypto::parser {

// Each token pushes at most one entry on tree-sitter's parse stack and finished statements are
// reduced, so the stack is bounded by the tokens of the statement being read ('-' * 66000 with no
// operand, 66000 unclosed '(' are what overflowed it).
constexpr uint64_t kMaxStatementTokens = 50'000;

std::vector<DeferredDef> prescan(const ir::SourceFilePtr& f, bool want_defs) {
  const std::string& s = f->text;
  auto row_of = [&](size_t off) {
    return uint32_t(std::upper_bound(f->line_starts.begin(), f->line_starts.end(), uint32_t(off)) -
                    f->line_starts.begin() - 1);
  };
  auto at = [&](size_t off, size_t len, std::string msg, std::string hint) {
    const uint32_t line = row_of(off) + 1;
    const uint32_t col = uint32_t(off - f->line_starts[line - 1]) + 1;
    throw ir::CompileError("E004", ir::Span{f, line, col, line, col + uint32_t(len)}, std::move(msg), std::move(hint));
  };
  auto ident = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
  int depth = 0;
  uint64_t tokens = 0;
  size_t stmt = 0;
  // The top-level statement being read: where it starts, whether it is a plain def (and its
  // name), whether an `@` occurred in it, and the end of its last line holding code.
  std::vector<DeferredDef> defs;
  bool malformed = false;  // unterminated string or unbalanced brackets: defer nothing
  bool line_start = true, line_code = false, line_indent = true;  // line_indent: only blanks so far
  size_t top_start = 0, code_end = 0;
  bool top_open = false, top_decorators = false, top_at = false;
  std::string top_def;  // the def's name ("" when the statement is not a plain def)
  // An indented comment line in [from, to) (after a def's last line of code, tree-sitter may make
  // it part of the def, which changes where the def ends and whose comment it is).
  auto indented_comment = [&](size_t from, size_t to) {
    for (size_t p = from; p < to;) {
      size_t q = p;
      while (q < to && (s[q] == ' ' || s[q] == '\t' || s[q] == '\f')) ++q;
      if (q < to && q > p && s[q] == '#') return true;
      p = s.find('\n', q);
      if (p == std::string::npos) break;
      ++p;
    }
    return false;
  };
  // Ends the statement being read; `next` is where the next one starts (or the end of the text).
  // Does the statement at `next` continue a compound statement (`else:` after an `if` body)? A def
  // between the clauses is a syntax error a parse without the def would not see.
  auto clause = [&](size_t next) {
    for (const char* k : {"else", "elif", "except", "finally"}) {
      const size_t n = std::strlen(k);
      if (s.compare(next, n, k) == 0 && (next + n >= s.size() || !ident(static_cast<unsigned char>(s[next + n]))))
        return true;
    }
    return false;
  };
  auto finish_top = [&](size_t next) {
    if (top_open && !top_def.empty() && !top_at && code_end > top_start && !indented_comment(code_end, next) &&
        !clause(next))
      defs.push_back(DeferredDef{top_def, uint32_t(top_start), uint32_t(code_end), row_of(top_start),
                                 row_of(code_end - 1)});
    top_open = false;
  };
  auto def_name = [&](size_t i) -> std::string {
    auto word = [&](const char* w, size_t n) {
      return s.compare(i, n, w) == 0 && i + n < s.size() && (s[i + n] == ' ' || s[i + n] == '\t');
    };
    if (word("async", 5)) {
      i += 5;
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    }
    if (!word("def", 3)) return {};
    i += 3;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t b = i;
    auto ascii_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    while (i < s.size() && ascii_ident(s[i]) && static_cast<unsigned char>(s[i]) < 0x80) ++i;
    if (i == b || std::isdigit(static_cast<unsigned char>(s[b])) || (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x80))
      return {};
    return s.substr(b, i - b);
  };
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (line_start) {
      line_start = false;
      if (want_defs && depth == 0 && c != ' ' && c != '\t' && c != '\f' && c != '\r' && c != '\n' && c != '#') {
        if (top_open && top_decorators && c != '@') {
          top_decorators = false;  // the definition under the decorators: the same statement
        } else if (!(top_open && top_decorators)) {
          finish_top(i);
          top_open = true;
          top_start = i;
          top_decorators = c == '@';
          top_at = false;
          top_def = def_name(i);
        }
      }
    }
    if (line_indent && c != ' ' && c != '\t' && c != '\f' && c != '\r') {
      line_indent = false;
      if (c == '@') top_at = true;  // a decorator (a matrix product `@` inside a line is not)
    }
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '\\') {
      line_code = true;
      // A line continuation (or a stray backslash): the statement goes on.
      i += s.compare(i + 1, 2, "\r\n") == 0 ? 3 : 2;
    } else if (c == '\n') {
      if (depth == 0) tokens = 0, stmt = i + 1;
      if (line_code) code_end = i + 1;
      line_code = false;
      line_start = line_indent = true;
      ++i;
    } else if (c == '"' || c == '\'') {
      const bool triple = s.compare(i, 3, std::string(3, c)) == 0;
      i += triple ? 3 : 1;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == '\\') {
          i += 2;
        } else if (triple ? s.compare(i, 3, std::string(3, c)) == 0 : s[i] == c) {
          i += triple ? 3 : 1;
          closed = true;
          break;
        } else if (!triple && s[i] == '\n') {
          break;  // unterminated: tree-sitter reports it
        } else {
          ++i;
        }
      }
      malformed = malformed || !closed;
      line_code = true;
      ++tokens;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (ident(static_cast<unsigned char>(c))) {
      while (i < s.size() && (ident(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
      line_code = true;
      ++tokens;
    } else {
      if (c == '(' || c == '[' || c == '{') {
        if (++depth > kMaxNestingDepth)
          at(i, 1, fmt::format("brackets nested too deeply (more than {} levels)", kMaxNestingDepth),
             "split the expression into several statements with intermediate names");
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth > 0) --depth;
        else malformed = true;
      }
      line_code = true;
      ++tokens;
      ++i;
    }
    if (tokens > kMaxStatementTokens)
      at(stmt, 1, fmt::format("statement too long for the parser (more than {} tokens)", kMaxStatementTokens),
         depth > 0 ? "an unclosed bracket makes everything after it one statement: close it"
                   : "split the statement into several with intermediate names");
  }
  if (line_code) code_end = s.size();
  finish_top(s.size());
  // Line ends other than \n and \r\n (a lone \r, a form feed resetting the indentation) are left
  // to tree-sitter: nothing is deferred.
  const bool odd_lines = s.find('\f') != std::string::npos || [&] {
    for (size_t r = s.find('\r'); r != std::string::npos; r = s.find('\r', r + 1))
      if (r + 1 >= s.size() || s[r + 1] != '\n') return true;
    return false;
  }();
  if (malformed || depth != 0 || odd_lines) defs.clear();
  return defs;
}

}  // namespace pypto::parser
