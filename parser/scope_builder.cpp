// Scopes → IR (language.md §5-§6): `with pl.at(...)` (an InCore scope at CORE_GROUP, a Hierarchy
// scope at other levels), `with pl.cluster()`, `with pl.spmd(N)`, `with pl.scope()` /
// `pl.manual_scope()`, and the scope-shaped loops `for i in pl.spmd(N)` (an Spmd scope around an
// InCore scope whose first statement binds `i = pl.tile.get_block_idx()`) and
// `for lane in pl.split_aiv(2, mode=...)` (a SplitAiv region whose first statement binds
// `lane = pl.tile.get_subblock_idx()`). Every keyword option is kept on the ScopeStmt —
// optimizations=[pl.split(...), pl.cross_core_slot(...)], name_hint=, deps=, no_dep_args=,
// dumps=, allow_early_resolve=, windowize=, sync_start=, predicate= and `with ... as tid` — and
// checked here as the reference checks it; the passes reject what they cannot honour yet. The
// option values shared with pl.submit (deps, tensor lists, ...) are in dispatch_options.cpp.
#include <fmt/format.h>

#include <set>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

namespace {

bool is_identifier(const std::string& s) {
  static const std::set<std::string> kw = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
  if (s.empty() || kw.count(s)) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string name_hint_of(FunctionBuilder& b, TSNode v, const std::string& owner) {
  std::string s;
  if (!string_value(unparen(v), *b.file_, s))
    b.fail(v, "E009", fmt::format("{} 'name_hint' argument must be a string literal", owner), "write name_hint=\"fused_add\"");
  for (char c : s)  // the name ends up in generated comments and string literals
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      b.fail(v, "E009", "name_hint= must not contain control characters (newline, tab, NUL, ...)",
             "use a plain name such as name_hint=\"fused_add\"");
  if (!s.empty() && !is_identifier(s))
    b.fail(v, "E009", fmt::format("{} 'name_hint' must be a valid non-keyword identifier, got '{}'", owner, s),
           "use a Python identifier such as name_hint=\"fused_add\"");
  return s;
}

// `pl.<Enum>.<member>` written as an attribute literal; returns the member.
std::string enum_member(FunctionBuilder& b, TSNode v, const std::string& key, const char* enum_name) {
  v = unparen(v);
  std::string d = dotted_name(v, *b.file_);
  std::string prefix = std::string("pl.") + enum_name + ".";
  if (d.rfind(prefix, 0) != 0)
    b.fail(v, "E009", fmt::format("{}= must be written as an attribute literal like {}X", key, prefix));
  return d.substr(prefix.size());
}

SplitMode split_mode_of(FunctionBuilder& b, TSNode v, const std::string& key) {
  auto m = split_mode_from_name(enum_member(b, v, key, "SplitMode"));
  if (!m) b.fail(v, "E009", fmt::format("Unknown split mode '{}'", b.txt(v)), "write pl.SplitMode.NONE, UP_DOWN or LEFT_RIGHT");
  return *m;
}

// `pl.<name>(...)` or `pl.optimizations.<name>(...)`.
bool is_optimization(FunctionBuilder& b, TSNode e, const char* name) {
  if (!is(e, "call")) return false;
  std::string d = dotted_name(field(e, "function"), *b.file_);
  return d == std::string("pl.") + name || d == std::string("pl.optimizations.") + name;
}

int64_t slot_num_literal(FunctionBuilder& b, TSNode v, const std::string& api) {
  TSNode u = unparen(v);
  auto c = is(u, "integer") ? b.try_const(u) : std::nullopt;
  if (!c || !c->is_int()) b.fail(v, "E009", fmt::format("{} must be an integer literal", api), "write e.g. pl.cross_core_slot(slot_num=4)");
  if (c->as_int() <= 0) b.fail(v, "E009", fmt::format("{} must be positive, got {}", api, c->as_int()));
  return c->as_int();
}

struct Optimizations {
  bool written = false;
  std::optional<SplitMode> split;  // NONE is dropped: it is the "no split" spelling
  std::optional<int64_t> slot_num;
  TSNode node{};
};

Optimizations parse_optimizations(FunctionBuilder& b, TSNode v, const std::string& owner) {
  Optimizations o;
  o.written = true;
  o.node = v;
  TSNode lst = unparen(v);
  if (!is(lst, "list"))
    b.fail(v, "E009", fmt::format("{}(optimizations=...) must be a list literal", owner),
           "write optimizations=[pl.split(pl.SplitMode.UP_DOWN)]");
  bool seen_split = false, seen_slot = false, slot_from_split = false;
  for (TSNode e : children(lst)) {
    TSNode u = unparen(e);
    if (is_optimization(b, u, "split")) {
      if (seen_split) b.fail(e, "E009", "Duplicate 'pl.split(...)' in optimizations=[...]");
      seen_split = true;
      auto a = split_args(b, u);
      if (a.pos.size() != 1)
        b.fail(u, "E009", fmt::format("pl.split() takes exactly 1 positional argument, got {}", a.pos.size()),
               "write pl.split(pl.SplitMode.UP_DOWN)");
      for (const auto& [k, kv] : a.kw) {
        if (k != "slot_num")
          b.fail(kv, "E009", fmt::format("Unknown keyword argument '{}' in pl.split()", k),
                 "pl.split() accepts only the deprecated slot_num= keyword");
        if (seen_slot)
          b.fail(e, "E009", "optimizations=[...] sets the cross-core slot count twice: via pl.split(slot_num=...) "
                            "and via pl.cross_core_slot(...)",
                 "keep only pl.cross_core_slot(slot_num=N)");
        o.slot_num = slot_num_literal(b, kv, "pl.split(slot_num=...)");
        slot_from_split = seen_slot = true;
      }
      SplitMode m = split_mode_of(b, a.pos[0], "pl.split(mode)");
      if (m != SplitMode::NONE) o.split = m;
    } else if (is_optimization(b, u, "cross_core_slot")) {
      if (seen_slot && !slot_from_split) b.fail(e, "E009", "Duplicate 'pl.cross_core_slot(...)' in optimizations=[...]");
      if (slot_from_split)
        b.fail(e, "E009", "optimizations=[...] sets the cross-core slot count twice: via pl.split(slot_num=...) "
                          "and via pl.cross_core_slot(...)",
               "drop slot_num= from pl.split(...) and keep pl.cross_core_slot(slot_num=N)");
      seen_slot = true;
      auto a = split_args(b, u);
      if (!a.pos.empty())
        b.fail(u, "E009", fmt::format("pl.cross_core_slot() takes no positional arguments, got {}", a.pos.size()),
               "write pl.cross_core_slot(slot_num=4)");
      for (const auto& [k, kv] : a.kw)
        if (k != "slot_num")
          b.fail(kv, "E009", fmt::format("Unknown keyword argument '{}' in pl.cross_core_slot()", k),
                 "write pl.cross_core_slot(slot_num=4)");
      if (a.kw.empty())
        b.fail(u, "E009", "pl.cross_core_slot() requires the slot_num= keyword argument", "write pl.cross_core_slot(slot_num=4)");
      o.slot_num = slot_num_literal(b, a.kw[0].second, "pl.cross_core_slot(slot_num=...)");
    } else {
      b.fail(e, "E009", fmt::format("Unsupported entry in {}(optimizations=[...])", owner),
             "each entry is pl.split(pl.SplitMode.X) or pl.cross_core_slot(slot_num=N)");
    }
  }
  return o;
}

// Does the body read the SPMD block index (a call named get_block_idx, however spelled)?
bool reads_block_idx(FunctionBuilder& b, TSNode body) {
  bool hit = false;
  walk_tree(body, [&](TSNode n) {
    if (!is(n, "call")) return Walk::Descend;
    TSNode fn = field(n, "function");
    hit = (is(fn, "attribute") && b.txt(field(fn, "attribute")) == "get_block_idx") ||
          (is(fn, "identifier") && b.txt(fn) == "get_block_idx");
    return hit ? Walk::Stop : Walk::Descend;
  });
  return hit;
}

// Kernel dispatches in a body: `self.k(...)` calls and bare calls of DSL functions.
size_t dispatch_count(FunctionBuilder& b, TSNode body) {
  size_t n = 0;
  walk_tree(body, [&](TSNode c) {
    if (!is(c, "call")) return Walk::Descend;
    TSNode fn = field(c, "function");
    if (is(fn, "attribute") && is(field(fn, "object"), "identifier") && b.txt(field(fn, "object")) == "self") ++n;
    else if (is(fn, "identifier") && (b.ctx_.find(b.txt(fn)) || b.dsl_callee(b.txt(fn), fn))) ++n;
    return Walk::Descend;
  });
  return n;
}

// The with-item's context expression when `body` is exactly one `with pl.at(<CORE_GROUP>...)`.
TSNode explicit_incore_carrier(FunctionBuilder& b, TSNode body) {
  auto stmts = children(body);
  if (stmts.size() != 1 || !is(stmts[0], "with_statement")) return {};
  TSNode clause{};
  for (TSNode c : children(stmts[0]))
    if (is(c, "with_clause")) clause = c;
  auto items = children(clause);
  if (items.size() != 1) return {};
  TSNode val = unparen(field(items[0], "value"));
  if (is(val, "as_pattern")) val = unparen(children(val)[0]);
  if (!is(val, "call") || dotted_name(field(val, "function"), *b.file_) != "pl.at") return {};
  for (TSNode a : children(field(val, "arguments"))) {
    TSNode lv = is(a, "keyword_argument") ? (b.txt(field(a, "name")) == "level" ? field(a, "value") : TSNode{}) : a;
    if (!is_null(lv)) return dotted_name(unparen(lv), *b.file_) == "pl.Level.CORE_GROUP" ? val : TSNode{};
  }
  return {};
}

// The `as` target of a with-item (null when absent): a plain name.
TSNode as_target(FunctionBuilder& b, TSNode as_pattern, const std::string& owner) {
  TSNode alias = field(as_pattern, "alias");
  auto c = is_null(alias) ? std::vector<TSNode>{} : children(alias);
  if (c.size() != 1 || !is(c[0], "identifier"))
    b.fail(is_null(alias) ? as_pattern : alias, "E009",
           fmt::format("`as` target on `with {}(...)` must be a plain variable name", owner),
           "write `with pl.at(...) as tid:` (one name)");
  return c[0];
}

void forward_dumps(FunctionBuilder& b, ScopeStmt& s) {
  for (const auto& t : b.dump_tagged_)
    if (std::find(s.dumps.begin(), s.dumps.end(), t) == s.dumps.end()) s.dumps.push_back(t);
}

}  // namespace

// ------------------------------------------------------------------ scopes

bool FunctionBuilder::inside_scope(ScopeKind k) const {
  return std::find(scope_stack_.begin(), scope_stack_.end(), k) != scope_stack_.end();
}

std::vector<StmtPtr> FunctionBuilder::scope_body(TSNode n, std::shared_ptr<ScopeStmt> scope) {
  const bool saved_manual = in_manual_scope_;
  in_manual_scope_ = in_manual_scope_ || (scope->scope == ScopeKind::Runtime && scope->manual);
  scope_stack_.push_back(scope->scope);
  std::vector<StmtPtr> body;
  try {
    body = block(field(n, "body"), ts_node_start_point(n).row);
  } catch (...) {
    in_manual_scope_ = saved_manual;
    scope_stack_.pop_back();
    throw;
  }
  in_manual_scope_ = saved_manual;
  scope_stack_.pop_back();
  scope->body = make_body(std::move(body), sp(field(n, "body")));
  return {scope};
}

namespace {

// Binds the `as tid` name after the scope: the scope's task id (a TASK_ID scalar).
void bind_task_id(FunctionBuilder& b, ScopeStmt& s, TSNode target) {
  const std::string name = b.txt(target);
  auto it = b.names_.find(name);
  if (it != b.names_.end() && !b.loop_vars_.count(it->second.get()) && as_scalar(it->second->type) &&
      as_scalar(it->second->type)->dtype == DataType::TASK_ID && !b.strict_ssa_) {
    s.task_id = it->second;  // rebinding, as an assignment would
  } else {
    s.task_id = make_var(name, scalar_type(DataType::TASK_ID), b.sp(target));
    b.names_[name] = s.task_id;
  }
  b.poisoned_.erase(name);
}

struct SpmdArgs {
  ExprPtr core_num;
  bool sync_start = false, allow_early_resolve = false;
  std::string name_hint;
  Optimizations opt;
  std::vector<ExprPtr> deps;
  bool deps_written = false;
  ExprPtr predicate;
};

SpmdArgs parse_spmd_args(FunctionBuilder& b, TSNode call, bool allow_deps, bool loop_form) {
  SpmdArgs r;
  auto a = split_args(b, call);
  if (a.pos.size() > 1)
    b.fail(a.pos[1], "E009", "pl.spmd() accepts at most one positional argument (core_num)", "write pl.spmd(8)");
  if (!a.pos.empty()) r.core_num = b.core_num_expr(a.pos[0], "pl.spmd");
  for (const auto& [k, v] : a.kw) {
    if (loop_form && (k == "init_values" || k == "chunk" || k == "chunk_policy" || k == "attrs" || k == "step" ||
                      k == "stage"))
      b.fail(v, "E009", fmt::format("pl.spmd() loop form does not accept '{}='", k),
             "write `for i in pl.spmd(4):`; i is the block index");
    if (k == "core_num") {
      if (r.core_num) b.fail(v, "E009", "pl.spmd() got multiple values for argument 'core_num'");
      r.core_num = b.core_num_expr(v, "pl.spmd");
    } else if (k == "sync_start") {
      r.sync_start = b.bool_literal(v, "sync_start");
    } else if (k == "allow_early_resolve") {
      r.allow_early_resolve = b.bool_literal(v, "allow_early_resolve");
    } else if (k == "name_hint") {
      r.name_hint = name_hint_of(b, v, "pl.spmd()");
    } else if (k == "optimizations") {
      r.opt = parse_optimizations(b, v, "pl.spmd");
    } else if (k == "predicate") {
      r.predicate = b.predicate_expr(v, "pl.spmd()");
    } else if (k == "deps") {
      if (!allow_deps)
        b.fail(v, "E009", "pl.spmd() does not accept 'deps=' here",
               "use `with pl.spmd(n, deps=[...]) as tid:` or `out, tid = pl.spmd_submit(..., deps=[...])`");
      r.deps = b.task_deps(v, "pl.spmd()");
      r.deps_written = true;
    } else {
      b.fail(v, "E009", fmt::format("pl.spmd() got unexpected keyword argument '{}'", k),
             "keywords: core_num, sync_start, name_hint, optimizations, deps (with `as tid`), allow_early_resolve, predicate");
    }
  }
  if (!r.core_num) b.fail(call, "E009", "pl.spmd() requires core_num (first positional argument)", "write pl.spmd(8)");
  return r;
}

// name_hint of an SPMD loop / wrapped body → (Spmd scope, inner InCore scope): "q" → "q_spmd", "q".
std::pair<std::string, std::string> spmd_name_hints(const std::string& h) {
  if (h.empty()) return {"", ""};
  const std::string suffix = "_spmd";
  if (h.size() > suffix.size() && h.compare(h.size() - suffix.size(), suffix.size(), suffix) == 0)
    return {h, h.substr(0, h.size() - suffix.size())};
  return {h + suffix, h};
}

void reject_in_cluster(FunctionBuilder& b, const SpmdArgs& a, TSNode at) {
  if (!b.inside_scope(ScopeKind::Cluster)) return;
  if (a.allow_early_resolve || a.predicate)
    b.fail(at, "E009",
           fmt::format("`pl.spmd(..., {})` cannot be nested inside `pl.cluster()`: a cluster-nested pl.spmd is part of "
                       "the cluster's one task, so {} would be lost",
                       a.allow_early_resolve ? "allow_early_resolve=True" : "predicate=(...)",
                       a.allow_early_resolve ? "the early-dispatch hint" : "the dispatch predicate"),
           "use a standalone `with pl.spmd(...)` to keep it");
}

}  // namespace

std::vector<StmtPtr> FunctionBuilder::with_stmt(TSNode n) {
  const auto& f = *file_;
  TSNode clause{};
  for (TSNode c : children(n))
    if (is(c, "with_clause")) clause = c;
  auto items = children(clause);
  if (items.size() != 1) fail(n, "E009", "Only single context manager supported in with statement");
  TSNode val = unparen(field(items[0], "value"));
  TSNode as_pat{};
  if (is(val, "as_pattern")) {
    as_pat = val;
    val = unparen(children(val)[0]);
  }
  if (!is(val, "call")) fail(val, "E009", "Unsupported context manager in with statement");
  std::string dn = dotted_name(field(val, "function"), f);
  if (dn == "pl.incore") fail(val, "E009", "There is no pl.incore(); use pl.at(level=pl.Level.CORE_GROUP)");
  if (!is_null(as_pat) && dn != "pl.at" && dn != "pl.spmd" &&
      (dn == "pl.cluster" || dn == "pl.scope" || dn == "pl.manual_scope"))
    fail(as_pat, "E009",
         fmt::format("`with {}(...) as ...:` is not supported: the `as` clause only applies to `with pl.at(...) as tid:` "
                     "and `with pl.spmd(...) as tid:`",
                     dn),
         "drop the `as` target");
  const Span s = sp(n);
  if (dn == "pl.at") {
    auto a = split_args(*this, val);
    if (a.pos.size() > 2)
      fail(val, "E009", fmt::format("pl.at() takes at most 2 positional arguments, got {}", a.pos.size()),
           "write pl.at(level=pl.Level.CORE_GROUP)");
    TSNode level_node = a.pos.size() > 0 ? a.pos[0] : TSNode{}, role_node = a.pos.size() > 1 ? a.pos[1] : TSNode{};
    Optimizations opt;
    TSNode deps_node{}, nodep_node{}, dumps_node{};
    std::string hint;
    bool early = false, windowize = false;
    for (const auto& [k, v] : a.kw) {
      if (k == "level") {
        if (!is_null(level_node)) fail(v, "E009", "pl.at() got multiple values for argument 'level'");
        level_node = v;
      } else if (k == "role") {
        if (!is_null(role_node)) fail(v, "E009", "pl.at() got multiple values for argument 'role'");
        role_node = v;
      } else if (k == "optimizations") {
        opt = parse_optimizations(*this, v, "pl.at");
      } else if (k == "name_hint") {
        hint = name_hint_of(*this, v, "pl.at()");
      } else if (k == "deps") {
        deps_node = v;
      } else if (k == "no_dep_args") {
        nodep_node = v;
      } else if (k == "dumps") {
        dumps_node = v;
      } else if (k == "allow_early_resolve") {
        early = bool_literal(v, "pl.at() allow_early_resolve");
      } else if (k == "windowize") {
        windowize = bool_literal(v, "pl.at() windowize");
      } else {
        fail(v, "E009", fmt::format("Unknown keyword argument '{}' in pl.at()", k),
             "keywords: level, role, optimizations, name_hint, deps, no_dep_args, dumps, allow_early_resolve, windowize");
      }
    }
    if (is_null(level_node)) fail(val, "E009", "pl.at() requires a level argument", "write pl.at(level=pl.Level.CORE_GROUP)");
    auto lv = level_from_name(enum_member(*this, level_node, "level", "Level"));
    if (!lv) fail(level_node, "E009", fmt::format("Unknown level '{}'", txt(level_node)));
    std::optional<Role> role;
    if (!is_null(role_node)) {
      role = role_from_name(enum_member(*this, role_node, "role", "Role"));
      if (!role) fail(role_node, "E009", fmt::format("Unknown role '{}'", txt(role_node)));
    }
    const bool core_group = *lv == Level::CORE_GROUP;
    if ((opt.split || opt.slot_num) && !core_group)
      fail(opt.node, "E009",
           "optimizations=[pl.split(...)] / optimizations=[pl.cross_core_slot(...)] are only supported with "
           "level=pl.Level.CORE_GROUP",
           "write pl.at(level=pl.Level.CORE_GROUP, optimizations=[...])");
    if (core_group && role) fail(role_node, "E009", "role= is not allowed with pl.Level.CORE_GROUP");
    if (!core_group && *lv >= Level::HOST && role == Role::SubWorker)
      fail(role_node, "E009", "Inline 'with pl.at(level>=HOST, role=pl.Role.SubWorker)' is not supported",
           "declare a SubWorker as @pl.function(level=..., role=pl.Role.SubWorker) without self");
    auto scope = std::make_shared<ScopeStmt>(core_group ? ScopeKind::InCore : ScopeKind::Hierarchy, nullptr, s);
    scope->level = *lv;
    scope->role = role;
    scope->name_hint = hint;
    scope->split = opt.split;
    scope->slot_num = opt.slot_num;
    if (!is_null(deps_node)) scope->deps = task_deps(deps_node, "pl.at()");
    if (!is_null(nodep_node)) scope->no_dep_args = tensor_names(nodep_node, "pl.at", "no_dep_args");
    if (!is_null(dumps_node)) scope->dumps = tensor_names(dumps_node, "pl.at", "dumps");
    forward_dumps(*this, *scope);
    scope->allow_early_resolve = early;
    scope->windowize = windowize;
    TSNode tid = is_null(as_pat) ? TSNode{} : as_target(*this, as_pat, "pl.at");
    auto out = scope_body(n, scope);
    if (!is_null(tid)) bind_task_id(*this, *scope, tid);
    return out;
  }
  if (dn == "pl.cluster") {
    auto a = split_args(*this, val);
    if (!a.pos.empty()) fail(a.pos[0], "E009", "pl.cluster() does not accept positional arguments", "write `with pl.cluster():`");
    auto scope = std::make_shared<ScopeStmt>(ScopeKind::Cluster, nullptr, s);
    for (const auto& [k, v] : a.kw) {
      if (k != "name_hint")
        fail(v, "E009", fmt::format("pl.cluster() got unexpected keyword argument '{}'", k),
             "the keyword is name_hint=; for SPMD dispatch use pl.spmd(N)");
      scope->name_hint = name_hint_of(*this, v, "pl.cluster()");
    }
    return scope_body(n, scope);
  }
  if (dn == "pl.spmd") {
    const bool with_tid = !is_null(as_pat);
    auto a = parse_spmd_args(*this, val, with_tid, false);
    if (with_tid && inside_scope(ScopeKind::Cluster))
      fail(as_pat, "E009", "`with pl.spmd(...) as tid:` cannot capture a TaskId when nested inside `pl.cluster()`",
           "use a standalone `with pl.spmd(...) as tid:`");
    reject_in_cluster(*this, a, val);
    TSNode tid = with_tid ? as_target(*this, as_pat, "pl.spmd") : TSNode{};
    auto spmd = std::make_shared<ScopeStmt>(ScopeKind::Spmd, nullptr, s);
    spmd->core_num = a.core_num;
    spmd->sync_start = a.sync_start;
    spmd->deps = a.deps;
    spmd->allow_early_resolve = a.allow_early_resolve;
    spmd->predicate = a.predicate;
    TSNode body = field(n, "body");
    const bool has_opt = a.opt.split || a.opt.slot_num;
    bool wrap = false;
    if (TSNode carrier = explicit_incore_carrier(*this, body); !is_null(carrier)) {
      if (a.opt.written && has_opt)
        fail(a.opt.node, "E009",
             "`optimizations=` belongs on the InCore scope, but the body already provides one as the inner "
             "`pl.at(level=pl.Level.CORE_GROUP, ...)`",
             "keep `optimizations=[...]` on the inner `pl.at(...)` only");
    } else {
      const bool inline_body = reads_block_idx(*this, body);
      const size_t calls = inline_body ? 0 : dispatch_count(*this, body);
      if (!inline_body && calls == 0)
        fail(val, "E009",
             "`with pl.spmd(...)` body neither reads the per-block index via `pl.tile.get_block_idx()` nor dispatches a "
             "`self.<kernel>(...)` call, so every block would run identical work",
             "add `i = pl.tile.get_block_idx()`, dispatch a kernel, or write `for i in pl.spmd(n):`");
      if (calls > 1)
        fail(val, "E009",
             fmt::format("`with pl.spmd(...)` dispatch body launches {} kernels; only one kernel dispatch per SPMD "
                         "scope is supported",
                         calls),
             "use one pl.spmd scope per kernel");
      wrap = inline_body || has_opt;
    }
    std::vector<StmtPtr> out;
    if (!wrap) {
      spmd->name_hint = a.name_hint;
      out = scope_body(n, spmd);
    } else {
      auto [outer, inner] = spmd_name_hints(a.name_hint);
      spmd->name_hint = outer;
      auto incore = std::make_shared<ScopeStmt>(ScopeKind::InCore, nullptr, s);
      incore->level = Level::CORE_GROUP;
      incore->name_hint = inner;
      incore->split = a.opt.split;
      incore->slot_num = a.opt.slot_num;
      forward_dumps(*this, *incore);
      scope_stack_.push_back(ScopeKind::Spmd);
      try {
        scope_body(n, incore);
      } catch (...) {
        scope_stack_.pop_back();
        throw;
      }
      scope_stack_.pop_back();
      spmd->body = incore;
      out = {spmd};
    }
    if (!is_null(tid)) bind_task_id(*this, *spmd, tid);
    return out;
  }
  if (dn == "pl.scope" || dn == "pl.manual_scope") {
    auto a = split_args(*this, val);
    bool manual = dn == "pl.manual_scope";
    if (manual && (!a.pos.empty() || !a.kw.empty()))
      fail(val, "E009", "pl.manual_scope() does not accept arguments", "write `with pl.manual_scope():`");
    if (!a.pos.empty()) fail(a.pos[0], "E009", "pl.scope() takes no positional arguments", "write pl.scope(mode=pl.ScopeMode.MANUAL)");
    for (const auto& [k, v] : a.kw) {
      if (k != "mode")
        fail(v, "E009", fmt::format("Unknown keyword argument '{}' in pl.scope()", k), "the only keyword is mode=");
      std::string m = enum_member(*this, v, "mode", "ScopeMode");
      if (m != "MANUAL" && m != "AUTO") fail(v, "E009", fmt::format("Unknown scope mode '{}'", m));
      manual = m == "MANUAL";
    }
    if (manual && in_manual_scope_)
      fail(val, "E009", "a manual scope may not be nested inside another manual scope",
           "flatten it into the enclosing manual scope");
    if (!manual && in_manual_scope_)
      fail(val, "E009", "an AUTO scope may not be nested inside a manual scope", "move it outside the manual scope");
    if (!manual && fn_->auto_scope)
      fail(val, "E009", "a hand-placed AUTO 'with pl.scope()' requires @pl.function(auto_scope=False)",
           "with auto_scope=True the compiler places AUTO scopes; set auto_scope=False to place them yourself");
    auto scope = std::make_shared<ScopeStmt>(ScopeKind::Runtime, nullptr, s);
    scope->manual = manual;
    return scope_body(n, scope);
  }
  fail(val, "E009", "Unsupported context manager in with statement",
       "use pl.at(level=...), pl.cluster(), pl.spmd(N), pl.scope() or pl.manual_scope()");
}

// `for i in pl.spmd(N, ...)`: Spmd(InCore(i = pl.tile.get_block_idx(); body)).
std::vector<StmtPtr> FunctionBuilder::spmd_for(TSNode n, TSNode call) {
  TSNode left = field(n, "left");
  if (!is(left, "identifier"))
    fail(left, "E003", "for ... in pl.spmd(...) must use a single loop variable", "write `for i in pl.spmd(4):`");
  auto a = parse_spmd_args(*this, call, false, true);
  reject_in_cluster(*this, a, call);
  const Span s = sp(n);
  auto [outer, inner] = spmd_name_hints(a.name_hint);
  auto spmd = std::make_shared<ScopeStmt>(ScopeKind::Spmd, nullptr, s);
  spmd->core_num = a.core_num;
  spmd->sync_start = a.sync_start;
  spmd->allow_early_resolve = a.allow_early_resolve;
  spmd->predicate = a.predicate;
  spmd->name_hint = outer;
  auto incore = std::make_shared<ScopeStmt>(ScopeKind::InCore, nullptr, s);
  incore->level = Level::CORE_GROUP;
  incore->name_hint = inner;
  incore->split = a.opt.split;
  incore->slot_num = a.opt.slot_num;
  forward_dumps(*this, *incore);
  auto idx = make_var(txt(left), scalar_type(DataType::INDEX), sp(left));
  auto bind_idx = std::make_shared<AssignStmt>(idx, make_call("tile.get_block_idx", {}, {}, sp(call)), s);
  names_[txt(left)] = idx;
  poisoned_.erase(txt(left));
  scope_stack_.push_back(ScopeKind::Spmd);
  scope_stack_.push_back(ScopeKind::InCore);
  std::vector<StmtPtr> body;
  try {
    body = block(field(n, "body"), ts_node_start_point(call).row);
  } catch (...) {
    scope_stack_.resize(scope_stack_.size() - 2);
    throw;
  }
  scope_stack_.resize(scope_stack_.size() - 2);
  body.insert(body.begin(), bind_idx);
  incore->body = make_body(std::move(body), sp(field(n, "body")));
  spmd->body = incore;
  return {spmd};
}

// `for lane in pl.split_aiv(2, mode=...)`: SplitAiv(lane = pl.tile.get_subblock_idx(); body), itself
// inside an InCore scope when written in orchestration code.
std::vector<StmtPtr> FunctionBuilder::split_aiv_for(TSNode n, TSNode call) {
  const std::string hint =
      "write `for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):` (2 AIV lanes; NONE runs the full body on each, "
      "UP_DOWN / LEFT_RIGHT halve the vector work)";
  if (inside_scope(ScopeKind::SplitAiv))
    fail(n, "E009", "nested 'for ... in pl.split_aiv(...)' is not allowed: a split_aiv body already represents the two AIV lanes",
         hint);
  TSNode left = field(n, "left");
  if (!is(left, "identifier")) fail(left, "E003", "for ... in pl.split_aiv(...) must use a single loop variable", hint);
  auto a = split_args(*this, call);
  std::optional<SplitMode> mode;
  for (const auto& [k, v] : a.kw) {
    if (k == "init_values" || k == "chunk" || k == "chunk_policy" || k == "attrs" || k == "step" || k == "stage")
      fail(v, "E009", fmt::format("pl.split_aiv() loop form does not accept '{}='", k), hint);
    if (k == "optimizations")
      fail(v, "E009", "pl.split_aiv() does not accept 'optimizations=': pl.split_aiv() is itself the split declaration",
           hint);
    if (k != "mode") fail(v, "E009", fmt::format("pl.split_aiv() got unexpected keyword argument '{}'", k), hint);
    mode = split_mode_of(*this, v, "mode");
  }
  if (a.pos.size() != 1)
    fail(call, "E009", "pl.split_aiv() takes exactly one positional argument (n, the AIV sub-core count)", hint);
  auto nv = try_const(a.pos[0]);
  if (!nv || !nv->is_int() || nv->as_int() != 2)
    fail(a.pos[0], "E009", fmt::format("pl.split_aiv(n) requires n == 2 (the AIV sub-core count), got {}", txt(a.pos[0])),
         hint);
  if (!mode) fail(call, "E009", "pl.split_aiv() requires mode= (pl.SplitMode.NONE, UP_DOWN or LEFT_RIGHT)", hint);
  const Span s = sp(n);
  auto region = std::make_shared<ScopeStmt>(ScopeKind::SplitAiv, nullptr, s);
  region->split = *mode;
  auto lane = make_var(txt(left), scalar_type(DataType::INDEX), sp(left));
  auto bind_lane = std::make_shared<AssignStmt>(lane, make_call("tile.get_subblock_idx", {}, {}, sp(call)), s);
  names_[txt(left)] = lane;
  poisoned_.erase(txt(left));
  const bool wrap = !inside_scope(ScopeKind::InCore) && !is_incore_like(fn_->type);
  scope_stack_.push_back(ScopeKind::SplitAiv);
  loops_.push_back(LoopFrame{"split_aiv"});
  split_aiv_modes_.push_back(*mode);
  std::vector<StmtPtr> body;
  try {
    body = block(field(n, "body"), ts_node_start_point(call).row);
  } catch (...) {
    scope_stack_.pop_back();
    loops_.pop_back();
    split_aiv_modes_.pop_back();
    throw;
  }
  scope_stack_.pop_back();
  loops_.pop_back();
  split_aiv_modes_.pop_back();
  body.insert(body.begin(), bind_lane);
  region->body = make_body(std::move(body), sp(field(n, "body")));
  if (!wrap) return {region};
  auto incore = std::make_shared<ScopeStmt>(ScopeKind::InCore, region, s);
  incore->level = Level::CORE_GROUP;
  forward_dumps(*this, *incore);
  return {incore};
}

}  // namespace pypto::parser
