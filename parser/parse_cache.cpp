// The process's parses of source files and the parse-ahead pool (see parse_cache.h).
//
// An entry per path holds the text it was parsed from and its state: queued for the pool,
// being parsed (by a pool thread or by the front end, which takes over a queued entry rather than
// wait for it), or done. Waiting happens only for an entry another thread is parsing, and a thread
// that would wait parses the next queued file instead while there is one. The pool has
// one thread fewer than the machine has hardware threads (at least one, at most three), started
// on the first parse_ahead; it parses queued files in queue order and checks their syntax
// (syntax_check.cpp), so that a clean file costs its importer no walk at all. Results are the
// same trees whichever thread made them: output never depends on the pool.
//
// An imported module's tree leaves out its plain top-level defs (found by the lexical pre-pass
// below; tree-sitter skips them as excluded ranges), and a deferred def is parsed on its own, once,
// when the front end first needs it. Model libraries import whole modules of golden references
// and host-side helpers that compile-time evaluation never runs: in pypto-lib that is about a
// third of the bytes an import graph holds.
#include "parser/parse_cache.h"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ir/diagnostic.h"
#include "parser/cst.h"
#include "parser/syntax_check.h"

namespace pypto::parser {

namespace {

// tree-sitter 0.20.7 (Debian 12's libtree-sitter) corrupts its heap when error recovery meets a
// parse stack deeper than 65535 entries ('-' * 66000 with no operand, 66000 unclosed '('). Each
// token pushes at most one entry and finished statements are reduced, so the stack is bounded by
// the tokens of the statement being read: this lexical pre-pass refuses, before tree-sitter
// runs, a statement of more than kMaxStatementTokens tokens, and (as CPython's tokenizer does)
// brackets nested more than kMaxNestingDepth deep.
//
// The same pass finds the top-level statements (a line that starts in column 0 outside brackets,
// strings and continuations; decorator lines belong to the definition under them) and, when
// asked, returns the plain `def`s among them that a parse may leave out (DeferredDef): no
// decorator on them or on anything inside them (no line that starts with `@`), so neither a
// factory (a def with DSL definitions inside) nor a DSL function is ever deferred, and no
// indented comment line between their last line of code and the next statement (tree-sitter may
// count it in the def: where the def ends decides the next function's leading comments). A text that ends inside a bracket or
// has an unterminated string defers nothing: its whole parse reports the error.
constexpr uint64_t kMaxStatementTokens = 50'000;

std::vector<DeferredDef> scan_text(const ir::SourceFilePtr& f, bool want_defs) {
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
  auto finish_top = [&](size_t next) {
    if (top_open && !top_def.empty() && !top_at && code_end > top_start && !indented_comment(code_end, next))
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
      i += 2;  // a line continuation (or a stray backslash): the statement goes on
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
  if (malformed || depth != 0) defs.clear();
  return defs;
}

// `cancel`, when non-zero, makes tree-sitter give up (nullptr) within a few hundred steps.
// `ranges` (none: the whole text) are the byte ranges the parse reads, as tree-sitter's included
// ranges: the text between them is skipped as if absent, and positions stay the file's own.
TSTree* parse_text(const ir::SourceFile& f, const size_t* cancel, const std::vector<TSRange>& ranges = {}) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  ts_parser_set_cancellation_flag(parser, cancel);
  if (!ranges.empty()) ts_parser_set_included_ranges(parser, ranges.data(), uint32_t(ranges.size()));
  TSTree* tree = ts_parser_parse_string(parser, nullptr, f.text.data(), uint32_t(f.text.size()));
  ts_parser_delete(parser);
  return tree;
}

TSPoint point_at(const ir::SourceFile& f, uint32_t byte) {
  const auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), byte);
  const uint32_t row = uint32_t(it - f.line_starts.begin() - 1);
  return TSPoint{row, byte - f.line_starts[row]};
}

TSRange range_of(const ir::SourceFile& f, uint32_t from, uint32_t to) {
  return TSRange{point_at(f, from), point_at(f, to), from, to};
}

// The text of `f` without its deferred defs: a tree of the rest, or (defs emptied) of the whole
// text when the rest does not parse cleanly or nothing is deferred.
TSTree* parse_module(const ir::SourceFilePtr& f, const size_t* cancel, std::vector<DeferredDef>& defs) {
  if (!defs.empty()) {
    std::vector<TSRange> ranges;
    uint32_t from = 0;
    for (const DeferredDef& d : defs) {
      if (d.start_byte > from) ranges.push_back(range_of(*f, from, d.start_byte));
      from = d.end_byte;
    }
    const uint32_t size = uint32_t(f->text.size());
    if (from < size || ranges.empty()) ranges.push_back(range_of(*f, from, size));
    TSTree* tree = parse_text(*f, cancel, ranges);
    if (!tree) return nullptr;  // cancelled
    if (!ts_node_has_error(ts_tree_root_node(tree))) return tree;
    ts_tree_delete(tree);
    defs.clear();
  }
  return parse_text(*f, cancel);
}

enum class State { Queued, Parsing, Done };

using Defs = std::shared_ptr<const std::vector<DeferredDef>>;

struct DefTree {
  TSTree* tree = nullptr;
  std::shared_ptr<std::atomic<bool>> clean;
};

struct Entry {
  ir::SourceFilePtr file;
  TSTree* tree = nullptr;  // when Done
  std::shared_ptr<std::atomic<bool>> clean = std::make_shared<std::atomic<bool>>(false);
  State state = State::Done;
  Defs deferred;                       // what `tree` leaves out (null: a whole parse)
  std::map<uint32_t, DefTree> defs;    // parses of deferred defs, by start byte
};

void release(Entry& e) {
  if (e.tree) ts_tree_delete(e.tree);
  for (auto& [_, d] : e.defs) ts_tree_delete(d.tree);
  e.tree = nullptr;
  e.defs.clear();
}

// Parses `file` (its deferred defs left out unless `whole`); sets `deferred`.
TSTree* parse_file_text(const ir::SourceFilePtr& file, bool whole, const size_t* cancel, Defs& deferred) {
  std::vector<DeferredDef> defs = scan_text(file, !whole);
  TSTree* tree = parse_module(file, cancel, defs);
  deferred = defs.empty() ? nullptr : std::make_shared<const std::vector<DeferredDef>>(std::move(defs));
  return tree;
}

// Does `tree` (a parse of d's range) hold exactly the clean function_definition d?
bool is_def_tree(TSTree* tree, const DeferredDef& d) {
  TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) return false;
  auto c = children(root);
  return c.size() == 1 && is(c[0], "function_definition") && ts_node_start_byte(c[0]) == d.start_byte;
}

constexpr size_t kMaxEntries = 256;  // a long-running process (the unit tests) stays bounded

class ParseCache {
 public:
  // The tables the pool's syntax checks use are made first, so they are destroyed after the
  // destructor below has joined the pool (static objects die in the reverse order of their making).
  ParseCache() { build_cst_tables(); }
  ~ParseCache() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
      queue_.clear();
      __atomic_store_n(&cancel_, size_t(1), __ATOMIC_RELAXED);  // a parse in flight stops early
    }
    work_cv_.notify_all();
    for (auto& t : pool_) t.join();
    for (auto& [_, e] : by_path_) release(e);
  }

  ParsedTree get(const ir::SourceFilePtr& file, bool whole) {
    std::unique_lock<std::mutex> lk(mu_);
    Entry* claimed = nullptr;
    for (;;) {
      auto it = by_path_.find(file->path);
      if (it == by_path_.end()) break;
      Entry& e = it->second;
      if (e.state == State::Parsing) {  // another thread is on it (this text or an older one):
        if (!parse_queued(lk)) done_cv_.wait(lk);  // parse what the program reads next meanwhile
        continue;
      }
      if (e.file->text != file->text) break;  // edited since: parsed again below
      if (e.state == State::Done) {
        if (whole && e.deferred) break;  // a tree without its deferred defs: parsed whole below
        return ParsedTree{ts_tree_copy(e.tree), e.clean, e.deferred};
      }
      e.state = State::Parsing;  // queued, not started: parse it here rather than wait
      claimed = &e;
      break;
    }
    if (!claimed) {
      make_room();
      Entry& e = by_path_[file->path];
      release(e);
      e = Entry{file, nullptr, std::make_shared<std::atomic<bool>>(false), State::Parsing, nullptr, {}};
      claimed = &e;
    }
    auto clean = claimed->clean;
    lk.unlock();
    TSTree* tree = nullptr;
    Defs deferred;
    try {
      tree = parse_file_text(file, whole, nullptr, deferred);  // the front end's own parse is never cancelled
    } catch (...) {
      lk.lock();
      by_path_.erase(file->path);  // nothing is cached for a text the parser refuses
      done_cv_.notify_all();
      throw;
    }
    lk.lock();
    Entry& e = by_path_.at(file->path);  // unordered_map references stay valid across inserts
    e.tree = tree;
    e.deferred = deferred;
    e.state = State::Done;
    done_cv_.notify_all();
    return ParsedTree{ts_tree_copy(tree), clean, deferred};
  }

  ParsedTree def(const ir::SourceFilePtr& file, const DeferredDef& d) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      auto it = by_path_.find(file->path);
      if (it != by_path_.end() && it->second.state == State::Done && it->second.file->text == file->text)
        if (auto dt = it->second.defs.find(d.start_byte); dt != it->second.defs.end())
          return ParsedTree{ts_tree_copy(dt->second.tree), dt->second.clean, nullptr};
    }
    TSTree* tree = parse_text(*file, nullptr, {range_of(*file, d.start_byte, d.end_byte)});
    if (!is_def_tree(tree, d)) {  // the lexical scan misjudged the def, or it has an error: read it in context
      ts_tree_delete(tree);
      tree = parse_text(*file, nullptr);
    }
    DefTree made{tree, std::make_shared<std::atomic<bool>>(false)};
    std::lock_guard<std::mutex> lk(mu_);
    auto it = by_path_.find(file->path);
    if (it == by_path_.end() || it->second.state != State::Done || it->second.file->text != file->text)
      return ParsedTree{tree, made.clean, nullptr};  // not cached: the caller's tree
    auto [dt, fresh] = it->second.defs.emplace(d.start_byte, made);
    if (!fresh) ts_tree_delete(tree);  // another thread was first
    return ParsedTree{ts_tree_copy(dt->second.tree), dt->second.clean, nullptr};
  }

  void ahead(const ir::SourceFilePtr& file) {
    std::lock_guard<std::mutex> lk(mu_);
    if (auto it = by_path_.find(file->path); it != by_path_.end()) return;  // parsed, queued or being parsed
    make_room();
    by_path_[file->path] = Entry{file, nullptr, std::make_shared<std::atomic<bool>>(false), State::Queued, nullptr, {}};
    queue_.push_back(file->path);
    if (pool_.empty()) {
      const unsigned hw = std::thread::hardware_concurrency();
      const unsigned n = std::clamp(hw > 1 ? hw - 1 : 1u, 1u, 3u);
      for (unsigned i = 0; i < n; ++i) pool_.emplace_back([this] { work(); });
    }
    work_cv_.notify_one();
  }

 private:
  // Drops the finished entries once there are too many (queued and running ones stay).
  void make_room() {
    if (by_path_.size() < kMaxEntries) return;
    for (auto it = by_path_.begin(); it != by_path_.end();) {
      if (it->second.state == State::Done) {
        release(it->second);
        it = by_path_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void work() {
    if (thread_init_) thread_init_();
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      work_cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      parse_queued(lk);
    }
  }

  // Parses (and syntax-checks) the first file of the queue that is still queued; false when there
  // is none. Called with mu_ held (through `lk`), which it releases while parsing. Queued files
  // are imports: their plain defs are deferred.
  bool parse_queued(std::unique_lock<std::mutex>& lk) {
    while (!queue_.empty()) {
      const std::string path = std::move(queue_.front());
      queue_.pop_front();
      auto it = by_path_.find(path);
      if (it == by_path_.end() || it->second.state != State::Queued) continue;  // taken over or dropped
      it->second.state = State::Parsing;
      ir::SourceFilePtr file = it->second.file;
      auto clean = it->second.clean;
      lk.unlock();
      TSTree* tree = nullptr;
      Defs deferred;
      bool ok = false;
      try {
        tree = parse_file_text(file, false, &cancel_, deferred);
        ok = tree && syntax_errors(ts_tree_root_node(tree), file).empty();  // no tree: cancelled at exit
      } catch (...) {
        // A refused text: the front end's own parse reports it.
      }
      if (ok) clean->store(true);
      lk.lock();
      if (tree) {
        Entry& e = by_path_.at(path);
        e.tree = tree;
        e.deferred = deferred;
        e.state = State::Done;
      } else {
        by_path_.erase(path);
      }
      done_cv_.notify_all();
      return true;
    }
    return false;
  }

  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::unordered_map<std::string, Entry> by_path_;
  std::deque<std::string> queue_;
  std::vector<std::thread> pool_;
  bool stop_ = false;
  size_t cancel_ = 0;  // tree-sitter's cancellation flag for every parse (set at exit)

 public:
  void (*thread_init_)() = nullptr;  // set_parse_thread_init (read by threads started after it)
};

ParseCache& cache() {
  static ParseCache c;
  return c;
}

}  // namespace

ParsedTree parsed_tree(const ir::SourceFilePtr& file, bool whole) { return cache().get(file, whole); }

ParsedTree parsed_def(const ir::SourceFilePtr& file, const DeferredDef& def) { return cache().def(file, def); }

void parse_ahead(const ir::SourceFilePtr& file) { cache().ahead(file); }

void set_parse_thread_init(void (*init)()) { cache().thread_init_ = init; }

}  // namespace pypto::parser
