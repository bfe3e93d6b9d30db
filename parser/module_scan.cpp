// Module scan: constants, dynamic symbols, DSL declarations and comments (see module_scan.h).
#include "parser/module_scan.h"

#include <algorithm>
#include <fmt/format.h>

#include "ir/diagnostic.h"

namespace pypto::parser {

namespace {

// Full-line comments (only blanks before the '#' on their line), in document order so `out` is
// sorted by row. Candidate lines are found in the text and confirmed by the CST (a '#' inside a
// multi-line string is not a comment): walking every node of the tree instead cost ~20% of the
// raw parse time.
void collect_comments(TSNode root, const ir::SourceFile& f, std::vector<Comment>& out) {
  const std::string& s = f.text;
  for (uint32_t row = 0; row < f.line_starts.size(); ++row) {
    uint32_t b = f.line_starts[row];
    while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
    if (b >= s.size() || s[b] != '#') continue;
    TSNode n = ts_node_named_descendant_for_byte_range(root, b, b);
    if (!is_comment(n) || ts_node_start_byte(n) != b) continue;
    std::string t = text(n, f);
    if (!t.empty() && t[0] == '#') t.erase(0, 1);
    if (!t.empty() && t[0] == ' ') t.erase(0, 1);
    while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
    out.push_back(Comment{row, t});
  }
}

std::string deco_name(TSNode e, const ir::SourceFile& f) {
  if (is(e, "call")) return dotted_name(field(e, "function"), f);
  return dotted_name(e, f);
}

}  // namespace

std::optional<DeclKind> classify_decorator(TSNode e, const ir::SourceFile& f, bool& is_program) {
  is_program = false;
  std::string n = deco_name(e, f);
  if (n == "pl.program") {
    is_program = true;
    return DeclKind::Function;
  }
  if (n == "pl.function") return DeclKind::Function;
  if (n == "pl.jit") return DeclKind::Jit;
  if (n == "pl.jit.incore") return DeclKind::JitIncore;
  if (n == "pl.jit.inline") return DeclKind::JitInline;
  if (n == "pl.jit.opaque") return DeclKind::JitOpaque;
  if (n == "pl.jit.host") return DeclKind::JitHost;
  if (n == "pl.jit.extern") return DeclKind::JitExtern;
  return std::nullopt;
}

ModuleInfo::ModuleInfo(const CstTree& tree, const std::vector<std::pair<std::string, std::string>>& defines)
    : file_(tree.file()) {
  const auto& f = *file_;
  collect_comments(tree.root(), f, comments_);
  int64_t prev_row = -1;
  for (TSNode top : children(tree.root())) {
    int64_t start_row = ts_node_start_point(top).row;
    if (is(top, "expression_statement")) {
      auto c = children(top);
      if (c.size() == 1 && is(c[0], "assignment")) {
        TSNode left = field(c[0], "left"), right = field(c[0], "right");
        if (is(left, "identifier") && !is_null(right)) {
          std::string name = text(left, f);
          assigns_[name] = right;
          values_.erase(name);
          TSNode r = unparen(right);
          if (is(r, "call") && dotted_name(field(r, "function"), f) == "pl.dynamic") {
            auto args = children(field(r, "arguments"));
            std::string sym = name;
            if (!args.empty()) string_value(args[0], f, sym);
            dyn_.erase(name);
            dynamic_dim(name, sym, span_of(r, file_));
          }
        }
      }
    } else if (is(top, "decorated_definition")) {
      TSNode def = field(top, "definition");
      for (TSNode d : children(top)) {
        if (!is(d, "decorator")) continue;
        auto de = children(d);
        if (de.empty()) continue;
        bool is_program = false;
        auto k = classify_decorator(de[0], f, is_program);
        if (!k) continue;
        if (is_program && is(def, "class_definition")) {
          scan_class(top, def, de[0], prev_row);
        } else if (!is_program && is(def, "function_definition")) {
          FuncDecl fd;
          fd.name = text(field(def, "name"), f);
          fd.def = def;
          fd.decorator = de[0];
          fd.kind = *k;
          fd.leading_comments = comments_between(prev_row, start_row);
          top_functions_[fd.name] = fd;
          if (*k == DeclKind::Jit || *k == DeclKind::JitHost) {
            EntryDecl e;
            e.name = fd.name;
            e.node = def;
            e.decorator = de[0];
            entries_.push_back(e);
          }
        }
        break;
      }
    }
    prev_row = ts_node_end_point(top).row;
    if (ts_node_end_point(top).column == 0 && prev_row > 0) --prev_row;
  }
  // A file without @pl.program / @pl.jit entries: its standalone kernels (@pl.jit.incore /
  // .opaque) are the entries (each compiles to a one-function program).
  if (entries_.empty()) {
    for (TSNode top : children(tree.root())) {
      if (!is(top, "decorated_definition") || !is(field(top, "definition"), "function_definition")) continue;
      std::string name = text(field(field(top, "definition"), "name"), f);
      const FuncDecl* fd = top_function(name);
      if (fd && (fd->kind == DeclKind::JitIncore || fd->kind == DeclKind::JitOpaque))
        entries_.push_back(EntryDecl{name, false, fd->def, fd->decorator, {}});
    }
  }
  // -D overrides are evaluated last so they may refer to module constants.
  for (const auto& [name, value] : defines) {
    values_[name] = eval_expression_text(value, fmt::format("-D {}={}", name, value),
                                         [this](const std::string& n, TSNode at) { return lookup(n, at); });
    assigns_.erase(name);
  }
}

void ModuleInfo::scan_class(TSNode decorated, TSNode cls, TSNode decorator, int64_t prev_row) {
  const auto& f = *file_;
  EntryDecl e;
  e.name = text(field(cls, "name"), f);
  e.is_program = true;
  e.node = cls;
  e.decorator = decorator;
  int64_t prev = ts_node_start_point(field(cls, "name")).row;
  for (TSNode m : children(field(cls, "body"))) {
    int64_t start_row = ts_node_start_point(m).row;
    if (is(m, "decorated_definition") && is(field(m, "definition"), "function_definition")) {
      for (TSNode d : children(m)) {
        if (!is(d, "decorator")) continue;
        auto de = children(d);
        bool is_program = false;
        if (de.empty() || deco_name(de[0], f) != "pl.function") continue;
        (void)classify_decorator(de[0], f, is_program);
        FuncDecl fd;
        fd.def = field(m, "definition");
        fd.name = text(field(fd.def, "name"), f);
        fd.decorator = de[0];
        fd.kind = DeclKind::Function;
        fd.leading_comments = comments_between(prev, start_row);
        e.methods.push_back(fd);
        break;
      }
    }
    prev = ts_node_end_point(m).row;
  }
  entries_.push_back(std::move(e));
}

bool ModuleInfo::defines_name(const std::string& name) const {
  return values_.count(name) || assigns_.count(name) || dyn_.count(name);
}

std::optional<ConstValue> ModuleInfo::lookup(const std::string& name, TSNode at) {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  if (auto it = dyn_.find(name); it != dyn_.end()) return ConstValue{it->second};
  auto it = assigns_.find(name);
  if (it == assigns_.end()) return std::nullopt;
  auto fail = [&] {
    return ir::CompileError("E202", span_of(at, file_),
                            fmt::format("cannot evaluate {} at compile time; pass -D {}=VALUE", name, name),
                            fmt::format("module constant '{}' is defined at line {} by an expression pypto cannot "
                                        "evaluate; override it on the command line",
                                        name, ts_node_start_point(it->second).row + 1));
  };
  if (evaluating_.count(name)) throw fail();
  evaluating_.insert(name);
  std::optional<ConstValue> v;
  try {
    ConstEvaluator ev(file_, [this](const std::string& n, TSNode a) { return lookup(n, a); });
    v = ev.try_eval(it->second);
  } catch (...) {
    evaluating_.erase(name);
    throw;
  }
  evaluating_.erase(name);
  if (!v) throw fail();
  values_[name] = *v;
  return v;
}

ir::VarPtr ModuleInfo::dynamic_dim(const std::string& py_name, const std::string& sym, const ir::Span& span) {
  if (auto it = dyn_.find(py_name); it != dyn_.end()) return it->second;
  auto v = ir::make_var(sym, ir::scalar_type(ir::DataType::INDEX), span);
  dyn_[py_name] = v;
  dyn_order_.push_back(v);
  return v;
}

const FuncDecl* ModuleInfo::top_function(const std::string& name) const {
  auto it = top_functions_.find(name);
  return it == top_functions_.end() ? nullptr : &it->second;
}

std::vector<std::string> ModuleInfo::comments_between(int64_t first_row, int64_t last_row) const {
  // comments_ is in document order, i.e. sorted by row: binary search for the first one after
  // first_row (this runs once per statement, a linear scan made the front end quadratic).
  std::vector<std::string> out;
  auto it = std::upper_bound(comments_.begin(), comments_.end(), first_row,
                             [](int64_t row, const Comment& c) { return row < int64_t(c.row); });
  for (; it != comments_.end() && int64_t(it->row) < last_row; ++it) out.push_back(it->text);
  return out;
}

}  // namespace pypto::parser
