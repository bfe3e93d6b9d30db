// Entry shapes from the file's own host call (see specialize.h): a jit entry whose parameters are
// bare `pl.Tensor`s is usually compiled by the same file's host code, `entry.lower(*inputs, out)`
// or `entry.compile(...)` or `entry(...)`, with torch tensors built a few lines earlier. This
// reads such a call without running Python: each argument is evaluated by the constant evaluator
// with host tensors (const_torch.cpp), and a name is resolved to the nearest assignment before the
// call in the enclosing blocks (the call's own path: inside `if compile_only:`, `compile_only` is
// true), then to the function's parameter defaults, then to the module's globals. The first call
// whose arguments all evaluate gives the shapes.
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "parser/const_eval.h"
#include "parser/specialize.h"

namespace pypto::parser {

namespace {

bool binds(TSNode target, const std::string& name, const ir::SourceFile& f) {
  target = unparen(target);
  if (is(target, "identifier")) return text(target, f) == name;
  if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "tuple") || is(target, "list_pattern") ||
      is(target, "expression_list")) {
    for (TSNode t : children(target))
      if (binds(t, name, f)) return true;
  }
  return false;
}

// A DSL definition (`@pl.jit`, `@pl.function`, `@pl.program` …): its body is not host code.
bool dsl_definition(TSNode n, const ir::SourceFile& f) {
  if (!is(n, "decorated_definition")) return false;
  for (TSNode d : children(n))
    if (is(d, "decorator") && text(d, f).rfind("@pl.", 0) == 0) return true;
  return false;
}

class HostCallReader {
 public:
  HostCallReader(ModuleInfo& mod, const EntryDecl& entry) : mod_(mod), entry_(entry), f_(*mod.file()) {}

  std::optional<SpecTable> read(std::string* why) {
    std::vector<TSNode> calls;
    collect(ts_tree_root_node(entry_.node.tree), calls);
    for (TSNode c : calls) {
      std::string reason;
      if (auto t = try_call(c, reason)) return t;
      if (why && why->empty())
        *why = fmt::format("the call '{}' at line {} could not be read statically: {}", head(c),
                           ts_node_start_point(c).row + 1, reason);
    }
    return std::nullopt;
  }

 private:
  ModuleInfo& mod_;
  const EntryDecl& entry_;
  const ir::SourceFile& f_;
  std::map<std::pair<std::string, uint32_t>, std::optional<ConstValue>> memo_;
  std::map<std::string, bool> facts_;  // what the call's own path says: inside `if compile_only:` it is true
  int depth_ = 0;

  std::string head(TSNode call) const { return text(field(call, "function"), f_) + "(...)"; }

  void collect(TSNode n, std::vector<TSNode>& out) const {
    if (dsl_definition(n, f_) || n.id == entry_.node.id) return;
    if (is(n, "call")) {
      TSNode fn = field(n, "function");
      if (is(fn, "identifier") && text(fn, f_) == entry_.name) out.push_back(n);
      if (is(fn, "attribute") && is(field(fn, "object"), "identifier") && text(field(fn, "object"), f_) == entry_.name) {
        const std::string a = text(field(fn, "attribute"), f_);
        if (a == "lower" || a == "compile") out.push_back(n);
      }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) collect(ts_node_named_child(n, i), out);
  }

  ConstEvaluator evaluator_at(TSNode pos) {
    return ConstEvaluator(mod_.file(), [this, pos](const std::string& name, TSNode) { return resolve(name, pos); },
                          &mod_);
  }

  // The value `name` has at `pos` (a node of host code), following the path from `pos` outwards.
  std::optional<ConstValue> resolve(const std::string& name, TSNode pos) {
    auto key = std::make_pair(name, ts_node_start_byte(pos));
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    if (depth_ > 64) return std::nullopt;
    ++depth_;
    std::optional<ConstValue> v = resolve_uncached(name, pos);
    --depth_;
    memo_[key] = v;
    return v;
  }

  std::optional<ConstValue> resolve_uncached(const std::string& name, TSNode pos) {
    if (auto it = facts_.find(name); it != facts_.end()) return ConstValue{it->second};
    TSNode child = pos;
    for (TSNode up = ts_node_parent(pos); !ts_node_is_null(up); child = up, up = ts_node_parent(up)) {
      if (is(up, "block")) {  // module level: the module's own globals (with -D, in execution order)
        // The nearest earlier statement of this block that assigns `name`.
        for (int64_t i = int64_t(index_in(up, child)) - 1; i >= 0; --i) {
          TSNode s = ts_node_named_child(up, uint32_t(i));
          if (!is(s, "expression_statement") || ts_node_named_child_count(s) != 1) continue;
          TSNode a = ts_node_named_child(s, 0);
          if (!is(a, "assignment") || !binds(field(a, "left"), name, f_) || is_null(field(a, "right"))) continue;
          ConstEvaluator ev = evaluator_at(s);
          auto rhs = ev.try_eval(field(a, "right"));
          if (!rhs) return std::nullopt;
          std::map<std::string, ConstValue> bound;
          if (!bind_target(field(a, "left"), *rhs, f_, bound) || !bound.count(name)) return std::nullopt;
          return bound[name];
        }
      }
      if (is(up, "function_definition")) {
        for (TSNode p : children(field(up, "parameters"))) {
          const bool dflt = is(p, "default_parameter") || is(p, "typed_default_parameter");
          TSNode pn = dflt ? field(p, "name") : is(p, "typed_parameter") && !children(p).empty() ? children(p)[0] : p;
          if (!is(pn, "identifier") || text(pn, f_) != name) continue;
          if (!dflt) return std::nullopt;  // a parameter the host code's caller gives
          ConstEvaluator ev(mod_.file(), [this](const std::string& n, TSNode a) { return mod_.global(n, a); }, &mod_);
          return ev.try_eval(field(p, "value"));
        }
        break;  // the enclosing function's locals end here
      }
    }
    if (name == "torch") return std::nullopt;  // the evaluator's own namespace (host mode)
    return mod_.global(name, pos);
  }

  static uint32_t index_in(TSNode parent, TSNode child) {
    for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i)
      if (ts_node_named_child(parent, i).id == child.id) return i;
    return 0;
  }

  // `if NAME:` / `if not NAME:` (and their else / elif arms) around the call decide NAME.
  void path_facts(TSNode call) {
    facts_.clear();
    memo_.clear();
    TSNode child = call;
    for (TSNode up = ts_node_parent(call); !ts_node_is_null(up); child = up, up = ts_node_parent(up)) {
      if (!is(up, "if_statement") || child.id == field(up, "condition").id) continue;
      TSNode cond = unparen(field(up, "condition"));
      bool negated = false;
      if (is(cond, "not_operator")) negated = true, cond = unparen(field(cond, "argument"));
      if (!is(cond, "identifier")) continue;
      const bool in_then = child.id == field(up, "consequence").id;
      facts_.emplace(text(cond, f_), in_then != negated);
    }
  }

  std::optional<SpecTable> try_call(TSNode call, std::string& reason) {
    path_facts(call);
    std::vector<std::string> params;
    for (TSNode p : children(field(entry_.node, "parameters"))) {
      TSNode pn = is(p, "typed_parameter") && !children(p).empty() ? children(p)[0]
                  : (is(p, "default_parameter") || is(p, "typed_default_parameter")) ? field(p, "name")
                                                                                      : p;
      if (is(pn, "identifier")) params.push_back(text(pn, f_));
    }
    HostSpecScope host;
    ConstEvaluator ev = evaluator_at(call);
    std::vector<std::pair<std::string, ConstValue>> bound;
    size_t next = 0;
    auto take = [&](const ConstValue& v) {
      if (next < params.size()) bound.emplace_back(params[next], v);
      ++next;
    };
    try {
      for (TSNode a : children(field(call, "arguments"))) {
        if (is(a, "keyword_argument")) {
          const std::string k = text(field(a, "name"), f_);
          if (std::find(params.begin(), params.end(), k) == params.end()) continue;  // config=, platform= …
          auto v = ev.try_eval(field(a, "value"));
          if (!v) return reason = fmt::format("it passes {}={}", k, text(field(a, "value"), f_)), std::nullopt;
          bound.emplace_back(k, *v);
        } else if (is(a, "list_splat")) {
          auto v = children(a).empty() ? std::nullopt : ev.try_eval(children(a)[0]);
          auto items = v ? const_iterate(*v) : std::nullopt;
          if (!items)
            return reason = fmt::format("it unpacks '{}'", text(a, f_)), std::nullopt;
          for (const auto& x : *items) take(x);
        } else if (is(a, "dictionary_splat")) {
          return reason = "it passes **kwargs", std::nullopt;
        } else {
          auto v = ev.try_eval(a);
          if (!v) return reason = fmt::format("it passes '{}'", text(a, f_)), std::nullopt;
          take(*v);
        }
      }
    } catch (const ir::CompileError& e) {
      return reason = e.diagnostics().front().message, std::nullopt;
    }
    if (next > params.size())
      return reason = fmt::format("it passes {} positional arguments to {} parameters", next, params.size()), std::nullopt;
    SpecTable t;
    t.function = head(call);
    t.origin = fmt::format("the call '{}' at line {}", head(call), ts_node_start_point(call).row + 1);
    const ir::Span at = span_of(call, mod_.file());
    for (const auto& [name, v] : bound) {
      if (v.is_host_tensor()) {
        std::vector<ir::ExprPtr> dims;
        for (const auto& d : v.as_host_tensor().shape) {
          if (!d.is_int())
            return reason = fmt::format("it gives '{}' a shape that depends on tensor contents", name), std::nullopt;
          dims.push_back(ir::make_int(d.as_int(), at));
        }
        t.tensors[name] = std::make_shared<ir::TensorType>(v.as_host_tensor().dtype, std::move(dims));
      } else if (const_numeric(v)) {
        t.scalars[name] = v;
      }
    }
    return t;
  }
};

}  // namespace

std::optional<SpecTable> read_host_call(ModuleInfo& mod, const EntryDecl& entry, std::string* why) {
  if (entry.is_program) return std::nullopt;
  return HostCallReader(mod, entry).read(why);
}

}  // namespace pypto::parser
