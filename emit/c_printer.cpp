// The shared structured-statement printer (c_printer.h).
#include "emit/c_printer.h"

#include <fmt/format.h>
#include <functional>
#include <set>

#include "ir/ir.h"

namespace pypto::emit {

using namespace ir;

std::string CStmtPrinter::expr(const ExprPtr& e) {
  return c_expr(e, [this](const Var& v) -> std::string {
    if (!names_.has(&v))  // dynamic dimensions no parameter carries: the form checks; the rest: UseAfterDef
      unreachable_form("emit", v.span, fmt::format("use of '{}' before its definition in {}", v.name, where_), kFormChecks);
    return names_.name(&v);
  });
}

const std::string& CStmtPrinter::handle(const ExprPtr& e) {
  const auto* v = as<Var>(e);
  auto it = v ? handles_.find(v) : handles_.end();
  if (it == handles_.end())
    unreachable_form("emit", e->span,  // the form checks reject the ops that would produce one
                     fmt::format("a tensor in {} that is not (an alias of) a parameter or an allocation", where_),
                     kFormChecks);
  return it->second;
}

void CStmtPrinter::body(const StmtPtr& s) {
  for (const auto& c : flatten_body(s)) stmt(c);
}

void CStmtPrinter::stmt(const StmtPtr& s) {
  switch (s->kind) {
    case NodeKind::SeqStmts: return body(s);
    case NodeKind::AssignStmt: return assign(static_cast<const AssignStmt&>(*s));
    case NodeKind::EvalStmt: return eval(static_cast<const EvalStmt&>(*s));
    case NodeKind::ForStmt: return for_stmt(static_cast<const ForStmt&>(*s));
    case NodeKind::IfStmt: return if_stmt(static_cast<const IfStmt&>(*s));
    case NodeKind::ScopeStmt: return scope(static_cast<const ScopeStmt&>(*s));
    case NodeKind::YieldStmt: return;  // printed by the enclosing for / if (yielding)
    // CheckKernelForms / CheckOrchestrationForms reject these before emission.
    case NodeKind::WhileStmt: return while_stmt(static_cast<const WhileStmt&>(*s));
    case NodeKind::ReturnStmt:
      if (s.get() == closing_return_) return;
      [[fallthrough]];
    case NodeKind::BreakStmt:
    case NodeKind::ContinueStmt:
      throw InternalError("emit", fmt::format("a return / break / continue in {} reached the emitter", where_), s->span);
    default: throw InternalError("emit", fmt::format("a statement of unknown kind in {}", where_), s->span);
  }
}

void CStmtPrinter::assign_scalar(const Var& v, const ExprPtr& value) {
  const auto* sc = as_scalar(v.type);
  const std::string val = expr(value);
  if (names_.has(&v)) return line(fmt::format("{} = {};", names_.name(&v), val));
  line(fmt::format("{} {} = {};", c_type(sc->dtype), names_.name(&v), val));
}

// ---- carried values: scalars are C++ variables, tensors and arrays share their handle ----

// A tensor carry the loop rebinds to other buffers (ClassifyIterArgCarry) is a mutable ChipTensor.
static bool rebinds(const Var& v) { return v.kind == NodeKind::IterArg && static_cast<const IterArg&>(v).rebind; }

void CStmtPrinter::carry_in(const Var& ia, const ExprPtr& init, const Span& sp) {
  if (as_tensor(ia.type) && rebinds(ia)) {
    const std::string n = names_.name(&ia);
    line(fmt::format("ChipTensor {} = {};", n, handle(init)));
    return bind_handle(ia, n);
  }
  if (as_tensor(ia.type) || as_array(ia.type)) return bind_handle(ia, handle(init));
  if (const auto* sc = as_scalar(ia.type)) return line(fmt::format("{} {} = {};", c_type(sc->dtype), names_.name(&ia), expr(init)));
  unreachable_form("emit", sp, fmt::format("a loop-carried value of this type in {}", where_), kFormChecks);
}

void CStmtPrinter::carry_out(const Var& t, const ExprPtr& v, const Span& sp) {
  if (!as_tensor(t.type) && !as_array(t.type))
    unreachable_form("emit", sp, fmt::format("a carried value of this type in {}", where_), kFormChecks);
  const std::string& yielded = handle(v);
  auto it = handles_.find(&t);
  if (it == handles_.end()) handles_[&t] = yielded;  // an if result: the first arm binds it
  else if (const auto* a = as_array(t.type); a && t.kind == NodeKind::IterArg && it->second != yielded) {
    // A loop carrying the array its body made (CheckOrchestrationForms: made in the body): its
    // slots become the carried array's for the next iteration.
    const std::string i = names_.fresh("slot");
    line(fmt::format("for (int64_t {0} = 0; {0} < {1}; ++{0}) {2}[{0}] = {3}[{0}];", i, a->extent, it->second, yielded));
  } else if (it->second != yielded)
    throw InternalError("emit", fmt::format("a loop / if in {} that carries a tensor rebound to another buffer (the form "
                                            "checks reject it before emission)", where_), sp);
}

void CStmtPrinter::declare_result(const Var& rv, const Span& sp) {
  if (as_tensor(rv.type) || as_array(rv.type)) return;  // bound by the first arm's yield
  if (names_.has(&rv)) return;      // declared before an enclosing block (a runtime scope)
  if (const auto* sc = as_scalar(rv.type)) return line(fmt::format("{} {}{{}};", c_type(sc->dtype), names_.name(&rv)));
  unreachable_form("emit", sp, fmt::format("an if result of this type in {}", where_), kFormChecks);
}

void CStmtPrinter::bind_result(const Var& rv, const Var& from, const Span& sp) {
  if (as_tensor(rv.type) || as_array(rv.type)) return bind_handle(rv, handles_.at(&from));
  if (const auto* sc = as_scalar(rv.type)) {
    if (names_.has(&rv)) return line(fmt::format("{} = {};", names_.name(&rv), names_.name(&from)));  // declared before
    return line(fmt::format("{} {} = {};", c_type(sc->dtype), names_.name(&rv), names_.name(&from)));
  }
  unreachable_form("emit", sp, fmt::format("a loop result of this type in {}", where_), kFormChecks);
}

// The trailing yield: scalars through temporaries (so `a, b = b, a` swaps), the rest by the hook.
void CStmtPrinter::yield_updates(const YieldStmt* y, const std::vector<const Var*>& targets, const Span& sp) {
  if (!y) {
    if (!targets.empty())  // SSAForm (verified before rendering)
      throw InternalError("emit", fmt::format("a loop / if in {} with results but no trailing yield", where_), sp);
    return;
  }
  std::vector<std::pair<std::string, std::string>> assigns;
  for (size_t k = 0; k < targets.size() && k < y->values.size(); ++k) {
    const Var& t = *targets[k];
    if (const auto* sc = as_scalar(t.type)) {
      const std::string tmp = names_.fresh(names_.name(&t) + "_next");
      line(fmt::format("const {} {} = {};", c_type(sc->dtype), tmp, expr(y->values[k])));
      assigns.emplace_back(names_.name(&t), tmp);
    } else if (as_tensor(t.type) && rebinds(t)) {  // through a copy too (ping-pong swaps)
      const std::string tmp = names_.fresh(names_.name(&t) + "_next");
      line(fmt::format("const ChipTensor {} = {};", tmp, handle(y->values[k])));
      assigns.emplace_back(handles_.at(&t), tmp);
    } else {
      carry_out(t, y->values[k], y->span);
    }
  }
  for (const auto& [t, tmp] : assigns) line(fmt::format("{} = {};", t, tmp));
}

void CStmtPrinter::yielding(const StmtPtr& b, const std::vector<const Var*>& targets, const Span& sp) {
  const auto stmts = flatten_body(b);
  for (size_t i = 0; i < stmts.size(); ++i) {
    const bool last = i + 1 == stmts.size();
    if (last && as<YieldStmt>(stmts[i])) return yield_updates(as<YieldStmt>(stmts[i]), targets, sp);
    if (last && as<ScopeStmt>(stmts[i]) && trailing_scope(static_cast<const ScopeStmt&>(*stmts[i]), targets)) return;
    stmt(stmts[i]);
  }
  yield_updates(nullptr, targets, sp);
}

// A loop: its carries declared, then the header (printed after them: naming order), the body
// yielding into the carries, the results bound after the loop.
void CStmtPrinter::carried_loop(const std::function<std::string()>& header, const std::vector<IterArgPtr>& iter_args,
                                const StmtPtr& body, const std::vector<VarPtr>& return_vars, const Span& sp) {
  std::vector<const Var*> targets;
  for (const auto& ia : iter_args) {
    carry_in(*ia, ia->init, sp);
    targets.push_back(ia.get());
  }
  line(header() + " {");
  ++indent_;
  yielding(body, targets, sp);
  --indent_;
  line("}");
  for (size_t k = 0; k < return_vars.size() && k < iter_args.size(); ++k) bind_result(*return_vars[k], *iter_args[k], sp);
}

void CStmtPrinter::for_stmt(const ForStmt& s) {
  if (s.kind == ForKind::Unroll || s.kind == ForKind::Pipeline)  // UnrollLoops expands, CanonicalizeIOOrder demotes
    throw InternalError("emit", fmt::format("a pl.{} loop in {} reached the emitter", to_string(s.kind), where_), s.span);
  if (const std::string cm = source_comment(s.span); !cm.empty()) line(cm);
  carried_loop(
      [&] {
        const std::string i = names_.name(s.loop_var.get());
        const auto step = const_int_value(s.step);
        return fmt::format("for (int64_t {0} = {1}; {0} {2} {3}; {0} += {4})", i, expr(s.start),
                           step && *step < 0 ? ">" : "<", expr(s.stop), expr(s.step));
      },
      s.iter_args, s.body, s.return_vars, s.span);
}

void CStmtPrinter::while_stmt(const WhileStmt& s) {
  if (const std::string cm = source_comment(s.span); !cm.empty()) line(cm);
  carried_loop([&] { return fmt::format("while ({})", expr(s.cond)); }, s.iter_args, s.body, s.return_vars, s.span);
}

void CStmtPrinter::if_stmt(const IfStmt& s) {
  if (const std::string cm = source_comment(s.span); !cm.empty()) line(cm);
  std::vector<const Var*> targets;
  for (const auto& rv : s.return_vars) {
    targets.push_back(rv.get());
    declare_result(*rv, s.span);
  }
  line(fmt::format("if ({}) {{", expr(s.cond)));
  ++indent_;
  yielding(s.then_body, targets, s.span);
  --indent_;
  if (s.else_body) {
    const size_t before_else = body_.size();
    line("} else {");
    const size_t else_start = body_.size();
    ++indent_;
    yielding(s.else_body, targets, s.span);
    --indent_;
    // An else arm that only yields the incoming values (SSA added it) prints nothing: no `else {}`.
    if (body_.size() == else_start) body_.resize(before_else);
  }
  line("}");
}

std::vector<DescriptorDim> descriptor_dims(const Function& f, const NameTable& bound) {
  std::vector<DescriptorDim> out;
  std::set<const Var*> seen;
  int tk = 0;
  for (const auto& p : f.params) {
    const auto* t = as_tensor(p->type);
    if (!t) continue;
    for (size_t a = 0; a < t->shape.size(); ++a) {
      const ExprPtr& d = t->shape[a];
      if (const_int_value(d)) continue;
      const auto* v = as<Var>(d);
      if (!v) unreachable_form("emit", p->span, fmt::format("a computed dimension of parameter '{}'", p->name), kFormChecks);
      if (bound.has(v) || !seen.insert(v).second) continue;  // a scalar parameter or an earlier dimension
      out.push_back({v, tk, static_cast<int>(a)});
    }
    ++tk;
  }
  return out;
}

}  // namespace pypto::emit
