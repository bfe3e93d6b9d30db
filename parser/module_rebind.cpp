// Module globals bound by more than one top-level statement. Python runs a module top to bottom,
// so after `X = 16`, `ROWS = X * 2`, `X = 128` ROWS is 32, `HIDDEN = HIDDEN // TP` divides the
// HIDDEN bound before it, and a def written after an assignment of its name replaces that value.
// The scan (module_scan.cpp) records each binding of a name with its statement's start byte; a
// lookup made at time now (ModuleSet::now(): the module-level statement being evaluated, or
// after_all for DSL code, traced once every module ran) sees the binding made last before then.
// The maps ModuleInfo::global reads hold the last binding of each kind (assignment, def, class,
// import), so a lookup either narrows global to that one map or, for an earlier binding the maps
// no longer hold, is answered here: an earlier assignment is evaluated at its own time (and kept),
// an earlier def becomes a function value. An earlier class, import or DSL def that a later
// statement replaces is an error, never a silently wrong value. A name bound once is not here.
#include <algorithm>

#include <fmt/format.h>

#include "parser/module_scan.h"
#include "parser/module_set.h"

namespace pypto::parser {

namespace {

uint32_t line_of(const ir::SourceFile& f, uint32_t byte) {
  return uint32_t(std::upper_bound(f.line_starts.begin(), f.line_starts.end(), byte) - f.line_starts.begin());
}

}  // namespace

void ModuleInfo::bind(const std::string& name, Binding::Kind kind, TSNode value, size_t index, uint32_t start) {
  Binding b;
  b.kind = kind;
  b.value = value;
  b.index = index;
  b.start = start;
  rebound_[name].push_back(std::move(b));
}

void ModuleInfo::keep_rebound() {
  std::erase_if(rebound_, [](const auto& e) { return e.second.size() < 2; });
}

std::optional<ConstValue> ModuleInfo::rebound_lookup(const std::string& name, TSNode at, Binding::Kind& only) {
  auto it = rebound_.find(name);
  if (it == rebound_.end()) return std::nullopt;
  std::vector<Binding>& bindings = it->second;
  const uint64_t now = set_.now();
  size_t vis = bindings.size() - 1;
  if (now != ModuleSet::after_all) {
    vis = SIZE_MAX;
    for (size_t i = 0; i < bindings.size(); ++i)
      if (seq_at(bindings[i].start) < now) vis = i;
    if (vis == SIZE_MAX) return std::nullopt;  // looked up before any binding: as for a name bound once
  }
  Binding& b = bindings[vis];
  bool last_of_kind = true;
  for (size_t i = vis + 1; i < bindings.size(); ++i) last_of_kind = last_of_kind && bindings[i].kind != b.kind;
  if (last_of_kind) {
    only = b.kind;
    return std::nullopt;
  }
  // Errors about the binding point at the lookup when it is in this file, else at the binding.
  TSNode site = ts_node_is_null(at) || !tree_->holds(at) ? b.value : at;
  if (b.kind == Binding::Function) {
    if (!b.fn) {
      auto fn = std::make_unique<ConstFunction>();
      fn->name = name;
      fn->env = this;
      fn->def = b.value;
      if (ts_node_is_null(b.value)) fn->deferred = [tree = tree_, i = b.index] { return tree->deferred_node(i); };
      b.fn = std::move(fn);
    }
    return ConstValue{static_cast<const ConstFunction*>(b.fn.get())};
  }
  if (b.kind != Binding::Assign) {
    const Binding* later = &bindings[vis + 1];
    const char* what = b.kind == Binding::Class ? "class" : b.kind == Binding::Import ? "import" : "definition";
    throw ir::CompileError(
        "E202", span_of(ts_node_is_null(site) ? at : site, file_),
        fmt::format("cannot evaluate {} here: it is the {} of line {}, which line {} binds again, and pypto follows "
                    "an earlier binding only for assignments and plain functions",
                    name, what, line_of(*file_, b.start), line_of(*file_, later->start)),
        "give the two bindings different names");
  }
  if (b.cached) return b.cached;
  const std::string key = fmt::format("{}#{}", name, vis);
  if (evaluating_.count(key))
    throw ir::CompileError("E202", span_of(site, file_),
                           fmt::format("'{}' is defined in terms of itself (a cycle of constants)", name),
                           "break the cycle: define the value in one module and import it elsewhere");
  evaluating_.insert(key);
  ConstEvaluator::clear_non_constant_site();
  std::optional<ConstValue> v;
  try {
    // Evaluated as the module ran it: at the time of its own statement.
    ModuleSet::At when(set_, seq_at(b.start));
    ConstEvaluator ev(file_, [this](const std::string& n, TSNode a) { return global(n, a); }, this);
    v = ev.try_eval(b.value);
  } catch (...) {
    evaluating_.erase(key);
    throw;
  }
  evaluating_.erase(key);
  if (b.index != SIZE_MAX) {  // an element of a tuple unpacking
    auto items = v ? const_iterate(*v) : std::nullopt;
    if (!items) not_constant(name, site, b.value);
    if (b.index >= items->size())
      throw ir::CompileError("E304", span_of(b.value, file_), fmt::format("not enough values to unpack into '{}'", name));
    v = (*items)[b.index];
  }
  if (!v) not_constant(name, site, b.value);
  b.cached = v;
  return v;
}

}  // namespace pypto::parser
