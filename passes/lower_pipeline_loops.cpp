// LowerPipelineLoops — `for i in pl.pipeline(start, stop, step, stage=F)` asks for F iterations
// in flight at once. The body is replicated F times per iteration of a loop that steps F times as
// far (clone k sees `i + k*step`; a carried value threads from each clone's yield into the next),
// so that CanonicalizeIOOrder, which runs next, can lift the loads of all F clones above their
// compute and sink the stores: the hardware then loads clone k+1 while it computes clone k, each
// clone in buffers of its own (MemoryReuse sees their overlapping lifetimes).
//
// The iterations that do not fill a group of F run after the loop:
//   * constant bounds: the T mod F leftover clones follow the loop, each with its constant index
//     (no loop at all when T < F; a loop of zero iterations is just demoted to pl.range);
//   * runtime bounds: `unroll_main_end = start + trips // F * (F*step)` bounds the loop, and an
//     if-cascade on `unroll_rem` (the leftover trip count, 0 … F-1) runs 1 … F-1 clones, threading
//     carried values through each level's return_vars. Where the trip count could be negative
//     (a runtime stop below start), the span is clamped at 0 first: the floor divisions would
//     otherwise leave a leftover count of 1 … F-1 and run clones no iteration asked for.
// The replicated loop stays a Pipeline loop (CanonicalizeIOOrder reorders its body and demotes it);
// stage=1 loops are left for CanonicalizeIOOrder alone. A loop whose step is not a positive
// constant is not replicated: it gets a W501 warning and runs its stages one after another.
// A capacity gate first: F stages keep F copies of a stage's tiles live, so F is lowered to what
// the on-chip memories hold (the reference's MemoryReuse sheds depth the same way), with a W503
// warning naming the space, the per-stage bytes and the room (one stage: the loop runs plain).
// Inner pipeline loops are lowered before the loop around them, so each outer clone holds a fresh
// copy of the already lowered inner loop. Runs on SSA form after NormalizeReturnOrder (where the
// reference runs it); keeps SSA (every clone binds fresh Vars).
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "ir/op_registry.h"
#include "ir/soc.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tile_footprint.h"

namespace pypto::passes {

using namespace ir;

namespace {

ExprPtr bin(BinOp op, ExprPtr a, ExprPtr b, const Span& sp, DataType dt = DataType::INDEX) {
  return std::make_shared<Binary>(op, std::move(a), std::move(b), scalar_type(is_comparison(op) ? DataType::BOOL : dt),
                                  sp);
}

class Lowerer : public IRMutator {
 public:
  Lowerer(DiagnosticSink& sink, const SocInfo& soc) : sink_(sink), soc_(&soc) {}

 protected:
  // A lowered loop (several statements) is spliced into the enclosing statement list.
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr& c) { return as<ForStmt>(c) != nullptr; });
  }

  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    StmtPtr inner = IRMutator::mutate_for(s);  // inner pipeline loops first
    const auto* f = as<ForStmt>(inner);
    if (!f || f->kind != ForKind::Pipeline || f->stage <= 1) return inner;
    auto step = const_int_value(f->step);
    if (!step || *step <= 0) {
      sink_.warning("W501", f->span,
                    fmt::format("pl.pipeline(stage={}): the body is not replicated because the step is not a positive "
                                "constant; the stages run one after another",
                                f->stage),
                    "give the loop a constant step to overlap its stages");
      return with_stage(*f, 1);
    }
    if (const int64_t fit = affordable_stages(*f); fit < f->stage) {
      const auto& [space, per_stage, room] = tightest_;
      sink_.warning("W503", f->span,
                    fmt::format("pl.pipeline(stage={}): {} stage{} fit{}: each stage's tiles need {} bytes of {} and {} "
                                "are free around the loop",
                                f->stage, fit, fit == 1 ? "" : "s", fit == 1 ? "s, so the iterations run one after another" : "",
                                per_stage, to_string(space), room),
                    fmt::format("shrink the per-stage tiles to at most {} bytes of {}, or write stage={}", room / f->stage,
                                to_string(space), fit));
      if (fit <= 1) return with_stage(*f, 1);
      auto narrowed = with_stage(*f, fit);
      return lower(static_cast<const ForStmt&>(*narrowed), *step);
    }
    return lower(*f, *step);
  }

 private:
  StmtPtr lower(const ForStmt& f0, int64_t step) {
    const ForStmt* f = &f0;
    const auto* lt = as_scalar(f->loop_var->type);
    dt_ = lt ? lt->dtype : DataType::INDEX;
    auto [stmts, yield] = split_trailing_yield(f->body);
    body_ = std::move(stmts);
    yield_ = yield ? yield->values : std::vector<ExprPtr>{};
    auto a = const_int_value(f->start), b = const_int_value(f->stop);
    if (a && b) return lower_static(*f, *a, *b, step);
    return lower_dynamic(*f, step);
  }

  // ---- the capacity gate: how many stages the on-chip memories hold ----
  // A stage's footprint per memory space is the peak of the bytes its tiles keep live, statement
  // by statement through one copy of the body (a tile lives from its definition to its last use;
  // views and in-place results share their source's buffer); the room is the space's capacity less
  // the tiles made outside the loop that the body reads. The stages that fit: room / footprint,
  // over every space (at least 1). The estimate ignores alignment padding: a kernel it admits can
  // still overflow, and AllocateMemoryAddr says so.
  int64_t affordable_stages(const ForStmt& f) {
    const SpaceBytes peak = peak_tile_bytes(flatten_body(f.body));
    // Tiles made before the loop that the body reads stay live through it.
    SpaceBytes outside = outside_tile_bytes(f.body, tile_defs_);
    int64_t fit = f.stage;
    for (const auto& [sp, per] : peak) {
      if (per <= 0) continue;
      const int64_t room = std::max<int64_t>(0, soc_->capacity(sp) - outside[sp]);
      const int64_t n = std::max<int64_t>(1, room / per);
      if (n < fit) {
        fit = n;
        tightest_ = {sp, per, room};
      }
    }
    return fit;
  }

 private:
  static StmtPtr with_stage(const ForStmt& f, int64_t stage, ForKind kind = ForKind::Pipeline) {
    auto n = std::make_shared<ForStmt>(f);
    n->kind = kind;
    n->stage = kind == ForKind::Pipeline ? stage : 0;
    return n;
  }

  // Appends one copy of the body to `out` with the loop variable bound to `index` and the iter_args
  // to `carried`; returns the copy's yielded values. `fresh` = false reuses the body's own Vars
  // (its first use), otherwise every binding gets a fresh Var.
  std::vector<ExprPtr> clone(const ForStmt& f, const ExprPtr& index, const std::vector<ExprPtr>& carried, bool fresh,
                             std::vector<StmtPtr>& out) {
    FreshCloner fc;
    IRMutator keep;
    IRMutator& m = fresh ? static_cast<IRMutator&>(fc) : keep;
    if (index != f.loop_var) m.var_map[f.loop_var.get()] = index;
    for (size_t j = 0; j < f.iter_args.size(); ++j)
      if (carried[j] != f.iter_args[j]) m.var_map[f.iter_args[j].get()] = carried[j];
    for (const auto& st : body_)
      for (const auto& c : flatten_body(m.mutate(st))) out.push_back(c);
    std::vector<ExprPtr> next;
    for (const auto& v : yield_) next.push_back(m.mutate(v));
    return next;
  }

  std::vector<ExprPtr> inits(const ForStmt& f) const {
    std::vector<ExprPtr> v;
    for (const auto& ia : f.iter_args) v.push_back(ia->init);
    return v;
  }

  // Fresh Vars standing for the loop's results at an intermediate point ("r_main", "r_rem2").
  static std::vector<VarPtr> fresh_results(const ForStmt& f, const std::string& suffix) {
    std::vector<VarPtr> v;
    for (const auto& rv : f.return_vars) v.push_back(copy_var_with_type(*rv, rv->type, rv->name + suffix));
    return v;
  }
  static std::vector<ExprPtr> as_exprs(const std::vector<VarPtr>& vs) { return {vs.begin(), vs.end()}; }

  // The replicated loop `for i in pipeline(start, end, F*step)` with F clones of the body.
  StmtPtr main_loop(const ForStmt& f, ExprPtr end, int64_t step, std::vector<VarPtr> results) {
    std::vector<StmtPtr> stmts;
    std::vector<ExprPtr> carried(f.iter_args.begin(), f.iter_args.end());
    for (int64_t k = 0; k < f.stage; ++k) {
      ExprPtr index = k == 0 ? ExprPtr(f.loop_var) : bin(BinOp::Add, f.loop_var, make_int(k * step, f.span, dt_), f.span, dt_);
      carried = clone(f, index, carried, k > 0, stmts);
    }
    if (!f.iter_args.empty()) stmts.push_back(std::make_shared<YieldStmt>(carried, f.span));
    auto loop = std::make_shared<ForStmt>(f.loop_var, f.start, std::move(end), make_int(step * f.stage, f.span, dt_),
                                          f.iter_args, make_body(std::move(stmts), f.span), std::move(results),
                                          ForKind::Pipeline, f.span, f.stage);
    return with_comments(loop, f);
  }

  StmtPtr lower_static(const ForStmt& f, int64_t a, int64_t b, int64_t step) {
    const int64_t trips = b > a ? (b - a + step - 1) / step : 0;
    if (trips == 0) return with_stage(f, 0, ForKind::Sequential);
    const int64_t F = f.stage, main = trips / F * F, rem = trips - main;
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> carried = inits(f);
    if (main > 0) {
      std::vector<VarPtr> results = rem ? fresh_results(f, "_main") : f.return_vars;
      out.push_back(main_loop(f, make_int(a + main * step, f.span, dt_), step, results));
      carried = as_exprs(results);
    }
    for (int64_t k = 0; k < rem; ++k)
      carried = clone(f, make_int(a + (main + k) * step, f.span, dt_), carried, main > 0 || k > 0, out);
    if (rem)
      for (size_t j = 0; j < f.return_vars.size(); ++j)
        out.push_back(std::make_shared<AssignStmt>(f.return_vars[j], carried[j], f.span));
    return make_body(std::move(out), f.span);
  }

  StmtPtr lower_dynamic(const ForStmt& f, int64_t step) {
    const Span& sp = f.span;
    const int64_t F = f.stage;
    auto idx = [&](int64_t v) { return make_int(v, sp, dt_); };
    // trips = ceil((stop - start) / step), written as the reference writes it.
    // A runtime stop below start runs no iteration; the floor divisions below would give a negative
    // main end and a leftover count of 1 … F-1, so the span is clamped at 0 unless it is known
    // not to be negative (start a constant <= 0, stop a tensor extent or a constant >= 0).
    const auto start_c = const_int_value(f.start);
    const bool ordered = start_c && *start_c <= 0 && non_negative(f.stop);
    auto trips = [&]() -> ExprPtr {
      ExprPtr span = bin(BinOp::Sub, f.stop, f.start, sp, dt_);
      if (!ordered) span = bin(BinOp::Max, span, idx(0), sp, dt_);
      if (step == 1) return span;
      return bin(BinOp::FloorDiv, bin(BinOp::Add, span, idx(step - 1), sp, dt_), idx(step), sp, dt_);
    };
    std::vector<StmtPtr> out;
    auto end_var = make_var("unroll_main_end", scalar_type(dt_), sp);
    ExprPtr end_value = bin(BinOp::Mul, bin(BinOp::FloorDiv, trips(), idx(F), sp, dt_), idx(F * step), sp, dt_);
    out.push_back(std::make_shared<AssignStmt>(end_var, bin(BinOp::Add, f.start, end_value, sp, dt_), sp));
    std::vector<VarPtr> main_results = fresh_results(f, "_main");
    out.push_back(main_loop(f, end_var, step, main_results));
    auto rem_var = make_var("unroll_rem", scalar_type(dt_), sp);
    ExprPtr rem_value = step == 1 && ordered ? bin(BinOp::Sub, f.stop, end_var, sp, dt_)
                                  : bin(BinOp::Sub, trips(),
                                        bin(BinOp::Mul, bin(BinOp::FloorDiv, trips(), idx(F), sp, dt_), idx(F), sp, dt_),
                                        sp, dt_);
    out.push_back(std::make_shared<AssignStmt>(rem_var, rem_value, sp));
    out.push_back(cascade(f, 1, end_var, rem_var, step, main_results));
    return make_body(std::move(out), sp);
  }

  // `if unroll_rem == r: <r clones> else: <the level for r + 1>`; with carried values each level
  // yields into its return_vars (the loop's own at level 1), the innermost else the loop's values.
  StmtPtr cascade(const ForStmt& f, int64_t r, const VarPtr& end, const VarPtr& rem, int64_t step,
                  const std::vector<VarPtr>& main_results) {
    const Span& sp = f.span;
    const bool carries = !f.iter_args.empty();
    std::vector<StmtPtr> then;
    std::vector<ExprPtr> carried = as_exprs(main_results);
    for (int64_t k = 0; k < r; ++k) {
      ExprPtr index = k == 0 ? ExprPtr(end) : bin(BinOp::Add, end, make_int(k * step, sp, dt_), sp, dt_);
      carried = clone(f, index, carried, true, then);
    }
    std::vector<VarPtr> results = r == 1 ? f.return_vars : fresh_results(f, fmt::format("_rem{}", r));
    if (carries) then.push_back(std::make_shared<YieldStmt>(carried, sp));
    StmtPtr else_body;
    if (r + 1 < f.stage) {
      StmtPtr next = cascade(f, r + 1, end, rem, step, main_results);
      if (carries) {
        const auto* nif = as<IfStmt>(next);
        else_body = make_body({next, std::make_shared<YieldStmt>(as_exprs(nif->return_vars), sp)}, sp);
      } else {
        else_body = next;
      }
    } else if (carries) {
      else_body = std::make_shared<YieldStmt>(as_exprs(main_results), sp);
    }
    ExprPtr cond = bin(BinOp::Eq, rem, make_int(r, sp, dt_), sp);
    return std::make_shared<IfStmt>(cond, make_body(std::move(then), sp), else_body,
                                    carries ? results : std::vector<VarPtr>{}, sp);
  }

  // A tensor extent (a Var some parameter's shape names), a constant >= 0, or a sum, product or
  // floor quotient of those.
  bool non_negative(const ExprPtr& e) const {
    if (auto c = const_int_value(e)) return *c >= 0;
    if (const auto* v = as<Var>(e)) return extents_.count(v) > 0;
    if (const auto* b = as<Binary>(e))
      return (b->op == BinOp::Add || b->op == BinOp::Mul || b->op == BinOp::FloorDiv) && non_negative(b->a) &&
             non_negative(b->b);
    return false;
  }

 public:
  void set_extents(const Function& fn) {
    tile_defs_ = tile_defs(fn.body);
    for (const auto& p : fn.params)
      if (const auto* t = as_shaped(p->type))
        for (const auto& d : t->shape)
          if (const auto* v = as<Var>(d)) extents_.insert(v);
  }

 private:
  std::unordered_set<const Var*> extents_;
  TileDefs tile_defs_;  // every tile binding of the function
  std::tuple<MemorySpace, int64_t, int64_t> tightest_{};          // (space, per-stage bytes, room)
  DiagnosticSink& sink_;
  const SocInfo* soc_;
  DataType dt_ = DataType::INDEX;
  std::vector<StmtPtr> body_;
  std::vector<ExprPtr> yield_;
};

}  // namespace

Pass lower_pipeline_loops_pass() {
  return Pass{"LowerPipelineLoops",
              "Replicates the body of each pl.pipeline(stage=F) loop F times per iteration (clone k at i + k*step, "
              "carried values threaded clone to clone); leftover iterations follow as constant-index clones or, "
              "for runtime bounds, an if-cascade on the remaining trip count. The loop stays a Pipeline loop for "
              "CanonicalizeIOOrder.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!f->body) return f;
                  Lowerer l(ctx.diagnostics, soc_info(ctx.soc));
                  l.set_extents(*f);
                  return l.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
