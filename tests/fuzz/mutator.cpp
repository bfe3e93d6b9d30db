// Line-level and syntax-tree-level program mutators (mutator.h).
#include "tests/fuzz/mutator.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <tree_sitter/api.h>

#include "ir/dtype.h"
#include "ir/op_registry.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace fs = std::filesystem;

namespace pypto::fuzz {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  return lines;
}

// ---- the syntax tree of one program, flattened ----

struct Node {
  std::string_view kind;
  uint32_t start, end;  // byte range
  uint32_t column;      // byte column of `start`
  bool statement;       // a child of a block or of the module
  TSNode ts;
};

class Tree {
 public:
  explicit Tree(const std::string& text) : text_(text) {
    parser_ = ts_parser_new();
    ts_parser_set_language(parser_, tree_sitter_python());
    tree_ = ts_parser_parse_string(parser_, nullptr, text.data(), uint32_t(text.size()));
    if (!tree_) return;
    // Iterative walk: a mutant may nest deeper than a recursive walk should go.
    std::vector<std::pair<TSNode, bool>> stack{{ts_tree_root_node(tree_), false}};
    while (!stack.empty()) {
      auto [n, statement] = stack.back();
      stack.pop_back();
      const std::string_view k = ts_node_type(n);
      if (k != "comment" && k != "module")
        nodes_.push_back({k, ts_node_start_byte(n), ts_node_end_byte(n), ts_node_start_point(n).column, statement, n});
      const bool block = k == "block" || k == "module";
      const uint32_t count = ts_node_named_child_count(n);
      for (uint32_t i = count; i-- > 0;) stack.push_back({ts_node_named_child(n, i), block});
    }
  }
  ~Tree() {
    if (tree_) ts_tree_delete(tree_);
    ts_parser_delete(parser_);
  }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  const std::vector<Node>& nodes() const { return nodes_; }
  std::string_view text(const Node& n) const { return std::string_view(text_).substr(n.start, n.end - n.start); }
  // Only blanks between the start of n's line and n.
  bool starts_line(const Node& n) const {
    if (n.column > n.start) return false;
    for (uint32_t i = n.start - n.column; i < n.start; ++i)
      if (text_[i] != ' ' && text_[i] != '\t') return false;
    return true;
  }
  // Named children of n (comments skipped), as indices into nodes() would be costly; as TSNodes.
  std::vector<Node> named_children(const Node& n) const {
    std::vector<Node> out;
    const uint32_t count = ts_node_named_child_count(n.ts);
    for (uint32_t i = 0; i < count; ++i) {
      TSNode c = ts_node_named_child(n.ts, i);
      std::string_view k = ts_node_type(c);
      if (k == "comment") continue;
      out.push_back({k, ts_node_start_byte(c), ts_node_end_byte(c), ts_node_start_point(c).column, false, c});
    }
    return out;
  }

 private:
  const std::string& text_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
  std::vector<Node> nodes_;
};

std::string replace(const std::string& text, uint32_t start, uint32_t end, std::string_view with) {
  return text.substr(0, start) + std::string(with) + text.substr(end);
}

// `frag` was written at column `from`; its continuation lines move by (to - from) columns.
std::string reindent(std::string_view frag, uint32_t from, uint32_t to) {
  std::string out;
  size_t i = 0;
  bool first = true;
  while (i <= frag.size()) {
    size_t nl = frag.find('\n', i);
    std::string_view line = frag.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
    if (!first && !line.empty()) {
      if (to >= from) {
        out.append(to - from, ' ');
      } else {
        size_t strip = 0;
        while (strip < from - to && strip < line.size() && line[strip] == ' ') ++strip;
        line.remove_prefix(strip);
      }
    }
    out += line;
    first = false;
    if (nl == std::string_view::npos) break;
    out += '\n';
    i = nl + 1;
  }
  return out;
}

// Byte range of whole lines holding statement `n` (its indentation through its newline).
std::pair<uint32_t, uint32_t> line_range(const std::string& text, const Node& n) {
  uint32_t end = n.end;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) ++end;
  if (end < text.size() && text[end] == '\n') ++end;
  return {n.start - n.column, end};
}

constexpr const char* kInts[] = {
    "0", "1", "-1", "2", "3", "4", "7", "8", "15", "16", "17", "31", "32", "33", "63", "64", "65", "127", "128", "129",
    "255", "256", "257", "512", "1000", "1024", "2048", "4096", "8192", "16384", "32768", "65535", "65536", "1048576",
    "2147483647", "2147483648", "-2147483648", "4294967296", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "10**30", "0x7fffffff", "1_000", "0b1", "0o17", "True", "False", "None"};
constexpr const char* kFloats[] = {"0.0", "-0.0", "1.0", "-1.0", "0.5", "2.0", "1e-30", "1e30", "3.4e38", "1e309",
                                   "-1e309", "1e-45", "65504.0", "65520.0", "float('inf')", "float('nan')", "1", "0"};
// Statements that exercise control flow and scopes when inserted anywhere.
constexpr const char* kStatements[] = {
    "pass", "return", "break", "continue", "x = x", "assert False", "pl.yield_()", "del x",
    "for i in pl.range(4):\n    pass", "if True:\n    pass\nelse:\n    pass", "with pl.incore():\n    pass",
    "with pl.at(level=pl.Level.CORE_GROUP):\n    pass", "while True:\n    break", "global x", "import config",
    "from config import X"};
// Keyword arguments DSL calls take.
constexpr const char* kKeywords[] = {
    "dtype=pl.FP16", "target_memory=pl.Mem.Vec", "target_memory=pl.Mem.Acc", "valid_shape=[1, 1]", "offsets=[0, 0]",
    "shapes=[16, 16]", "axis=0", "axis=-1", "keepdim=True", "level=pl.Level.CORE_GROUP", "name_hint='k'",
    "mode='round'", "init_values=(x,)", "type=pl.FunctionType.InCore", "stage=2", "unroll=True", "chunk=4"};

}  // namespace

std::string mutate_lines(const std::string& text, Rng& r) {
  static const char* kTokens[] = {"pl.add(t, t)", "[", "(", ")", ":", "0", "-1", "pl.FP16", "pl.Mem.Acc",
                                  "x", "out", "pl.range(3)", "pl.yield_(x)", "1e9", "None", ", 7"};
  auto lines = split_lines(text);
  if (lines.empty()) return text;
  size_t i = r.below(lines.size());
  switch (r.below(4)) {
    case 0: lines.erase(lines.begin() + long(i)); break;
    case 1: lines.insert(lines.begin() + long(i), lines[r.below(lines.size())]); break;
    case 2:
      if (!lines[i].empty()) lines[i].erase(r.below(lines[i].size()), 1);
      break;
    default:
      lines[i].insert(r.below(lines[i].size() + 1), kTokens[r.below(std::size(kTokens))]);
      break;
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

GrammarMutator::GrammarMutator(const std::vector<std::string>& donors) {
  for (const auto& d : donors) {
    Tree t(d);
    for (const auto& n : t.nodes()) {
      if (n.end - n.start > 4000) continue;  // whole classes and functions: too coarse to be useful
      Fragment f{std::string(t.text(n)), n.column};
      if (n.statement && t.starts_line(n)) statements_.push_back(f);
      by_kind_[std::string(n.kind)].push_back(std::move(f));
    }
  }
  for (const auto* op : ir::OpRegistry::instance().all()) {
    op_names_.push_back(ir::op_spelling(op->name));
    op_names_.push_back("pl." + std::string(op->short_name()));
  }
  std::sort(op_names_.begin(), op_names_.end());
  op_names_.erase(std::unique(op_names_.begin(), op_names_.end()), op_names_.end());
}

size_t GrammarMutator::fragment_count() const {
  size_t n = statements_.size();
  for (const auto& [k, v] : by_kind_) n += v.size();
  return n;
}

std::string GrammarMutator::mutate(const std::string& text, Rng& r) const {
  Tree t(text);
  const auto& nodes = t.nodes();
  if (nodes.empty()) return mutate_lines(text, r);
  auto pick = [&](auto pred) -> const Node* {
    std::vector<const Node*> c;
    for (const auto& n : nodes)
      if (pred(n)) c.push_back(&n);
    return c.empty() ? nullptr : c[r.below(c.size())];
  };
  for (int attempt = 0; attempt < 8; ++attempt) {
    switch (r.below(11)) {
      case 0:
      case 1: {  // a subtree replaced by another of the same kind, from this program or a donor
        const Node* n = pick([](const Node& n) { return n.end - n.start < 2000; });
        if (!n) break;
        if (r.chance(50)) {
          const Node* m = pick([&](const Node& m) { return m.kind == n->kind && &m != n; });
          if (!m) break;
          return replace(text, n->start, n->end, reindent(t.text(*m), m->column, n->column));
        }
        auto it = by_kind_.find(n->kind);
        if (it == by_kind_.end() || it->second.empty()) break;
        const Fragment& f = it->second[r.below(it->second.size())];
        return replace(text, n->start, n->end, reindent(f.text, f.column, n->column));
      }
      case 2: {  // a literal replaced by a boundary value
        const Node* n = pick([](const Node& n) { return n.kind == "integer" || n.kind == "float"; });
        if (!n) break;
        const char* v = n->kind == "integer" || r.chance(30) ? kInts[r.below(std::size(kInts))]
                                                              : kFloats[r.below(std::size(kFloats))];
        return replace(text, n->start, n->end, v);
      }
      case 3: {  // an op (a pl.* attribute chain) replaced by another registered op or a dtype
        const Node* n = pick([&](const Node& n) { return n.kind == "attribute" && t.text(n).substr(0, 3) == "pl."; });
        if (!n) break;
        if (r.chance(30)) {
          auto d = ir::DataType(r.below(size_t(ir::DataType::TASK_ID) + 1));
          return replace(text, n->start, n->end, "pl." + std::string(ir::dtype_name(d)));
        }
        return replace(text, n->start, n->end, op_names_[r.below(op_names_.size())]);
      }
      case 4: {  // a statement deleted (a lone statement becomes `pass`)
        const Node* n = pick([&](const Node& n) { return n.statement && t.starts_line(n); });
        if (!n) break;
        if (r.chance(20)) return replace(text, n->start, n->end, "pass");
        auto [a, b] = line_range(text, *n);
        return replace(text, a, b, "");
      }
      case 5: {  // a statement duplicated
        const Node* n = pick([&](const Node& n) { return n.statement && t.starts_line(n); });
        if (!n) break;
        auto [a, b] = line_range(text, *n);
        std::string line = text.substr(a, b - a);
        if (line.empty() || line.back() != '\n') line += '\n';
        return text.substr(0, b) + line + text.substr(b);
      }
      case 6: {  // a statement (from this program, a donor or a fixed list) inserted before another
        const Node* n = pick([&](const Node& n) { return n.statement && t.starts_line(n); });
        if (!n) break;
        std::string frag;
        uint32_t col = 0;
        const size_t which = r.below(3);
        if (which == 0) {
          const Node* m = pick([&](const Node& m) { return m.statement && t.starts_line(m); });
          frag = std::string(t.text(*m));
          col = m->column;
        } else if (which == 1 && !statements_.empty()) {
          const Fragment& f = statements_[r.below(statements_.size())];
          frag = f.text;
          col = f.column;
        } else {
          frag = kStatements[r.below(std::size(kStatements))];
        }
        const uint32_t a = n->start - n->column;
        return text.substr(0, a) + std::string(n->column, ' ') + reindent(frag, col, n->column) + "\n" + text.substr(a);
      }
      case 7:
      case 8: {  // an argument, element or keyword deleted / duplicated / swapped / added
        const Node* n = pick([](const Node& n) {
          return n.kind == "argument_list" || n.kind == "list" || n.kind == "tuple" || n.kind == "subscript" ||
                 n.kind == "parameters";
        });
        if (!n) break;
        auto kids = t.named_children(*n);
        if (n->kind == "subscript" && !kids.empty()) kids.erase(kids.begin());  // the subscripted value
        if (n->kind == "argument_list" && r.chance(25)) {
          const char* kw = kKeywords[r.below(std::size(kKeywords))];
          const uint32_t at = n->end - 1;  // before ')'
          return replace(text, at, at, kids.empty() ? std::string(kw) : std::string(", ") + kw);
        }
        if (kids.empty()) break;
        const Node& k = kids[r.below(kids.size())];
        switch (r.below(3)) {
          case 0: {  // delete, with the comma after (or before) it
            uint32_t a = k.start, b = k.end;
            size_t comma = text.find(',', b);
            if (&k != &kids.back() && comma != std::string::npos && comma < n->end)
              b = uint32_t(comma + 1);
            else if (&k != &kids.front())
              a = kids[size_t(&k - kids.data()) - 1].end;
            return replace(text, a, b, "");
          }
          case 1: return replace(text, k.end, k.end, ", " + std::string(t.text(k)));
          default: {
            const Node& o = kids[r.below(kids.size())];
            if (&o == &k) break;
            const Node& lo = o.start < k.start ? o : k;
            const Node& hi = o.start < k.start ? k : o;
            return text.substr(0, lo.start) + std::string(t.text(hi)) + text.substr(lo.end, hi.start - lo.end) +
                   std::string(t.text(lo)) + text.substr(hi.end);
          }
        }
        break;
      }
      case 9: {  // an identifier replaced by another name the program uses
        const Node* n = pick([](const Node& n) { return n.kind == "identifier"; });
        const Node* m = pick([](const Node& n) { return n.kind == "identifier"; });
        if (!n || !m) break;
        return replace(text, n->start, n->end, t.text(*m));
      }
      default:
        return mutate_lines(text, r);
    }
  }
  return mutate_lines(text, r);
}

std::vector<std::string> read_programs(const std::string& dir) {
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".py") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());  // directory order differs between file systems
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

}  // namespace pypto::fuzz
