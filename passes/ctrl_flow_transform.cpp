// CtrlFlowTransform — rewrites `break` and `continue` in kernel and orchestration loops (InCore /
// AIV / AIC / Orchestration functions and pl.at(CORE_GROUP) scopes) into structured control flow the back ends write as
// plain loops and ifs. It runs on the front end's IR, before ConvertToSSA, so a name rebound
// before a `break` keeps its new value after the loop, as Python's `break` does:
//   * a loop whose body may `continue` gets a BOOL flag, False at the start of each iteration and
//     set where the source continues;
//   * a loop whose body may `break` gets a BOOL flag, False before the loop and set where the
//     source breaks; the loop becomes a while loop over `cond and not flag` (a pl.range loop: its
//     loop variable a scalar from `start`, advanced by `step` at the end of every iteration);
//   * the statements after one that may break or continue run under `if not (flags)`, and the
//     statements after an unconditional `break` / `continue` in the same block are dropped;
//   * explicit carries (init_values + a trailing pl.yield_) become assignments to the iter_args
//     (through temporaries, so a swap stays a swap) under the same guard, and the body yields the
//     iter_args unconditionally: a break or continue leaves a carry at its iteration-start value.
// Orchestration loops are rewritten the same way (the orchestration emitter prints the while
// loop; its body is a runtime scope like a pl.range body); loops of other functions are left alone.
// A break / continue outside a loop, in a pl.parallel / pl.unroll / pl.pipeline loop, or under an
// if that yields values is a CompileError at the statement.
#include <fmt/format.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool is_kernel(FunctionType t) { return t == FunctionType::InCore || t == FunctionType::AIV || t == FunctionType::AIC; }

// Does `s` break / continue the loop it is in (not a nested loop's)?
struct Exits {
  bool brk = false, cnt = false;
};
Exits exits_of(const StmtPtr& s) {
  Exits e;
  if (!s) return e;
  switch (s->kind) {
    case NodeKind::BreakStmt: e.brk = true; break;
    case NodeKind::ContinueStmt: e.cnt = true; break;
    case NodeKind::SeqStmts:
      for (const auto& c : as<SeqStmts>(s)->stmts) {
        Exits x = exits_of(c);
        e.brk |= x.brk, e.cnt |= x.cnt;
      }
      break;
    case NodeKind::IfStmt: {
      const auto* i = as<IfStmt>(s);
      Exits a = exits_of(i->then_body), b = exits_of(i->else_body);
      e.brk = a.brk || b.brk, e.cnt = a.cnt || b.cnt;
      break;
    }
    case NodeKind::ScopeStmt: e = exits_of(as<ScopeStmt>(s)->body); break;
    default: break;  // loops own their breaks
  }
  return e;
}

ExprPtr not_(const ExprPtr& a, const Span& sp) {
  return std::make_shared<Unary>(UnOp::Not, a, scalar_type(DataType::BOOL), sp);
}
ExprPtr and_(const ExprPtr& a, const ExprPtr& b, const Span& sp) {
  return std::make_shared<Binary>(BinOp::And, a, b, scalar_type(DataType::BOOL), sp);
}
ExprPtr or_(const ExprPtr& a, const ExprPtr& b, const Span& sp) {
  return std::make_shared<Binary>(BinOp::Or, a, b, scalar_type(DataType::BOOL), sp);
}
StmtPtr set(const VarPtr& v, bool value, const Span& sp) { return std::make_shared<AssignStmt>(v, make_bool(value, sp), sp); }

class Transformer {
 public:
  StmtPtr run(const StmtPtr& s, bool in_kernel) { return stmt(s, in_kernel); }

 private:
  int loops_ = 0;  // loops around the statement being rewritten

  StmtPtr in_loop(const StmtPtr& body, bool in_kernel) {
    ++loops_;
    StmtPtr b = stmt(body, in_kernel);
    --loops_;
    return b;
  }

  // The flags of the loop being rewritten (null: that exit does not occur).
  struct Flags {
    VarPtr brk, cnt;
  };

  StmtPtr stmt(const StmtPtr& s, bool in_kernel) {
    if (!s) return s;
    switch (s->kind) {
      case NodeKind::SeqStmts: {
        std::vector<StmtPtr> out;
        for (const auto& c : as<SeqStmts>(s)->stmts) out.push_back(stmt(c, in_kernel));
        return make_body(std::move(out), s->span);
      }
      case NodeKind::IfStmt: {
        auto n = std::make_shared<IfStmt>(*as<IfStmt>(s));
        n->then_body = stmt(n->then_body, in_kernel);
        n->else_body = stmt(n->else_body, in_kernel);
        return n;
      }
      case NodeKind::ScopeStmt: {
        auto n = std::make_shared<ScopeStmt>(*as<ScopeStmt>(s));
        n->body = stmt(n->body, in_kernel || n->scope == ScopeKind::InCore);
        return n;
      }
      case NodeKind::ForStmt: return for_loop(std::static_pointer_cast<const ForStmt>(s), in_kernel);
      case NodeKind::WhileStmt: return while_loop(std::static_pointer_cast<const WhileStmt>(s), in_kernel);
      case NodeKind::BreakStmt:
      case NodeKind::ContinueStmt:
        if (in_kernel && loops_ == 0)
          throw CompileError("E412", s->span,
                             fmt::format("'{}' outside a loop", s->kind == NodeKind::BreakStmt ? "break" : "continue"));
        return s;
      default: return s;
    }
  }

  // The body's statements, rewritten for `f`; a trailing explicit yield becomes guarded
  // assignments to the iter_args and an unconditional yield of them.
  StmtPtr loop_body(const StmtPtr& body, const std::vector<IterArgPtr>& iter_args, const Flags& f,
                    const std::vector<StmtPtr>& tail, const Span& sp) {
    std::vector<StmtPtr> stmts = flatten_body(body);
    const YieldStmt* yield = !stmts.empty() ? as<YieldStmt>(stmts.back()) : nullptr;
    if (yield) stmts.pop_back();
    if (yield && yield->values.size() == iter_args.size()) {
      std::vector<VarPtr> tmps;
      for (size_t k = 0; k < iter_args.size(); ++k) {
        tmps.push_back(std::make_shared<Var>(iter_args[k]->name + "_next", iter_args[k]->type, yield->span));
        stmts.push_back(std::make_shared<AssignStmt>(tmps.back(), yield->values[k], yield->span));
      }
      for (size_t k = 0; k < iter_args.size(); ++k)
        stmts.push_back(std::make_shared<AssignStmt>(iter_args[k], tmps[k], yield->span));
    } else if (yield) {
      stmts.push_back(std::static_pointer_cast<const Stmt>(std::make_shared<YieldStmt>(*yield)));
    }
    std::vector<StmtPtr> out;
    if (f.cnt) out.push_back(set(f.cnt, false, sp));
    for (auto& s : block(stmts, f)) out.push_back(std::move(s));
    for (const auto& s : tail) out.push_back(s);
    if (yield && yield->values.size() == iter_args.size()) {
      std::vector<ExprPtr> vals(iter_args.begin(), iter_args.end());
      out.push_back(std::make_shared<YieldStmt>(vals, yield->span));
    }
    return make_body(std::move(out), sp);
  }

  // A block of one loop body: each exit sets its flag, the rest of the block after a statement
  // that may exit runs under `not (flags)`.
  std::vector<StmtPtr> block(const std::vector<StmtPtr>& stmts, const Flags& f) {
    std::vector<StmtPtr> out;
    for (size_t k = 0; k < stmts.size(); ++k) {
      const StmtPtr& s = stmts[k];
      if (s->kind == NodeKind::BreakStmt) {
        out.push_back(set(f.brk, true, s->span));
        return out;  // the rest of the block is dead
      }
      if (s->kind == NodeKind::ContinueStmt) {
        out.push_back(set(f.cnt, true, s->span));
        return out;
      }
      const Exits e = exits_of(s);
      if (!e.brk && !e.cnt) {
        out.push_back(s);
        continue;
      }
      out.push_back(exiting(s, f));
      std::vector<StmtPtr> rest(stmts.begin() + static_cast<long>(k) + 1, stmts.end());
      if (rest.empty()) return out;
      ExprPtr flag;
      for (const VarPtr& v : {f.brk, f.cnt})
        if (v) flag = flag ? or_(flag, v, s->span) : ExprPtr(v);
      auto guarded = block(rest, f);
      out.push_back(std::make_shared<IfStmt>(not_(flag, s->span), make_body(std::move(guarded), s->span), nullptr,
                                             std::vector<VarPtr>{}, s->span));
      return out;
    }
    return out;
  }

  // A statement that may exit: its blocks rewritten.
  StmtPtr exiting(const StmtPtr& s, const Flags& f) {
    switch (s->kind) {
      case NodeKind::SeqStmts: return make_body(block(flatten_body(s), f), s->span);
      case NodeKind::IfStmt: {
        const auto* i = as<IfStmt>(s);
        if (!i->return_vars.empty())
          throw CompileError("E501", s->span, "a break / continue under an if that yields values is not supported yet",
                             "assign the values to names instead of pl.yield_ in this if");
        auto n = std::make_shared<IfStmt>(*i);
        n->then_body = make_body(block(flatten_body(i->then_body), f), i->span);
        if (i->else_body) n->else_body = make_body(block(flatten_body(i->else_body), f), i->span);
        return n;
      }
      case NodeKind::ScopeStmt: {
        auto n = std::make_shared<ScopeStmt>(*as<ScopeStmt>(s));
        n->body = make_body(block(flatten_body(n->body), f), s->span);
        return n;
      }
      default: return s;
    }
  }

  StmtPtr for_loop(const std::shared_ptr<const ForStmt>& s, bool in_kernel) {
    StmtPtr body = in_loop(s->body, in_kernel);  // nested loops first
    const Exits e = exits_of(body);
    if (!in_kernel || (!e.brk && !e.cnt)) {
      if (body == s->body) return s;
      auto n = std::make_shared<ForStmt>(*s);
      n->body = body;
      return n;
    }
    if (s->kind != ForKind::Sequential)
      throw CompileError("E501", s->span,
                         fmt::format("'{}' in a pl.{} loop is not supported", e.brk ? "break" : "continue", to_string(s->kind)),
                         s->kind == ForKind::Parallel ? "iterations of a pl.parallel loop run independently: use pl.range"
                                                      : "use a pl.range loop");
    Flags f;
    const Span& sp = s->span;
    if (e.cnt) f.cnt = std::make_shared<Var>("skip", scalar_type(DataType::BOOL), sp);
    if (!e.brk) {  // continue only: the loop stays a for loop
      auto n = std::make_shared<ForStmt>(*s);
      n->body = loop_body(body, s->iter_args, f, {}, sp);
      return n;
    }
    f.brk = std::make_shared<Var>("broke", scalar_type(DataType::BOOL), sp);
    const auto step = const_int_value(s->step);
    if (!step || *step == 0)
      throw CompileError("E501", sp, "'break' in a pl.range loop whose step is not a non-zero constant is not supported yet");
    // for i in range(a, b, c) → i = a; while (i < b and not broke): ...; i = i + c
    const VarPtr& i = s->loop_var;
    std::vector<StmtPtr> out;
    out.push_back(set(f.brk, false, sp));
    out.push_back(std::make_shared<AssignStmt>(i, s->start, sp));
    auto cmp = std::make_shared<Binary>(*step > 0 ? BinOp::Lt : BinOp::Gt, i, s->stop, scalar_type(DataType::BOOL), sp);
    auto next = std::make_shared<Binary>(BinOp::Add, i, s->step, i->type, sp);
    StmtPtr nb = loop_body(body, s->iter_args, f, {std::make_shared<AssignStmt>(i, next, sp)}, sp);
    auto w = std::make_shared<WhileStmt>(and_(cmp, not_(f.brk, sp), sp), s->iter_args, nb, s->return_vars, sp);
    out.push_back(with_comments(w, *s));
    return make_body(std::move(out), sp);
  }

  StmtPtr while_loop(const std::shared_ptr<const WhileStmt>& s, bool in_kernel) {
    StmtPtr body = in_loop(s->body, in_kernel);
    const Exits e = exits_of(body);
    if (!in_kernel || (!e.brk && !e.cnt)) {
      if (body == s->body) return s;
      auto n = std::make_shared<WhileStmt>(*s);
      n->body = body;
      return n;
    }
    Flags f;
    const Span& sp = s->span;
    if (e.cnt) f.cnt = std::make_shared<Var>("skip", scalar_type(DataType::BOOL), sp);
    if (e.brk) f.brk = std::make_shared<Var>("broke", scalar_type(DataType::BOOL), sp);
    auto n = std::make_shared<WhileStmt>(*s);
    n->body = loop_body(body, s->iter_args, f, {}, sp);
    if (!f.brk) return n;
    n->cond = and_(s->cond, not_(f.brk, sp), sp);
    return make_body({set(f.brk, false, sp), StmtPtr(n)}, sp);
  }
};

}  // namespace

Pass ctrl_flow_transform_pass() {
  return Pass{"CtrlFlowTransform",
              "Rewrites break / continue in kernel and orchestration loops into flags and guarded ifs; a loop that breaks "
              "becomes a while loop over `cond and not broke` (before SSA conversion, so names keep the "
              "values they had at the break).",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [](const FunctionPtr& f) {
                  if (!f->body) return f;
                  Transformer t;
                  StmtPtr b = t.run(f->body, is_kernel(f->type) || f->type == FunctionType::Orchestration);
                  if (b == f->body) return f;
                  auto g = std::make_shared<Function>(*f);
                  g->body = b;
                  return FunctionPtr(g);
                });
              }};
}

}  // namespace pypto::passes
