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
// An imported module's tree leaves out its plain top-level defs (found by the lexical pre-pass,
// prescan.h; tree-sitter skips them as excluded ranges), and a deferred def is parsed on its own,
// once, when the front end first needs it. Model libraries import whole modules of golden
// references and host-side helpers that compile-time evaluation never runs: in pypto-lib that is
// about a third of the bytes a check parses.
#include "parser/parse_cache.h"

#include <algorithm>
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
#include "parser/prescan.h"
#include "parser/syntax_check.h"

namespace pypto::parser {

namespace {

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

// Is the parse of `f` without `defs` the whole parse less those defs? It is when it has no error,
// every top-level statement starts in column 0 (tree-sitter-python accepts an indented line at
// the top level: a def the pre-pass cut short would leave its rest there) and none spans a def
// (clauses joined over it). Otherwise the whole text is parsed.
bool rest_is_sound(TSTree* tree, const std::vector<DeferredDef>& defs) {
  TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) return false;
  size_t d = 0;
  for (TSNode top : children(root)) {
    if (ts_node_start_point(top).column != 0) return false;
    const uint32_t from = ts_node_start_byte(top), to = ts_node_end_byte(top);
    while (d < defs.size() && defs[d].start_byte < from) ++d;
    if (d < defs.size() && defs[d].start_byte < to) return false;
  }
  return true;
}

// The text of `f` without its deferred defs: a tree of the rest, or (defs emptied) of the whole
// text when the rest does not parse soundly or nothing is deferred.
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
    if (rest_is_sound(tree, defs)) return tree;
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
  std::vector<DeferredDef> defs = prescan(file, !whole);
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
