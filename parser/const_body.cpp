// Function bodies inside the constant evaluator (see const_eval.h): module-level functions,
// methods and factories interpreted statement by statement over constants (assignments,
// if/for/assert/raise/return, list appends), DSL function definitions bound to DSL function
// values with the activation's late-bound locals as closure, and the record of the statement
// where an evaluation left the constant subset (for located diagnostics).
#include <algorithm>
#include <deque>
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "parser/const_budget.h"
#include "parser/const_eval.h"
#include "parser/module_scan.h"

namespace pypto::parser {

using const_budget::kMaxCallDepth;
using const_budget::kMaxSteps;

namespace {

// The statement at which the current top-level evaluation left the constant subset: the innermost
// one whose failure propagated (a deeper record is dropped as soon as its frame's next statement
// starts, i.e. when the failure it records was recovered from).
struct NonConstantSite {
  TSNode stmt{};
  ir::SourceFilePtr file;
  int depth = -1;  // -1: none
};
thread_local NonConstantSite g_site;

// The nested functions defined by activations so far (values point at them; a deque keeps them put).
thread_local std::deque<ConstFunction> g_nested;

// The statement interpreter of one function activation.
struct Frame {
  ConstEvaluator& ev;
  std::map<std::string, ConstValue>& locals;
  const ir::SourceFilePtr& file;
  ConstEnv* env = nullptr;
  const ConstEvaluator::DefHook* on_def = nullptr;  // factories: nested @pl.program classes
  enum class Flow { Next, Return, Break, Continue, NotConstant };
  std::optional<ConstValue> result;
  // The closure of the DSL functions this activation defines: its locals at the end (see
  // close_over), created by the first DSL definition (or up front for a factory).
  std::shared_ptr<std::map<std::string, ConstValue>> closure;

  bool bind(TSNode t, const ConstValue& v) { return bind_target(t, v, *file, locals); }

  Flow block(TSNode b) {
    for (TSNode s : children(b)) {
      Flow fl = stmt(s);
      if (fl != Flow::Next) return fl;
    }
    return Flow::Next;
  }

  [[noreturn]] void raise(TSNode at, const std::string& msg) {
    throw ir::CompileError("E305", span_of(at, file), msg,
                           "the constant configuration rejects these values; change them (or the -D override)");
  }

  // Runs one statement; a statement that leaves the constant subset is recorded (innermost first).
  Flow stmt(TSNode s) {
    if (g_site.depth > const_budget::call_depth) g_site = NonConstantSite{};
    Flow fl = stmt_impl(s);
    if (fl == Flow::NotConstant && g_site.depth < 0) g_site = NonConstantSite{s, file, const_budget::call_depth};
    return fl;
  }

  // `@pl.jit.inline def f(...)` / `@pl.function def k(...)`: binds `f` to a DSL function value whose
  // closure is this activation's locals; false when `s` is not a DSL function definition.
  bool dsl_def(TSNode s) {
    auto* mod = dynamic_cast<ModuleInfo*>(env);
    auto fd = mod ? mod->dsl_function_decl(s) : std::nullopt;
    if (!fd) return false;
    if (!closure) closure = std::make_shared<std::map<std::string, ConstValue>>();
    fd->closure = closure;
    const std::string name = fd->name;
    locals[name] = ConstValue{std::make_shared<const ConstDslFunction>(ConstDslFunction{std::move(*fd), false})};
    return true;
  }

  Flow stmt_impl(TSNode s) {
    if (++const_budget::steps > kMaxSteps)
      throw ir::CompileError("E304", span_of(s, file), "constant evaluation takes too many steps",
                             "a loop in a config function runs too long to fold at compile time");
    const auto k = kind(s);
    if (k == "pass_statement") return Flow::Next;
    if (k == "decorated_definition" && dsl_def(s)) return Flow::Next;
    if (on_def && (k == "decorated_definition" || k == "class_definition" || k == "function_definition")) {
      TSNode def = k == "decorated_definition" ? field(s, "definition") : s;
      (*on_def)(s);
      locals[text(field(def, "name"), *file)] = ConstValue{ConstBuiltin{"dsl:" + text(field(def, "name"), *file)}};
      return Flow::Next;
    }
    if (k == "import_statement" || k == "import_from_statement") return Flow::Next;  // host imports (torch …)
    if (k == "function_definition" || (k == "decorated_definition" && is(field(s, "definition"), "function_definition") &&
                                       HostSpecScope::active())) {
      // A helper defined inside the function (`def randn(shape, dtype): ...`): it sees the locals
      // bound so far (enough for the helpers host fixtures define before they use them).
      TSNode def = k == "decorated_definition" ? field(s, "definition") : s;
      const std::string name = text(field(def, "name"), *file);
      g_nested.push_back(ConstFunction{name, env, def,
                                       std::make_shared<const std::map<std::string, ConstValue>>(locals), {}});
      locals[name] = ConstValue{&g_nested.back()};
      return Flow::Next;
    }
    if (k == "break_statement") return Flow::Break;
    if (k == "continue_statement") return Flow::Continue;
    if (k == "expression_statement") {
      auto c = children(s);
      if (c.size() == 1 && (is(c[0], "string") || is(c[0], "concatenated_string"))) return Flow::Next;  // docstring
      if (c.size() == 1 && is(c[0], "assignment")) return assign(c[0]);
      if (c.size() == 1 && is(c[0], "augmented_assignment")) return augmented(c[0]);
      // `xs.append(v)` on a local list: rebinds the local (lists are values here).
      if (c.size() == 1 && is(c[0], "call") && is(field(c[0], "function"), "attribute")) {
        TSNode fn = field(c[0], "function");
        TSNode obj = field(fn, "object");
        std::string meth = text(field(fn, "attribute"), *file);
        auto args = children(field(c[0], "arguments"));
        if (is(obj, "identifier") && locals.count(text(obj, *file)) && (meth == "append" || meth == "extend") &&
            args.size() == 1) {
          auto& cur = locals[text(obj, *file)];
          auto v = ev.try_eval(args[0]);
          if (!v || !cur.is_list()) return Flow::NotConstant;
          ConstList l = cur.as_list();
          if (meth == "append") l.push_back(*v);
          else if (auto items = const_iterate(*v)) l.insert(l.end(), items->begin(), items->end());
          else return Flow::NotConstant;
          cur = ConstValue::of_list(std::move(l));
          return Flow::Next;
        }
      }
      // A host script's statement call (`torch.manual_seed(0)`, `t.normal_()`): it changes no shape.
      if (c.size() == 1 && is(c[0], "call") && HostSpecScope::active() && ev.try_eval(c[0])) return Flow::Next;
      return Flow::NotConstant;
    }
    if (k == "return_statement") {
      auto c = children(s);
      if (c.empty()) {
        result = ConstValue{ConstValue::None{}};
        return Flow::Return;
      }
      result = ev.try_eval(c[0]);
      return result ? Flow::Return : Flow::NotConstant;
    }
    if (k == "if_statement") {
      auto cond = ev.try_eval(field(s, "condition"));
      if (!cond || cond->is_host_data()) return Flow::NotConstant;
      if (const_truthy(*cond)) return block(field(s, "consequence"));
      for (TSNode alt : field_children(s, "alternative")) {
        if (is(alt, "elif_clause")) {
          auto c2 = ev.try_eval(field(alt, "condition"));
          if (!c2 || c2->is_host_data()) return Flow::NotConstant;
          if (const_truthy(*c2)) return block(field(alt, "consequence"));
        } else if (is(alt, "else_clause")) {
          return block(field(alt, "body"));
        }
      }
      return Flow::Next;
    }
    if (k == "for_statement") {
      auto seq = ev.try_eval(field(s, "right"));
      auto items = seq ? const_iterate(*seq) : std::nullopt;
      if (!items) return Flow::NotConstant;
      for (const auto& x : *items) {
        if (!bind(field(s, "left"), x)) return Flow::NotConstant;
        Flow fl = block(field(s, "body"));
        if (fl == Flow::Break) break;
        if (fl == Flow::Return || fl == Flow::NotConstant) return fl;
      }
      return Flow::Next;
    }
    if (k == "assert_statement") {
      auto c = children(s);
      if (c.empty()) return Flow::NotConstant;
      auto cond = ev.try_eval(c[0]);
      if (!cond) return Flow::NotConstant;
      if (cond->is_host_data()) return Flow::Next;  // a check of tensor contents: nothing to check here
      if (!const_truthy(*cond)) {
        std::string msg = "assertion failed";
        if (c.size() > 1)
          if (auto m = ev.try_eval(c[1]); m && m->is_str()) msg += ": " + m->as_str();
        raise(s, msg);
      }
      return Flow::Next;
    }
    if (k == "raise_statement") {
      auto c = children(s);
      std::string msg = "a config function raised an exception";
      if (!c.empty() && is(c[0], "call")) {
        auto args = children(field(c[0], "arguments"));
        std::string what = text(field(c[0], "function"), *file);
        msg = what;
        if (!args.empty())
          if (auto m = ev.try_eval(args[0]); m && m->is_str()) msg += ": " + m->as_str();
      }
      raise(s, msg);
    }
    return Flow::NotConstant;
  }

  Flow assign(TSNode a) {
    TSNode right = field(a, "right");
    if (is_null(right)) return Flow::Next;  // a bare annotation
    if (is(right, "assignment")) return Flow::NotConstant;
    TSNode left = field(a, "left");
    if (is(left, "subscript") && HostSpecScope::active()) {
      // `t[b] = v` on a host tensor writes contents, which are not followed.
      auto base = ev.try_eval(field(left, "value"));
      return base && base->is_host_tensor() ? Flow::Next : Flow::NotConstant;
    }
    auto v = ev.try_eval(right);
    if (!v) return Flow::NotConstant;
    return bind(left, *v) ? Flow::Next : Flow::NotConstant;
  }

  Flow augmented(TSNode a) {
    TSNode left = field(a, "left");
    if (!is(left, "identifier")) return Flow::NotConstant;
    // Evaluate `x op= e` as `x op e`: build the value with the evaluator on a synthetic pair.
    auto cur = locals.find(text(left, *file));
    if (cur == locals.end()) return Flow::NotConstant;
    auto rhs = ev.try_eval(field(a, "right"));
    if (!rhs) return Flow::NotConstant;
    std::string op = text(field(a, "operator"), *file);
    op.pop_back();  // "+=" → "+"
    std::map<std::string, ConstValue> tmp = {{"__l", cur->second}, {"__r", *rhs}};
    auto v = eval_expression_text("__l " + op + " __r", "augmented assignment",
                                  [&](const std::string& n, TSNode) -> std::optional<ConstValue> {
                                    auto it = tmp.find(n);
                                    return it == tmp.end() ? std::nullopt : std::optional<ConstValue>(it->second);
                                  });
    cur->second = v;
    return Flow::Next;
  }

  // Does `v` hold a DSL function of this activation (whose closure is `closure`)?
  bool holds_own(const ConstValue& v) const {
    if (v.is_dsl_function()) return v.as_dsl_function().decl.closure == closure;
    if (v.is_list())
      return std::any_of(v.as_list().begin(), v.as_list().end(), [&](const ConstValue& x) { return holds_own(x); });
    if (v.is_dict())
      for (const auto& [k, x] : v.as_dict().items)
        if (holds_own(k) || holds_own(x)) return true;
    if (v.is_object())
      for (const auto& [k, x] : v.as_object().fields)
        if (holds_own(x)) return true;
    return false;
  }
  // `v` with this activation's DSL functions made sibling references (no closure pointer: the
  // closure must not contain itself).
  ConstValue detach(const ConstValue& v) const {
    if (!holds_own(v)) return v;
    if (v.is_dsl_function()) {
      ConstDslFunction sib{v.as_dsl_function().decl, true};
      sib.decl.closure = nullptr;
      return ConstValue{std::make_shared<const ConstDslFunction>(std::move(sib))};
    }
    if (v.is_list()) {
      ConstList out;
      for (const auto& x : v.as_list()) out.push_back(detach(x));
      return ConstValue::of_list(std::move(out));
    }
    if (v.is_dict()) {
      auto d = std::make_shared<ConstDict>();
      for (const auto& [k, x] : v.as_dict().items) d->items.emplace_back(detach(k), detach(x));
      return ConstValue{std::shared_ptr<const ConstDict>(d)};
    }
    auto o = std::make_shared<ConstObject>(v.as_object());
    for (auto& [k, x] : o->fields) x = detach(x);
    return ConstValue{std::shared_ptr<const ConstObject>(o)};
  }
  // Python closures are late-bound: the DSL functions see the activation's final locals (less
  // the markers of @pl.program classes a factory defined).
  void close_over() {
    if (!closure) return;
    for (const auto& [k, v] : locals)
      if (!(v.is_builtin() && std::get<ConstBuiltin>(v.v).name.rfind("dsl:", 0) == 0)) (*closure)[k] = detach(v);
  }
};

}  // namespace

std::optional<ConstValue> ConstEvaluator::run_factory(const ConstFunction& fn, const Args& args, TSNode at,
                                                      const DefHook& on_def, Closure& closure) {
  return invoke(fn, args, at, nullptr, &on_def, &closure);
}

std::optional<ir::Span> ConstEvaluator::non_constant_site() {
  if (g_site.depth < 0) return std::nullopt;
  return span_of(g_site.stmt, g_site.file);
}

void ConstEvaluator::clear_non_constant_site() { g_site = NonConstantSite{}; }

std::optional<ConstValue> ConstEvaluator::invoke(const ConstFunction& fn, const Args& args, TSNode at,
                                                 const ConstValue* self, const DefHook* on_def, Closure* closure_out) {
  if (const_budget::call_depth == 0) g_site = NonConstantSite{};
  if (const_budget::call_depth >= kMaxCallDepth)
    fail(at, fmt::format("calls to '{}' nest too deeply for compile-time evaluation", fn.name));
  struct DepthGuard {
    DepthGuard() { ++const_budget::call_depth; }
    ~DepthGuard() {
      if (--const_budget::call_depth == 0 && const_budget::comprehension_depth == 0) const_budget::steps = 0;
    }
  } depth_guard;
  const ir::SourceFilePtr& file = fn.env->env_file();
  const auto& f = *file;
  std::map<std::string, ConstValue> locals;
  ConstEnv* env = fn.env;
  ConstEvaluator ev(file, [&](const std::string& name, TSNode a) -> std::optional<ConstValue> {
    if (auto it = locals.find(name); it != locals.end()) return it->second;
    if (fn.closure)
      if (auto it = fn.closure->find(name); it != fn.closure->end()) return it->second;
    return env->global(name, a);
  }, env);
  // Parameters: positional in order (`self` first for methods), then keywords, then defaults.
  size_t next_pos = 0;
  bool self_bound = self == nullptr;
  for (TSNode prm : children(field(fn.node(), "parameters"))) {
    std::string name;
    TSNode dflt{};
    if (is(prm, "identifier")) name = text(prm, f);
    else if (is(prm, "typed_parameter")) {
      auto c = children(prm);
      if (c.empty() || !is(c[0], "identifier")) return std::nullopt;  // *args: typed
      name = text(c[0], f);
    } else if (is(prm, "default_parameter") || is(prm, "typed_default_parameter")) {
      name = text(field(prm, "name"), f);
      dflt = field(prm, "value");
    } else if (is(prm, "keyword_separator") || is(prm, "positional_separator")) {
      continue;
    } else {
      return std::nullopt;  // *args / **kwargs
    }
    if (!self_bound) {
      locals[name] = *self;
      self_bound = true;
      continue;
    }
    std::optional<ConstValue> v;
    if (next_pos < args.pos.size()) v = args.pos[next_pos++];
    for (const auto& [k, kv] : args.kw)
      if (k == name) v = kv;
    if (!v && !ts_node_is_null(dflt)) {
      // A module-level def's defaults are what its module held when the def ran (a nested def's:
      // now, the call of the function that defines it).
      const TSNode def = fn.closure ? TSNode{} : fn.node();
      ConstEvaluator dev(file, [env, def](const std::string& nm, TSNode a) { return env->global_as_of(nm, a, def); },
                         env);
      v = dev.try_eval(dflt);
      if (!v) return std::nullopt;
    }
    if (!v) fail(at, fmt::format("{}() missing required argument: '{}'", fn.name, name));
    locals[name] = *v;
  }
  if (next_pos < args.pos.size()) fail(at, fmt::format("{}() got too many positional arguments", fn.name));
  Frame fr{ev, locals, file, env, on_def, std::nullopt, nullptr};
  if (closure_out) fr.closure = std::make_shared<std::map<std::string, ConstValue>>();
  auto flow = fr.block(field(fn.node(), "body"));
  fr.close_over();
  if (closure_out) *closure_out = fr.closure;
  if (flow == Frame::Flow::NotConstant) return std::nullopt;
  if (flow == Frame::Flow::Return) return fr.result;
  return ConstValue{ConstValue::None{}};
}

}  // namespace pypto::parser
