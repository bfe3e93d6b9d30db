// Looking up a module global (see module_scan.h): a -D value wins, then an assignment another
// module's top level made to it (module_exec.cpp), then the module's own binding -- the one made
// last before the lookup's time when the name is bound more than once (module_rebind.cpp) -- which
// is evaluated once, when first needed, at the time of its own statement; a failure is kept and
// reported again at each use. Also: -D values, the errors of a global outside the constant subset
// (with where its definition leaves it), the DSL def a module-level `if` selects, and imports.
#include "parser/module_scan.h"

#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "parser/module_set.h"

namespace pypto::parser {

namespace {

// Does the text of `n` read the environment, argv or files? (for the hint of a failed constant)
bool reads_environment(const std::string& t) {
  return t.find("sys.argv") != std::string::npos || t.find("os.environ") != std::string::npos ||
         t.find("getenv") != std::string::npos || t.find("open(") != std::string::npos;
}

}  // namespace

void ModuleInfo::apply_defines(const std::vector<std::pair<std::string, std::string>>& defines) {
  for (const auto& [name, value] : defines) {
    cli_text_[name] = value;
    cli_defined_.insert(name);
  }
}

void ModuleInfo::evaluate_defines() {
  for (const auto& [name, text] : cli_text_) cli_value(name);
}

ConstValue ModuleInfo::cli_value(const std::string& name) {
  if (auto it = cli_values_.find(name); it != cli_values_.end()) return it->second;
  // Evaluated in the module's scope, after every module ran, so they may refer to module
  // constants (in the value, `name` itself is the module's own value: -D N=N*2). A bare word that
  // names nothing (-D config.ACTIVE_VARIANT=pro) is taken as that string.
  const std::string& value = cli_text_.at(name);
  struct Guard {
    std::set<std::string>& s;
    std::string n;
    int& in_progress;
    ~Guard() {
      s.erase(n);
      --in_progress;
    }
  } guard{cli_evaluating_, name, set_.defines_in_progress};
  cli_evaluating_.insert(name);
  ++set_.defines_in_progress;
  ModuleSet::At when(set_, ModuleSet::after_all);
  auto lookup = [this](const std::string& n, TSNode at) { return global(n, at); };
  bool word = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  bool number = !value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '-');
  ConstValue v = word && !number && value != "True" && value != "False" && value != "None" && !defines_name(value)
                     ? ConstValue{value}
                     : eval_expression_text(value, fmt::format("-D {}={}", name, value), lookup, this);
  return cli_values_[name] = v;
}

void ModuleInfo::not_constant(const std::string& name, TSNode at, TSNode def) {
  std::string def_text = text(def, *file_);
  // Calls of helpers of this module anywhere in the definition: look into their bodies too.
  std::vector<TSNode> stack{def};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is(n, "identifier"))
      if (auto it = functions_.find(text(n, *file_)); it != functions_.end()) def_text += function_text(*it->second);
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) stack.push_back(ts_node_named_child(n, i));
  }
  const std::string qual = name_.empty() ? name : fmt::format("{}.{}", name_, name);
  const bool main = !set_.files_read().empty() && set_.files_read().front() == file_->path;
  const std::string dname = main ? name : qual;
  // A call whose body left the constant subset: where (the innermost statement).
  if (auto site = ConstEvaluator::non_constant_site(); site && !reads_environment(def_text)) {
    ir::Diagnostic d{ir::Severity::Error, "E202",
                     fmt::format("cannot evaluate {} at compile time: the function it calls leaves the constant "
                                 "subset pypto evaluates",
                                 name),
                     span_of(at, file_),
                     fmt::format("'{}' is defined at line {} of {}; a function run at compile time may assign "
                                 "constants, branch and loop over them and define DSL functions (-D {}=VALUE "
                                 "overrides a data value)",
                                 name, ts_node_start_point(def).row + 1, file_->path, dname),
                     {}};
    d.notes.emplace_back(*site, "this statement is outside the constant subset");
    throw ir::CompileError({d});
  }
  if (reads_environment(def_text))
    throw ir::CompileError("E202", span_of(at, file_),
                           fmt::format("cannot evaluate {} at compile time: its value comes from the command line or "
                                       "the environment; pass -D {}=VALUE",
                                       name, dname),
                           fmt::format("'{}' (line {} of {}) reads sys.argv / the environment, which pypto never "
                                       "evaluates; -D {}=VALUE sets it",
                                       name, ts_node_start_point(def).row + 1, file_->path, dname));
  throw ir::CompileError("E202", span_of(at, file_),
                         fmt::format("cannot evaluate {} at compile time; pass -D {}=VALUE", name, dname),
                         fmt::format("'{}' is defined at line {} of {} by an expression outside the constant subset "
                                     "pypto evaluates; override it on the command line",
                                     name, ts_node_start_point(def).row + 1, file_->path));
}

std::optional<ConstValue> ModuleInfo::evaluate_at(const std::string& key, const std::string& name, TSNode site,
                                                   uint64_t seq, const std::function<Eval>& eval) {
  if (evaluating_.count(key))
    throw ir::CompileError("E202", span_of(site, file_),
                           fmt::format("'{}' is defined in terms of itself (a cycle of constants{})", name,
                                       set_.files_read().size() > 1 ? " or of imports" : ""),
                           "break the cycle: define the value in one module and import it elsewhere");
  evaluating_.insert(key);
  ConstEvaluator::clear_non_constant_site();
  std::optional<ConstValue> v;
  try {
    ModuleSet::Chain chain(set_, span_of(site, file_), name);
    ModuleSet::At when(set_, seq);
    ConstEvaluator ev(file_, [this](const std::string& n, TSNode a) { return global(n, a); }, this);
    v = eval(ev);
  } catch (...) {
    evaluating_.erase(key);
    throw;
  }
  evaluating_.erase(key);
  return v;
}

std::optional<ConstValue> ModuleInfo::global(const std::string& name, TSNode at) {
  // -D wins over everything; then the last `M.name = ...` of some module's top level before now.
  if (!cli_defined_.empty() && cli_defined_.count(name) && !cli_evaluating_.count(name)) return cli_value(name);
  // (A -D value that names its own variable, -D N=N*2, means the module's own definition.)
  if (!overrides_.empty() && !cli_evaluating_.count(name))
    if (Override* o = override_at(name)) return override_value(name, *o);
  // A name bound more than once: the binding visible now, or the one map that holds it.
  Binding::Kind only = Binding::Any;
  if (!rebound_.empty())
    if (auto v = rebound_lookup(name, at, only)) return v;
  if (only == Binding::Dsl) return std::nullopt;  // a DSL def: not a constant, as when bound once
  const bool any = only == Binding::Any, assigned = any || only == Binding::Assign;
  if (auto it = values_.find(name); assigned && it != values_.end()) return it->second;
  if (auto it = dyn_.find(name); (any || only == Binding::Dynamic) && it != dyn_.end()) return ConstValue{it->second};
  // `at` may be a node of another file (a use through `C.name` or `from m import name`): errors
  // about this module's definitions point at the definition instead. (A deferred def of this file
  // is a tree of its own: CstTree::holds.)
  auto at_here = [&](TSNode def) { return ts_node_is_null(at) || !tree_->holds(at) ? def : at; };
  auto evaluate = [&](TSNode def) {
    return evaluate_at(name, name, at_here(def), seq_of(def), [&](ConstEvaluator& ev) { return ev.try_eval(def); });
  };
  // Evaluates the assignment `def` of `name` once. Its error is remembered (unless another
  // global of this module is being evaluated: a cycle's error depends on where it was entered).
  auto once = [&](TSNode def, auto&& eval) -> std::optional<ConstValue> {
    const ir::Span site = span_of(at_here(def), file_);
    if (auto it = failed_.find(name); it != failed_.end()) {
      const auto& diags = it->second.error.diagnostics();
      if (diags.empty() || diags[0].span != it->second.site || site == it->second.site) throw it->second.error;
      auto moved = diags;
      moved[0].span = site;
      throw ir::CompileError(std::move(moved));
    }
    try {
      return eval();
    } catch (const ir::CompileError& e) {
      if (evaluating_.empty()) failed_.insert_or_assign(name, Failure{e, site});
      throw;
    }
  };
  if (auto it = assigns_.find(name); assigned && it != assigns_.end()) {
    return once(it->second, [&]() -> std::optional<ConstValue> {
      auto v = evaluate(it->second);
      if (!v) not_constant(name, at_here(it->second), it->second);
      values_[name] = *v;
      return v;
    });
  }
  if (auto it = tuple_assigns_.find(name); assigned && it != tuple_assigns_.end()) {
    return once(it->second.first, [&]() -> std::optional<ConstValue> {
      auto [right, idx] = it->second;
      auto v = evaluate(right);
      auto items = v ? const_iterate(*v) : std::nullopt;
      if (!items) not_constant(name, at_here(right), right);
      if (idx >= items->size())
        throw ir::CompileError("E304", span_of(right, file_),
                               fmt::format("not enough values to unpack into '{}'", name));
      values_[name] = (*items)[idx];
      return values_[name];
    });
  }
  if (auto it = classes_.find(name); (any || only == Binding::Class) && it != classes_.end())
    return ConstValue{static_cast<const ConstClass*>(it->second.get())};
  if (auto it = functions_.find(name); (any || only == Binding::Function) && it != functions_.end())
    return ConstValue{static_cast<const ConstFunction*>(it->second.get())};
  if (auto it = imports_.find(name); (any || only == Binding::Import) && it != imports_.end()) {
    // What an import binds is fixed: the imported module's value of the name at the time of the
    // import statement. Resolved once (a failure is not kept: it is re-reported at each use
    // site; nor is a value found while a -D is evaluated, when a module's own value stands in).
    if (auto c = import_values_.find(name); c != import_values_.end()) return c->second;
    auto v = resolve_import(it->second, at);
    if (v && set_.defines_in_progress == 0) import_values_.emplace(name, *v);
    return v;
  }
  if (auto it = cond_defs_.find(name); (any || only == Binding::CondDef) && it != cond_defs_.end()) {
    auto v = conditional_def(name, it->second);
    if (v) values_[name] = *v;
    return v;
  }
  return std::nullopt;
}

std::optional<ConstValue> ModuleInfo::conditional_def(const std::string& name, TSNode if_stmt) {
  if (evaluating_.count(name))
    throw ir::CompileError("E202", span_of(field(if_stmt, "condition"), file_),
                           fmt::format("the condition that selects the definition of '{}' depends on '{}' itself", name,
                                       name));
  struct Guard {
    std::set<std::string>& s;
    std::string n;
    ~Guard() { s.erase(n); }
  } guard{evaluating_, name};
  evaluating_.insert(name);
  ConstEvaluator ev(file_, [this](const std::string& n, TSNode a) { return global(n, a); }, this);
  auto taken = [&](TSNode cond) {
    auto v = ev.try_eval(cond);
    if (!v)
      throw ir::CompileError("E202", span_of(cond, file_),
                             fmt::format("cannot evaluate the condition that selects the definition of '{}' at "
                                         "compile time",
                                         name),
                             "a module-level `if` around DSL definitions must test constants (-D NAME=VALUE sets a "
                             "value the module reads from the command line or the environment)");
    return const_truthy(*v);
  };
  TSNode body{}, clause{};
  if (taken(field(if_stmt, "condition"))) {
    body = field(if_stmt, "consequence");
    clause = if_stmt;
  } else {
    for (TSNode alt : field_children(if_stmt, "alternative")) {
      if (is(alt, "elif_clause") && !taken(field(alt, "condition"))) continue;
      body = field(alt, is(alt, "elif_clause") ? "consequence" : "body");
      clause = alt;
      break;
    }
  }
  if (is_null(body)) return std::nullopt;
  int64_t prev_row = int64_t(ts_node_start_point(clause).row);  // comments after the clause's `if ...:` / `else:` line
  for (TSNode st : children(body)) {
    if (is(st, "decorated_definition"))
      if (auto fd = dsl_function_decl(st); fd && fd->name == name) {
        fd->leading_comments = comments_between(prev_row, int64_t(ts_node_start_point(st).row));
        return ConstValue{std::make_shared<const ConstDslFunction>(ConstDslFunction{std::move(*fd), false})};
      }
    prev_row = int64_t(ts_node_end_point(st).row);
  }
  return std::nullopt;  // the branch taken does not define it
}

ModuleInfo* ModuleInfo::load(const Import& imp) {
  std::vector<std::string> searched;
  ModuleInfo* m = set_.import(imp.module, imp.level, *this, searched);
  if (m) return m;
  // `from . import kernels` / `from pkg import sub`: the member may be a submodule.
  if (!imp.attr.empty()) {
    std::string sub = imp.module.empty() ? imp.attr : imp.module + "." + imp.attr;
    if (ModuleInfo* s = set_.import(sub, imp.level, *this, searched)) return s;
  }
  std::string where;
  for (size_t i = 0; i < searched.size() && i < 6; ++i) where += (i ? ", " : "") + searched[i];
  const std::string spelled = std::string(size_t(imp.level), '.') + imp.module;
  throw ir::CompileError("E206", span_of(imp.node, file_), fmt::format("cannot find module '{}'", spelled),
                         fmt::format("looked for {}; add the directory that holds it with -I DIR", where));
}

std::optional<ConstValue> ModuleInfo::resolve_import(const Import& imp, TSNode at) {
  const std::string& m = imp.module;
  if (imp.level == 0) {
    if (m == "pypto.language" && imp.attr.empty()) return ConstValue{ConstBuiltin{"pl"}};
    if (m == "pypto" && imp.attr == "language") return ConstValue{ConstBuiltin{"pl"}};
    if (m == "math" || m == "dataclasses" || m == "operator")
      return imp.attr.empty() ? ConstValue{ConstBuiltin{m}} : ConstValue{ConstBuiltin{m + "." + imp.attr}};
    if (host_module(m)) return std::nullopt;
  }
  ModuleInfo* target = load(imp);
  if (imp.attr.empty()) return ConstValue{ConstModuleRef{target}};
  // `from pkg import sub` where sub is a module file and not a name in pkg/__init__.py.
  if (!target->defines_name(imp.attr) && target->module_name() != imp.module + "." + imp.attr &&
      !(imp.module.empty() && target->module_name() == imp.attr)) {
    std::vector<std::string> searched;
    std::string sub = imp.module.empty() ? imp.attr : imp.module + "." + imp.attr;
    if (ModuleInfo* s = set_.import(sub, imp.level, *this, searched)) return ConstValue{ConstModuleRef{s}};
  }
  if (target->module_name() == (imp.module.empty() ? imp.attr : imp.module + "." + imp.attr))
    return ConstValue{ConstModuleRef{target}};
  // `from m import name` binds the value m's name has when the import statement runs.
  std::optional<ConstValue> v;
  {
    ModuleSet::At when(set_, seq_of(imp.node));
    v = target->global(imp.attr, at);
  }
  if (!v && !target->defines_name(imp.attr))
    throw ir::CompileError("E206", span_of(imp.node, file_),
                           fmt::format("cannot import name '{}' from '{}'", imp.attr,
                                       std::string(size_t(imp.level), '.') + imp.module),
                           fmt::format("{} defines no '{}'", target->file()->path, imp.attr));
  return v;
}

}  // namespace pypto::parser
