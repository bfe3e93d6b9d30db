// Module execution order and assignments to other modules' globals (see module_scan.h, execute):
// the program-wide numbering of top-level statements in the order Python runs them, the
// `config.TP = TP_SIZE` statements recorded as assignments to config's TP at their time, what a
// lookup at a given time sees, and warnings for assignments to a module that pypto does not follow
// (inside a function, setattr, augmented or chained assignments).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fmt/format.h>

#include "parser/module_scan.h"
#include "parser/module_set.h"

namespace pypto::parser {

namespace {

// Modules that are never files pypto reads (host modules, the DSL itself, evaluator builtins).
bool not_a_file(const std::string& m) {
  return host_module(m) || m == "math" || m == "dataclasses" || m == "operator" || m.rfind("pypto", 0) == 0;
}

bool inside(TSNode inner, TSNode outer) {
  return ts_node_start_byte(inner) >= ts_node_start_byte(outer) && ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

}  // namespace

uint64_t ModuleInfo::seq_of(TSNode n) const {
  if (stmt_seq_.empty() || ts_node_is_null(n)) return ModuleSet::after_all;
  return seq_at(ts_node_start_byte(n));
}

uint64_t ModuleInfo::seq_at(uint32_t b) const {
  if (stmt_seq_.empty()) return ModuleSet::after_all;
  auto it = std::upper_bound(stmt_seq_.begin(), stmt_seq_.end(), b,
                             [](uint32_t x, const std::pair<uint32_t, uint64_t>& e) { return x < e.first; });
  if (it == stmt_seq_.begin()) return stmt_seq_.front().second;
  return std::prev(it)->second;
}

ModuleInfo* ModuleInfo::bound_module(const std::string& name) {
  auto it = imports_.find(name);
  if (it == imports_.end()) return nullptr;
  const Import& imp = it->second;
  if (imp.level == 0 && not_a_file(imp.module)) return nullptr;
  try {
    std::vector<std::string> searched;
    ModuleInfo* t = set_.import(imp.module, imp.level, *this, searched);
    if (imp.attr.empty()) return t;
    const std::string sub = imp.module.empty() ? imp.attr : imp.module + "." + imp.attr;
    if (t && t->module_name() == sub) return t;
    if (!t || !t->defines_name(imp.attr)) return set_.import(sub, imp.level, *this, searched);
  } catch (const ir::CompileError&) {
    // A module that cannot be read: the import reports it when a name from it is needed.
  }
  return nullptr;
}

void ModuleInfo::run_import(TSNode stmt) {
  // Runs (loads) every module the statement imports, packages before their submodules. Nothing is
  // reported here: a missing module is an error only where one of its names is needed.
  auto run = [&](const std::string& dotted, int level) {
    std::vector<std::string> searched;
    for (size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', dot + 1)) {
      try {
        set_.import(dotted.substr(0, dot), level, *this, searched);
      } catch (const ir::CompileError&) {
      }
    }
    try {
      return set_.import(dotted, level, *this, searched);
    } catch (const ir::CompileError&) {
      return static_cast<ModuleInfo*>(nullptr);
    }
  };
  const auto& f = *file_;
  if (is(stmt, "import_statement")) {
    for (TSNode n : children(stmt)) {
      std::string d = text(is(n, "aliased_import") ? field(n, "name") : n, f);
      if (!not_a_file(d)) run(d, 0);
    }
    return;
  }
  const auto bound = imports_of(stmt);
  if (bound.empty()) {  // from m import *: m runs (its names are not bound here)
    TSNode mod = field(stmt, "module_name");
    if (is(mod, "dotted_name") && !not_a_file(text(mod, f))) run(text(mod, f), 0);
    return;
  }
  for (const auto& [name, imp] : bound) {
    if (imp.level == 0 && not_a_file(imp.module)) continue;
    ModuleInfo* t = run(imp.module, imp.level);
    // `from pkg import sub`: sub may be a submodule.
    const std::string sub = imp.module.empty() ? imp.attr : imp.module + "." + imp.attr;
    if (!t || (t->module_name() != sub && !t->defines_name(imp.attr))) run(sub, imp.level);
  }
}

void ModuleInfo::record_assignment(TSNode top, uint64_t seq) {
  if (!is(top, "expression_statement")) return;
  auto c = children(top);
  if (c.size() != 1 || !is(c[0], "assignment")) return;
  TSNode left = field(c[0], "left"), right = field(c[0], "right");
  if (!is(left, "attribute") || is_null(right) || is(right, "assignment")) return;
  TSNode obj = field(left, "object");
  if (!is(obj, "identifier")) return;
  ModuleInfo* m = bound_module(text(obj, *file_));
  if (!m) return;  // not a module: an attribute of a Python object (`f.__name__ = ...`)
  m->overrides_[text(field(left, "attribute"), *file_)].push_back(Override{this, top, right, seq, std::nullopt, false});
}

void ModuleInfo::execute(TSNode root) {
  // The deferred defs (not in the tree) are statements too, in their places.
  const std::vector<DeferredDef>& later = tree_->deferred();
  size_t next_deferred = 0;
  auto take_deferred = [&](uint32_t before) {
    for (; next_deferred < later.size() && later[next_deferred].start_byte < before; ++next_deferred)
      stmt_seq_.emplace_back(later[next_deferred].start_byte, set_.next_seq());
  };
  for (TSNode top : children(root)) {
    take_deferred(ts_node_start_byte(top));
    if (is(top, "import_statement") || is(top, "import_from_statement")) {
      run_import(top);
    } else if (is(top, "try_statement")) {
      for (TSNode s : children(field(top, "body")))
        if (is(s, "import_statement") || is(s, "import_from_statement")) run_import(s);
    }
    // A statement's number is taken when it completes, after the modules it imports ran.
    const uint64_t seq = set_.next_seq();
    stmt_seq_.emplace_back(ts_node_start_byte(top), seq);
    record_assignment(top, seq);
  }
  take_deferred(UINT32_MAX);
  warn_unfollowed_assignments(root);
}

std::optional<uint64_t> ModuleInfo::own_seq(const std::string& name) const {
  if (auto it = assigns_.find(name); it != assigns_.end()) return seq_of(it->second);
  if (auto it = tuple_assigns_.find(name); it != tuple_assigns_.end()) return seq_of(it->second.first);
  if (auto it = imports_.find(name); it != imports_.end()) return seq_of(it->second.node);
  if (auto it = functions_.find(name); it != functions_.end()) {
    const ConstFunction& fn = *it->second;  // a deferred def: its start byte, without parsing it
    return ts_node_is_null(fn.def) && fn.deferred ? seq_at(tree_->deferred()[deferred_.at(name)].start_byte)
                                                  : seq_of(fn.def);
  }
  if (auto it = classes_.find(name); it != classes_.end()) return seq_of(it->second->node);
  if (auto it = cond_defs_.find(name); it != cond_defs_.end()) return seq_of(it->second);
  if (values_.count(name) || dyn_.count(name) || top_functions_.count(name)) return uint64_t(0);
  return std::nullopt;
}

ModuleInfo::Override* ModuleInfo::override_at(const std::string& name) {
  auto it = overrides_.find(name);
  if (it == overrides_.end()) return nullptr;
  const uint64_t t = set_.now();
  Override* last = nullptr;
  for (Override& o : it->second)
    if (o.seq < t) last = &o;
  const auto own = own_seq(name);
  // A name only assignments define, looked up before the first (Python: AttributeError): the first.
  if (!last) return own ? nullptr : &it->second.front();
  // The module's own (re)definition after the assignment, before now, wins.
  if (own && *own > last->seq && *own < t) return nullptr;
  return last;
}

ConstValue ModuleInfo::override_value(const std::string& name, Override& o) {
  if (o.cached) return *o.cached;
  ModuleInfo* by = o.by;
  const std::string qual = fmt::format("{}.{}", name_, name);
  if (o.evaluating)
    throw ir::CompileError("E202", span_of(o.value, by->file_),
                           fmt::format("the value assigned to {} is defined in terms of itself", qual),
                           "break the cycle: compute the value once and assign it");
  struct Guard {
    bool& b;
    ~Guard() { b = false; }
  } guard{o.evaluating};
  o.evaluating = true;
  // Evaluated in the assigning module, as it ran that statement.
  ModuleSet::At when(set_, o.seq);
  ConstEvaluator::clear_non_constant_site();
  ConstEvaluator ev(by->file_, [by](const std::string& n, TSNode a) { return by->global(n, a); }, by);
  auto v = ev.try_eval(o.value);
  if (!v)
    throw ir::CompileError("E202", span_of(o.value, by->file_),
                           fmt::format("cannot evaluate the value assigned to {} at compile time", qual),
                           fmt::format("this statement (line {} of {}) sets {} for the code that runs after it; "
                                       "pass -D {}=VALUE to set it instead",
                                       ts_node_start_point(o.stmt).row + 1, by->file_->path, qual, qual));
  o.cached = *v;
  return *v;
}

void ModuleInfo::warn_unfollowed_assignments(TSNode root) {
  const std::string& s = file_->text;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<std::pair<std::string, ModuleInfo*>> mods;
  for (const auto& [name, imp] : imports_)
    if (ModuleInfo* m = bound_module(name)) mods.emplace_back(name, m);
  if (mods.empty()) return;
  auto report = [&](TSNode at, TSNode stmt, ModuleInfo* m, const std::string& attr, const std::string& form) {
    std::string where;
    for (TSNode p = ts_node_parent(stmt); !is_null(p); p = ts_node_parent(p))
      if (is(p, "function_definition")) {
        where = fmt::format(" inside function '{}'", text(field(p, "name"), *file_));
        break;
      }
    const std::string qual = fmt::format("{}.{}", m->module_name(), attr.empty() ? "<name>" : attr);
    set_.warnings().push_back(ir::Diagnostic{
        ir::Severity::Warning, "W013",
        fmt::format("pypto does not follow this {}{} of {}: the program is compiled with {}'s value without it",
                    form, where, qual, m->module_name()),
        span_of(at, file_),
        fmt::format("pypto follows only top-level `{} = value` statements (in the order Python runs them); "
                    "-D {}=VALUE sets the value explicitly",
                    qual, qual),
        {}});
  };
  // The tree holding byte `p`: the module's, or a deferred def's (parsed for this when `parse`
  // says the text there may be what is looked for; null: not looked at).
  auto tree_at = [&](size_t p, auto&& parse) -> TSNode {
    const std::vector<DeferredDef>& later = tree_->deferred();
    auto it = std::upper_bound(later.begin(), later.end(), uint32_t(p),
                               [](uint32_t b, const DeferredDef& d) { return b < d.start_byte; });
    if (it == later.begin() || p >= std::prev(it)->end_byte) return root;
    const size_t i = size_t(it - later.begin()) - 1;
    if (!parse()) return TSNode{};
    try {
      return tree_->deferred_node(i);
    } catch (const ir::CompileError&) {
      return TSNode{};  // a def with a syntax error: reported if it is ever used
    }
  };
  for (const auto& [name, m] : mods) {
    const std::string pat = name + ".";
    for (size_t p = s.find(pat); p != std::string::npos; p = s.find(pat, p + 1)) {
      if (p > 0 && (ident(s[p - 1]) || s[p - 1] == '.')) continue;
      // In a deferred def, an `M.attr` followed by `.`, `(` or `[` is read, not assigned (W013 is
      // about `M.attr` itself as a target): only other uses are worth the def's parse.
      TSNode in = tree_at(p, [&] {
        size_t q = p + pat.size();
        while (q < s.size() && (ident(s[q]) || static_cast<unsigned char>(s[q]) >= 0x80)) ++q;
        while (q < s.size() && (s[q] == ' ' || s[q] == '\t')) ++q;
        return q >= s.size() || !std::strchr(".([", s[q]);
      });
      if (ts_node_is_null(in)) continue;
      TSNode id = ts_node_named_descendant_for_byte_range(in, uint32_t(p), uint32_t(p + name.size()));
      if (!is(id, "identifier") || ts_node_start_byte(id) != p) continue;
      TSNode attr = ts_node_parent(id);
      if (!is(attr, "attribute") || !ts_node_eq(field(attr, "object"), id)) continue;
      TSNode up = ts_node_parent(attr);
      while (is(up, "pattern_list") || is(up, "tuple_pattern") || is(up, "list_pattern")) up = ts_node_parent(up);
      if (!is(up, "assignment") && !is(up, "augmented_assignment")) continue;
      TSNode left = field(up, "left");
      if (is_null(left) || !inside(attr, left)) continue;
      TSNode stmt = ts_node_parent(up);
      const bool followed = is(up, "assignment") && ts_node_eq(left, attr) && is(stmt, "expression_statement") &&
                            ts_node_eq(ts_node_parent(stmt), root) && !is(field(up, "right"), "assignment") &&
                            !is(ts_node_parent(up), "assignment");
      if (followed) continue;
      const char* form = is(up, "augmented_assignment") ? "augmented assignment"
                         : !ts_node_eq(left, attr)      ? "unpacking assignment"
                         : is(ts_node_parent(up), "assignment") || is(field(up, "right"), "assignment")
                             ? "chained assignment"
                             : "assignment";
      report(attr, up, m, text(field(attr, "attribute"), *file_), form);
    }
  }
  // setattr(config, "NAME", value)
  for (size_t p = s.find("setattr("); p != std::string::npos; p = s.find("setattr(", p + 1)) {
    if (p > 0 && (ident(s[p - 1]) || s[p - 1] == '.')) continue;
    TSNode in = tree_at(p, [] { return true; });
    if (ts_node_is_null(in)) continue;
    TSNode id = ts_node_named_descendant_for_byte_range(in, uint32_t(p), uint32_t(p + 7));
    if (!is(id, "identifier") || ts_node_start_byte(id) != p) continue;
    TSNode call = ts_node_parent(id);
    if (!is(call, "call") || !ts_node_eq(field(call, "function"), id)) continue;
    auto args = children(field(call, "arguments"));
    if (args.empty() || !is(args[0], "identifier")) continue;
    const std::string obj = text(args[0], *file_);
    for (const auto& [name, m] : mods)
      if (name == obj) {
        std::string attr;
        if (args.size() > 1) string_value(args[1], *file_, attr);
        report(call, call, m, attr, "setattr");
      }
  }
}

std::string ModuleInfo::function_text(const ConstFunction& fn) const {
  if (ts_node_is_null(fn.def) && fn.deferred) {
    const DeferredDef& d = tree_->deferred()[deferred_.at(fn.name)];
    return file_->text.substr(d.start_byte, d.end_byte - d.start_byte);
  }
  return text(fn.def, *file_);
}

}  // namespace pypto::parser
