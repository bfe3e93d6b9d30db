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
#include "parser/parse_cache.h"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <fmt/format.h>
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
constexpr uint64_t kMaxStatementTokens = 50'000;

void check_parse_limits(const ir::SourceFilePtr& f) {
  const std::string& s = f->text;
  auto at = [&](size_t off, size_t len, std::string msg, std::string hint) {
    auto it = std::upper_bound(f->line_starts.begin(), f->line_starts.end(), uint32_t(off));
    const uint32_t line = uint32_t(it - f->line_starts.begin());
    const uint32_t col = uint32_t(off - f->line_starts[line - 1]) + 1;
    throw ir::CompileError("E004", ir::Span{f, line, col, line, col + uint32_t(len)}, std::move(msg), std::move(hint));
  };
  auto ident = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
  int depth = 0;
  uint64_t tokens = 0;
  size_t stmt = 0;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '\\') {
      i += 2;  // a line continuation (or a stray backslash): the statement goes on
    } else if (c == '\n') {
      if (depth == 0) tokens = 0, stmt = i + 1;
      ++i;
    } else if (c == '"' || c == '\'') {
      const bool triple = s.compare(i, 3, std::string(3, c)) == 0;
      i += triple ? 3 : 1;
      while (i < s.size()) {
        if (s[i] == '\\') {
          i += 2;
        } else if (triple ? s.compare(i, 3, std::string(3, c)) == 0 : s[i] == c) {
          i += triple ? 3 : 1;
          break;
        } else if (!triple && s[i] == '\n') {
          break;  // unterminated: tree-sitter reports it
        } else {
          ++i;
        }
      }
      ++tokens;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (ident(static_cast<unsigned char>(c))) {
      while (i < s.size() && (ident(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
      ++tokens;
    } else {
      if (c == '(' || c == '[' || c == '{') {
        if (++depth > kMaxNestingDepth)
          at(i, 1, fmt::format("brackets nested too deeply (more than {} levels)", kMaxNestingDepth),
             "split the expression into several statements with intermediate names");
      } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
        --depth;
      }
      ++tokens;
      ++i;
    }
    if (tokens > kMaxStatementTokens)
      at(stmt, 1, fmt::format("statement too long for the parser (more than {} tokens)", kMaxStatementTokens),
         depth > 0 ? "an unclosed bracket makes everything after it one statement: close it"
                   : "split the statement into several with intermediate names");
  }
}

// `cancel`, when non-zero, makes tree-sitter give up (nullptr) within a few hundred steps.
TSTree* parse_text(const std::string& text, const size_t* cancel) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  ts_parser_set_cancellation_flag(parser, cancel);
  TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), uint32_t(text.size()));
  ts_parser_delete(parser);
  return tree;
}

enum class State { Queued, Parsing, Done };

struct Entry {
  ir::SourceFilePtr file;
  TSTree* tree = nullptr;  // when Done
  std::shared_ptr<std::atomic<bool>> clean = std::make_shared<std::atomic<bool>>(false);
  State state = State::Done;
};

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
    for (auto& [_, e] : by_path_)
      if (e.tree) ts_tree_delete(e.tree);
  }

  ParsedTree get(const ir::SourceFilePtr& file) {
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
      if (e.state == State::Done) return ParsedTree{ts_tree_copy(e.tree), e.clean};
      e.state = State::Parsing;  // queued, not started: parse it here rather than wait
      claimed = &e;
      break;
    }
    if (!claimed) {
      make_room();
      Entry& e = by_path_[file->path];
      if (e.tree) ts_tree_delete(e.tree);
      e = Entry{file, nullptr, std::make_shared<std::atomic<bool>>(false), State::Parsing};
      claimed = &e;
    }
    auto clean = claimed->clean;
    lk.unlock();
    TSTree* tree = nullptr;
    try {
      check_parse_limits(file);
      tree = parse_text(file->text, nullptr);  // the front end's own parse is never cancelled
    } catch (...) {
      lk.lock();
      by_path_.erase(file->path);  // nothing is cached for a text the parser refuses
      done_cv_.notify_all();
      throw;
    }
    lk.lock();
    Entry& e = by_path_.at(file->path);  // unordered_map references stay valid across inserts
    e.tree = tree;
    e.state = State::Done;
    done_cv_.notify_all();
    return ParsedTree{ts_tree_copy(tree), clean};
  }

  void ahead(const ir::SourceFilePtr& file) {
    std::lock_guard<std::mutex> lk(mu_);
    if (auto it = by_path_.find(file->path); it != by_path_.end()) return;  // parsed, queued or being parsed
    make_room();
    by_path_[file->path] = Entry{file, nullptr, std::make_shared<std::atomic<bool>>(false), State::Queued};
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
        ts_tree_delete(it->second.tree);
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
  // is none. Called with mu_ held (through `lk`), which it releases while parsing.
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
      bool ok = false;
      try {
        check_parse_limits(file);
        tree = parse_text(file->text, &cancel_);
        ok = tree && syntax_errors(ts_tree_root_node(tree), file).empty();  // no tree: cancelled at exit
      } catch (...) {
        // A refused text: the front end's own parse reports it.
      }
      if (ok) clean->store(true);
      lk.lock();
      if (tree) {
        Entry& e = by_path_.at(path);
        e.tree = tree;
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

ParsedTree parsed_tree(const ir::SourceFilePtr& file) { return cache().get(file); }

void parse_ahead(const ir::SourceFilePtr& file) { cache().ahead(file); }

void set_parse_thread_init(void (*init)()) { cache().thread_init_ = init; }

}  // namespace pypto::parser
