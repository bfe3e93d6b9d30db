// Module globals bound by more than one top-level statement. Python runs a module top to bottom,
// so after `X = 16`, `ROWS = X * 2`, `X = 128` ROWS is 32, `HIDDEN = HIDDEN // TP` divides the
// HIDDEN bound before it, and a def written after an assignment of its name replaces that value.
// The scan (module_scan.cpp) records each binding of a name with its statement's start byte; a
// lookup made at time now (ModuleSet::now(): the module-level statement being evaluated, or
// after_all for DSL code, traced once every module ran) sees the binding made last before then.
// The maps ModuleInfo::global reads hold the last binding of each kind (assignment, def, class,
// import), so a lookup either narrows global to that one map or, for an earlier binding the maps
// no longer hold, is answered here: an earlier assignment is evaluated at its own time (and kept),
// an earlier def becomes a function value, an earlier import is resolved again (`import m` twice),
// an earlier class is the class that statement made (the scan keeps it). An earlier pl.dynamic
// symbol or DSL def in a module-level `if` that a later one replaces is an error, never a
// silently wrong value. A name bound once is not here. What Python evaluates
// when a definition runs -- class attributes, default arguments -- looks globals up as of the
// definition's statement (global_as_of), however late it is used.
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

std::optional<ConstValue> ModuleInfo::global_as_of(const std::string& name, TSNode at, TSNode def) {
  if (ts_node_is_null(def)) return global(name, at);
  ModuleSet::At when(set_, seq_of(def));
  return global(name, at);
}

std::optional<ConstValue> ModuleInfo::augmented(const std::string& name, TSNode stmt, ConstEvaluator& ev) {
  TSNode left = field(stmt, "left");
  auto cur = global(name, left);
  if (!cur)
    throw ir::CompileError("E200", span_of(left, file_),
                           fmt::format("'{}' is updated here before any statement gave it a value", name));
  auto rhs = ev.try_eval(field(stmt, "right"));
  if (!rhs) return std::nullopt;
  std::string op = text(field(stmt, "operator"), *file_);
  op.pop_back();  // "+=" -> "+"
  const std::map<std::string, ConstValue> operands = {{"__l", *cur}, {"__r", *rhs}};
  try {
    return eval_expression_text("__l " + op + " __r", "augmented assignment",
                                [&](const std::string& n, TSNode) -> std::optional<ConstValue> {
                                  auto it = operands.find(n);
                                  return it == operands.end() ? std::nullopt : std::optional<ConstValue>(it->second);
                                });
  } catch (const ir::CompileError& e) {
    throw ir::CompileError("E304", span_of(stmt, file_), e.diagnostics().front().message);
  }
}

ModuleInfo::Binding& ModuleInfo::bind(const std::string& name, Binding::Kind kind, TSNode value, size_t index,
                                      uint32_t start) {
  Binding b;
  b.kind = kind;
  b.value = value;
  b.index = index;
  b.start = start;
  auto& list = rebound_[name];
  list.push_back(std::move(b));
  return list.back();
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
  // The maps hold it when no later binding replaced it there: assigns_ holds the last assignment,
  // a pl.dynamic one included; dyn_ the last pl.dynamic; functions_, classes_, imports_ the last
  // of theirs. A DSL def has no constant value however it is bound (as when bound once).
  bool held = b.kind != Binding::Augmented;
  for (size_t i = vis + 1; i < bindings.size(); ++i)
    held = held && bindings[i].kind != b.kind &&
           !(b.kind == Binding::Assign && (bindings[i].kind == Binding::Dynamic || bindings[i].kind == Binding::Augmented));
  if (held || b.kind == Binding::Dsl) {
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
  if (b.kind == Binding::Class && b.cls) return ConstValue{b.cls};  // kept by the scan
  if (b.kind == Binding::Import) {  // `import m` twice, say: what this import bound then
    if (b.cached) return b.cached;
    for (const auto& [n, imp] : imports_of(b.value))
      if (n == name) {
        auto v = resolve_import(imp, at);
        if (v && set_.defines_in_progress == 0) b.cached = v;
        return v;
      }
  }
  if (b.kind != Binding::Assign && b.kind != Binding::Augmented) {
    const Binding* later = &bindings[vis + 1];
    const char* what = b.kind == Binding::Dynamic ? "pl.dynamic symbol" : "DSL definition";
    throw ir::CompileError(
        "E202", span_of(ts_node_is_null(site) ? at : site, file_),
        fmt::format("cannot evaluate {} here: it is the {} of line {}, which line {} binds again, and pypto keeps "
                    "an earlier binding only of a constant, a function, a class or an import",
                    name, what, line_of(*file_, b.start), line_of(*file_, later->start)),
        "give the two bindings different names");
  }
  if (b.cached) return b.cached;
  auto v = evaluate_at(fmt::format("{}#{}", name, vis), name, site, seq_at(b.start), [&](ConstEvaluator& ev) {
    return b.kind == Binding::Augmented ? augmented(name, b.value, ev) : ev.try_eval(b.value);
  });
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
