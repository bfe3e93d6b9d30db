// CtrlFlowTransform — rewrites `break` and `continue` in kernel and orchestration loops (InCore /
// AIV / AIC / Orchestration functions and pl.at(CORE_GROUP) scopes) into structured control flow the back ends write as
// plain loops and ifs. It runs on the front end's IR, before ConvertToSSA, so a name rebound
// before a `break` keeps its new value after the loop, as Python's `break` does.
//   * Folding (the reference's shape, and how loops are written): an `if` directly in a block of
//     the body with a branch that exits takes the rest of the block into its other branch (folded
//     again, so an `elif` that breaks works too); a `continue` then needs no flag at all. With
//     explicit carries (init_values + a trailing pl.yield_) each folded if yields the carries —
//     the iteration-start values from an exiting branch, what the rest yields from the other —
//     and the body yields the if's results.
//   * Flags, for the exits folding cannot take without copying statements (an exit nested in ifs
//     whose other branches would each need the rest, an exit in a scope): a BOOL `skip` per
//     iteration set where the source continues, the statements after a statement that may exit
//     under `if not (flags)`, explicit carries assigned (through temporaries, so a swap stays a
//     swap) under the same guard and yielded unconditionally.
//   * A loop that may break gets a BOOL `brk`, False before the loop and set where the source
//     breaks; it becomes a while loop over `cond and not brk` (a pl.range loop: its loop variable a
//     scalar from `start`, advanced by `step` under `if not brk` at the end of every iteration, so
//     after a break it holds the iteration that broke).
//   * Statements after an unconditional `break` / `continue` in the same block are dropped.
// Orchestration loops are rewritten the same way (the orchestration emitter prints the while
// loop; its body is a runtime scope like a pl.range body); loops of other functions are left alone.
// A break / continue outside a loop, in a pl.parallel / pl.unroll / pl.pipeline loop, or under an
// if that yields values is a CompileError at the statement.
#include <fmt/format.h>

#include <algorithm>

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

  // ---- the folded shape (the reference's): `if c: break / continue` takes the rest of its block
  // into its other branch, so no flag is needed for a continue and none guards the statements.
  // Used when every exit of the body is the last statement of a branch of an if directly in a
  // block of the body (or of a block the folding built), which is how loops are written; any
  // other shape gets the flags below. With explicit carries each folded if yields the carries
  // (a phi): an exiting branch the iteration-start values, the other branch what the rest yields.
  struct Fold {
    const std::vector<IterArgPtr>* carries = nullptr;  // explicit carries (null: none)
    VarPtr brk;                                        // the loop's break flag (null: no break)
    bool ok = true;                                    // every exit had the foldable shape
  };

  enum class Branch { Plain, Exits, Other };  // no exit / exits (after statements that do not) / anything else
  static Branch branch_kind(const std::vector<StmtPtr>& b) {
    for (size_t k = 0; k < b.size(); ++k) {
      if (b[k]->kind == NodeKind::BreakStmt || b[k]->kind == NodeKind::ContinueStmt) return Branch::Exits;  // (the rest is dead)
      const Exits e = exits_of(b[k]);
      if (e.brk || e.cnt) return Branch::Other;
    }
    return Branch::Plain;
  }

  // The statements replacing an exit (and everything after it in its block).
  std::vector<StmtPtr> exit_to(const StmtPtr& exit, Fold& f) {
    std::vector<StmtPtr> out;
    if (exit->kind == NodeKind::BreakStmt) out.push_back(set(f.brk, true, exit->span));
    if (f.carries) out.push_back(std::make_shared<YieldStmt>(std::vector<ExprPtr>(f.carries->begin(), f.carries->end()), exit->span));
    return out;
  }

  std::vector<StmtPtr> fold(const std::vector<StmtPtr>& stmts, Fold& f) {
    std::vector<StmtPtr> out;
    for (size_t k = 0; k < stmts.size() && f.ok; ++k) {
      const StmtPtr& s = stmts[k];
      if (s->kind == NodeKind::BreakStmt || s->kind == NodeKind::ContinueStmt) {
        for (auto& x : exit_to(s, f)) out.push_back(std::move(x));
        return out;  // the rest of the block is dead
      }
      const Exits e = exits_of(s);
      if (!e.brk && !e.cnt) {
        out.push_back(s);
        continue;
      }
      const auto* i = as<IfStmt>(s);
      if (!i || !i->return_vars.empty()) {
        f.ok = false;
        return out;
      }
      std::vector<StmtPtr> rest(stmts.begin() + static_cast<long>(k) + 1, stmts.end());
      // The branches that do not end in their exit take the rest (folded again: an elif that
      // breaks is such a branch); both taking it would copy it, so that is the flag shape's.
      const Branch kt = branch_kind(flatten_body(i->then_body)), ke = branch_kind(flatten_body(i->else_body));
      if (kt != Branch::Exits && ke != Branch::Exits && !rest.empty()) {
        f.ok = false;
        return out;
      }
      auto branch = [&](const StmtPtr& body, Branch kind) -> StmtPtr {
        std::vector<StmtPtr> b = flatten_body(body);
        if (kind == Branch::Exits) {
          auto at = std::find_if(b.begin(), b.end(), [](const StmtPtr& x) {
            return x->kind == NodeKind::BreakStmt || x->kind == NodeKind::ContinueStmt;
          });
          StmtPtr exit = *at;
          b.erase(at, b.end());
          for (auto& x : exit_to(exit, f)) b.push_back(std::move(x));
          return make_body(std::move(b), body ? body->span : s->span);
        }
        b.insert(b.end(), rest.begin(), rest.end());
        return make_body(fold(b, f), s->span);
      };
      auto n = std::make_shared<IfStmt>(*i);
      n->then_body = branch(i->then_body, kt);
      n->else_body = branch(i->else_body, ke);
      if (!f.ok) return out;
      if (f.carries) {  // both branches end in a yield of the carries: the if is their phi
        std::vector<ExprPtr> phis;
        for (const auto& c : *f.carries) {
          n->return_vars.push_back(std::make_shared<Var>(c->name + "_phi", c->type, s->span));
          phis.push_back(n->return_vars.back());
        }
        out.push_back(n);
        out.push_back(std::make_shared<YieldStmt>(std::move(phis), s->span));
      } else {
        out.push_back(n);
      }
      return out;  // the rest went into the branches
    }
    return out;
  }

  // The folded loop body, `tail` (the advance of a pl.range loop turned while loop) before its
  // final yield; null when the body has an exit of another shape.
  StmtPtr folded_body(const StmtPtr& body, const std::vector<IterArgPtr>& iter_args, const VarPtr& brk,
                      const std::vector<StmtPtr>& tail, const Span& sp) {
    std::vector<StmtPtr> stmts = flatten_body(body);
    const YieldStmt* yield = !stmts.empty() ? as<YieldStmt>(stmts.back()) : nullptr;
    Fold f;
    f.brk = brk;
    if (!iter_args.empty() && yield && yield->values.size() == iter_args.size()) f.carries = &iter_args;
    std::vector<StmtPtr> out = fold(stmts, f);
    if (!f.ok) return nullptr;
    auto at = out.end();
    if (f.carries && !out.empty() && as<YieldStmt>(out.back())) --at;
    out.insert(at, tail.begin(), tail.end());
    return make_body(std::move(out), sp);
  }

  // ---- the flag shape, for exits the folding does not take (an exit deep in nested ifs, in a
  // scope, beside other statements of its branch): the body's statements rewritten for `f`; a
  // trailing explicit yield becomes guarded assignments to the iter_args and an unconditional
  // yield of them.
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
    const Span& sp = s->span;
    if (!e.brk) {  // continue only: the loop stays a for loop
      auto n = std::make_shared<ForStmt>(*s);
      n->body = folded_body(body, s->iter_args, nullptr, {}, sp);
      if (!n->body) {
        Flags f;
        f.cnt = std::make_shared<Var>("skip", scalar_type(DataType::BOOL), sp);
        n->body = loop_body(body, s->iter_args, f, {}, sp);
      }
      return n;
    }
    const auto step = const_int_value(s->step);
    if (!step || *step == 0)
      throw CompileError("E501", sp, "'break' in a pl.range loop whose step is not a non-zero constant is not supported yet");
    // for i in range(a, b, c) → i = a; brk = False; while (i < b and not brk): ...; if not brk: i = i + c
    // (the advance is guarded, so after a break `i` is the iteration that broke, as in Python)
    const VarPtr& i = s->loop_var;
    auto brk = std::make_shared<Var>("brk", scalar_type(DataType::BOOL), sp);
    std::vector<StmtPtr> out;
    out.push_back(std::make_shared<AssignStmt>(i, s->start, sp));
    out.push_back(set(brk, false, sp));
    auto cmp = std::make_shared<Binary>(*step > 0 ? BinOp::Lt : BinOp::Gt, i, s->stop, scalar_type(DataType::BOOL), sp);
    auto next = std::make_shared<Binary>(BinOp::Add, i, s->step, i->type, sp);
    std::vector<StmtPtr> tail = {std::make_shared<IfStmt>(not_(brk, sp), std::make_shared<AssignStmt>(i, next, sp), nullptr,
                                                          std::vector<VarPtr>{}, sp)};
    StmtPtr nb = folded_body(body, s->iter_args, brk, tail, sp);
    if (!nb) {
      Flags f;
      f.brk = brk;
      if (e.cnt) f.cnt = std::make_shared<Var>("skip", scalar_type(DataType::BOOL), sp);
      nb = loop_body(body, s->iter_args, f, tail, sp);
    }
    auto w = std::make_shared<WhileStmt>(and_(cmp, not_(brk, sp), sp), s->iter_args, nb, s->return_vars, sp);
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
    const Span& sp = s->span;
    VarPtr brk = e.brk ? std::make_shared<Var>("brk", scalar_type(DataType::BOOL), sp) : nullptr;
    auto n = std::make_shared<WhileStmt>(*s);
    n->body = folded_body(body, s->iter_args, brk, {}, sp);
    if (!n->body) {
      Flags f;
      f.brk = brk;
      if (e.cnt) f.cnt = std::make_shared<Var>("skip", scalar_type(DataType::BOOL), sp);
      n->body = loop_body(body, s->iter_args, f, {}, sp);
    }
    if (!brk) return n;
    n->cond = and_(s->cond, not_(brk, sp), sp);
    return make_body({set(brk, false, sp), StmtPtr(n)}, sp);
  }
};

}  // namespace

Pass ctrl_flow_transform_pass() {
  return Pass{"CtrlFlowTransform",
              "Rewrites break / continue in kernel and orchestration loops into structured ifs: the rest of a block "
              "folds into the other branch of an `if c: break/continue` (flags where folding would copy code); a loop "
              "that breaks becomes a while loop over `cond and not brk` (before SSA conversion, so names keep the "
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
