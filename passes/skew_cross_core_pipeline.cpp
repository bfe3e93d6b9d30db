// SkewCrossCorePipeline — the cube and vector halves of a mixed kernel hand tiles to each other
// inside `pl.pipeline(stage=F)` loops (attention's QK → softmax → PV per block). Replicating such
// a body (LowerPipelineLoops) overlaps nothing: each copy still waits for the other core's answer
// before the next copy starts. A half whose loop body sends one tile and then receives one (the
// producer of a round trip) is skewed instead: the iterations' sending parts (the statements the
// send depends on, "produce") run D iterations ahead of their receiving parts ("consume"):
//     produce(0) .. produce(D-1)
//     for k in range(start + D*step, start + trip*step, D*step):
//         produce(k) .. produce(k + (D-1)*step)     consume(k - D*step) .. consume(k - step)
//     consume(trip - D) .. consume(trip - 1)
// so the other core always has D tiles to work on while this one computes. Loop-carried values
// thread through the consume parts only; a scalar the consume part needs from the produce part
// (an offset) is recomputed there. D is the largest depth up to max(2, F - 1) that divides the trip
// count with room for two groups, and at most the ring's depth less one (the sender must not run
// further ahead than the FIFO's slots: pl.cross_core_slot(slot_num=N) deepens it). Every other
// pipeline loop with a tile crossing — stage=1, the receiving half (its produce part would be the
// received tile itself), more than one send or receive per iteration, a crossing inside a nested
// block, runtime bounds or step — runs its iterations one after another (a plain loop: never
// replicated); pipeline loops without crossings are left to LowerPipelineLoops. Inner loops first.
// Per-stage buffers: within each group of D sending parts (the prologue's, the steady loop's) the
// loads come first — each part's GM loads and L1 → L0 moves, with the scalar arithmetic they need,
// in part order, then the rest of each part in order (the sends keep their order). The loads of
// part k + 1 then live alongside part k's and get buffers of their own (MemoryReuse), so MTE2 /
// MTE1 fill them while the cube or vector pipe still computes part k, instead of waiting to reuse
// its buffer. Only where the group's tiles fit the on-chip memories that way (the footprint
// estimate of tile_footprint.h, with the tiles the loop reads from outside; else warning W503 and
// the parts in order) and where no part writes memory other than its own fresh tiles.
// Runs after NormalizeReturnOrder, before LowerPipelineLoops (where the reference runs it).
#include <fmt/format.h>

#include <set>
#include <tuple>
#include <unordered_set>

#include "ir/op_registry.h"
#include "ir/soc.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tile_footprint.h"

namespace pypto::passes {

using namespace ir;

namespace {

enum class Cross { None, Push, Pop };

Cross crossing(const StmtPtr& s) {
  const Call* c = nullptr;
  if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
  if (const auto* e = as<EvalStmt>(s)) c = as<Call>(e->expr);
  if (!c || !c->op) return Cross::None;
  static const OpDef* const push_aiv = OpRegistry::instance().find("tile.tpush_to_aiv");
  static const OpDef* const push_aic = OpRegistry::instance().find("tile.tpush_to_aic");
  static const OpDef* const pop_aic = OpRegistry::instance().find("tile.tpop_from_aic");
  static const OpDef* const pop_aiv = OpRegistry::instance().find("tile.tpop_from_aiv");
  if (c->op == push_aiv || c->op == push_aic) return Cross::Push;
  if (c->op == pop_aic || c->op == pop_aiv) return Cross::Pop;
  return Cross::None;
}

StmtPtr demote(const ForStmt& f) {
  auto n = std::make_shared<ForStmt>(f);
  n->kind = ForKind::Sequential;
  n->stage = 0;
  return n;
}

// The ring depth of the function's cross-core pipe (its initialize_pipe's slot_num), or 0.
int64_t ring_depth(const Function& fn) {
  int64_t depth = 0;
  struct V : IRVisitor {
    int64_t* depth;
    void visit_call(const Call& c) override {
      static const OpDef* const init_aic = OpRegistry::instance().find("system.aic_initialize_pipe");
      static const OpDef* const init_aiv = OpRegistry::instance().find("system.aiv_initialize_pipe");
      if (c.op && (c.op == init_aic || c.op == init_aiv))
        *depth = std::max(*depth, kw_int(c, "slot_num", 2));
      IRVisitor::visit_call(c);
    }
  } v;
  v.depth = &depth;
  if (fn.body) v.visit(fn.body);
  return depth;
}

// Whether `st` only fills a fresh tile from memory: a GM load, or an L1 → L0 move.
bool is_load(const StmtPtr& st) {
  const auto* a = as<AssignStmt>(st);
  const auto* c = a ? as<Call>(a->value) : nullptr;
  return c && as_tile(a->var->type) && is_memory_load(*c);
}

// Whether `st` is scalar arithmetic (no call, or a pure scalar op): free to move with a load.
bool is_scalar_math(const StmtPtr& st) {
  const auto* a = as<AssignStmt>(st);
  if (!a || !as_scalar(a->var->type)) return false;
  const auto* c = as<Call>(a->value);
  return !c || (c->op && c->op->family() != "system" && c->op->io_tier == IoTier::Compute && !c->op->kernel_gm_scalar);
}

// Whether `st` writes memory other than the fresh tile it binds (a store, a GM write, an in-place
// instruction), orders something (a system op), or is not a plain call / assignment.
bool writes_memory(const StmtPtr& st) {
  const auto* a = as<AssignStmt>(st);
  const auto* e = as<EvalStmt>(st);
  if (!a && !e) return true;
  const auto* c = as<Call>(a ? a->value : e->expr);
  if (!c) return false;
  if (!c->op || c->op->family() == "system") return true;  // a call, a barrier / flag / pipe op
  if (c->op->io_tier == IoTier::Store || c->op->written_tensor >= 0) return true;
  return c->op->output_reuses_input >= 0 && c->op->pipe_rule != PipeRule::NotInstruction;
}

class Skewer : public IRMutator {
 public:
  Skewer(const Function& fn, int64_t ring, const SocInfo& soc, DiagnosticSink& sink)
      : ring_(ring), soc_(soc), sink_(sink), tile_defs_(tile_defs(fn.body)) {}

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr& c) { return as<ForStmt>(c) != nullptr; });
  }

  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    StmtPtr inner = IRMutator::mutate_for(s);  // inner loops first
    const auto* f = as<ForStmt>(inner);
    if (!f || f->kind != ForKind::Pipeline || f->stage < 1) return inner;
    auto [stmts, yield] = split_trailing_yield(f->body);
    int pushes = 0, pops = 0;
    for (const auto& st : stmts) {
      const Cross x = crossing(st);
      pushes += x == Cross::Push;
      pops += x == Cross::Pop;
    }
    if (pushes == 0 || pops == 0) return inner;  // no round trip at this level: LowerPipelineLoops' loop
    const auto a = const_int_value(f->start), b = const_int_value(f->stop), st = const_int_value(f->step);
    if (f->stage == 1 || !a || !b || !st || *st == 0 || pushes != 1 || pops != 1) return demote(*f);
    StmtPtr skewed = skew(*f, stmts, yield ? yield->values : std::vector<ExprPtr>{}, *a, *b, *st);
    return skewed ? skewed : demote(*f);
  }

 private:
  // The skewed form of `f`, or nullptr when the body does not split into produce / consume parts.
  StmtPtr skew(const ForStmt& f, const std::vector<StmtPtr>& body, const std::vector<ExprPtr>& yields, int64_t a,
               int64_t b, int64_t step) {
    const int64_t trip = step > 0 ? (b > a ? (b - a + step - 1) / step : 0) : (a > b ? (a - b - step - 1) / -step : 0);
    if (trip < 2) return nullptr;
    const size_t n = body.size();
    // Where each Var of the body is bound (nested bindings count for their top-level statement),
    // and what each statement reads.
    std::unordered_map<const Var*, size_t> def;
    std::vector<std::unordered_map<const Var*, int>> uses(n);
    size_t lead = n;
    for (size_t i = 0; i < n; ++i) {
      for (const auto& v : collect_assigned(body[i])) def[v.get()] = i;
      collect_uses(body[i], uses[i]);
      if (lead == n && crossing(body[i]) != Cross::None) lead = i;
    }
    // Produce: the lead crossing and everything it depends on.
    std::vector<bool> produce(n, false);
    std::vector<size_t> work = {lead};
    produce[lead] = true;
    while (!work.empty()) {
      const size_t i = work.back();
      work.pop_back();
      for (const auto& [v, cnt] : uses[i])
        if (auto d = def.find(v); d != def.end() && !produce[d->second]) {
          produce[d->second] = true;
          work.push_back(d->second);
        }
    }
    size_t np = 0;
    std::set<const Var*> carries;
    for (const auto& ia : f.iter_args) carries.insert(ia.get());
    for (size_t i = 0; i < n; ++i) {
      if (!produce[i]) continue;
      ++np;
      for (const auto& [v, cnt] : uses[i])
        if (carries.count(v)) return nullptr;  // the produce part must not depend on a carried value
    }
    if (np == n) return nullptr;
    // What the consume part reads of the produce part must be scalar arithmetic it can redo.
    std::vector<bool> consume(n);
    for (size_t i = 0; i < n; ++i) consume[i] = !produce[i];
    for (size_t i = 0; i < n; ++i) {
      if (produce[i]) continue;
      for (const auto& [v, cnt] : uses[i]) {
        auto d = def.find(v);
        if (d == def.end() || !produce[d->second]) continue;
        if (!recomputable(body, def, d->second, consume)) return nullptr;
      }
    }
    // The depth: up to max(2, F - 1) and the ring's run-ahead, dividing the trip with two groups.
    int64_t want = std::max<int64_t>(2, f.stage - 1);
    if (ring_ > 0) want = std::min(want, std::max<int64_t>(1, ring_ - 1));
    int64_t D = 1;
    for (int64_t d = want; d >= 1; --d)
      if (trip % d == 0 && trip >= 2 * d) {
        D = d;
        break;
      }
    const Span& sp = f.span;
    const auto* lt = as_scalar(f.loop_var->type);
    const DataType dt = lt ? lt->dtype : DataType::INDEX;
    auto idx = [&](int64_t v) { return make_int(v, sp, dt); };
    auto offset = [&](const ExprPtr& k, int64_t by) -> ExprPtr {
      if (by == 0) return k;
      return std::make_shared<Binary>(by > 0 ? BinOp::Add : BinOp::Sub, k, idx(by > 0 ? by : -by), scalar_type(dt), sp);
    };
    // One copy of a part with the loop variable at `index` (and the carries at `carried`), fresh
    // Vars; returns the copy's yielded values (consume part only).
    auto part = [&](const std::vector<bool>& which, const ExprPtr& index, const std::vector<ExprPtr>& carried,
                    std::vector<StmtPtr>& out) {
      FreshCloner fc;
      fc.var_map[f.loop_var.get()] = index;
      for (size_t j = 0; j < f.iter_args.size() && j < carried.size(); ++j) fc.var_map[f.iter_args[j].get()] = carried[j];
      for (size_t i = 0; i < n; ++i)
        if (which[i])
          for (const auto& c : flatten_body(fc.mutate(body[i]))) out.push_back(c);
      std::vector<ExprPtr> next;
      for (const auto& y : yields) next.push_back(fc.mutate(y));
      return next;
    };
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> inits;
    for (const auto& ia : f.iter_args) inits.push_back(ia->init);
    {
      std::vector<std::vector<StmtPtr>> parts(static_cast<size_t>(D));
      for (int64_t i = 0; i < D; ++i) part(produce, idx(a + i * step), {}, parts[size_t(i)]);
      std::vector<StmtPtr> group = loads_first(parts);
      if (!fits(group, make_body(group, sp))) group = in_order(parts);
      out.insert(out.end(), group.begin(), group.end());
    }
    // The steady loop.
    auto k = copy_var_with_type(*f.loop_var, f.loop_var->type);
    std::vector<IterArgPtr> ias;
    std::vector<ExprPtr> cur;
    for (const auto& ia : f.iter_args) {
      ias.push_back(std::make_shared<IterArg>(ia->name, ia->type, ia->init, ia->span));
      cur.push_back(ias.back());
    }
    std::vector<std::vector<StmtPtr>> sends(static_cast<size_t>(D));
    for (int64_t i = 0; i < D; ++i) part(produce, offset(k, i * step), {}, sends[size_t(i)]);
    std::vector<StmtPtr> receives;
    for (int64_t i = 0; i < D; ++i) cur = part(consume, offset(k, -(D - i) * step), cur, receives);
    std::vector<StmtPtr> steady = loads_first(sends);
    steady.insert(steady.end(), receives.begin(), receives.end());
    SpaceBytes carried;  // tiles the loop carries stay live through its body
    for (const auto& ia : f.iter_args)
      if (const auto* t = as_tile(ia->type); t && t->space) carried[*t->space] += byte_size(*t).value_or(0);
    if (!fits(steady, make_body(steady, sp), carried)) {
      steady = in_order(sends);
      steady.insert(steady.end(), receives.begin(), receives.end());
      const auto& [space, need, room] = tightest_;
      sink_.warning("W503", f.span,
                    fmt::format("pl.pipeline(stage={}): the {} sends that run ahead share their buffers: with a buffer "
                                "each their tiles need {} bytes of {} and {} are free around the loop, so each send's "
                                "loads wait for the previous send's compute",
                                f.stage, D, need, to_string(space), room),
                    fmt::format("shrink the tiles a send loads, or write stage={}", D));
    }
    if (!ias.empty()) steady.push_back(std::make_shared<YieldStmt>(cur, sp));
    std::vector<VarPtr> results;
    for (const auto& rv : f.return_vars) results.push_back(copy_var_with_type(*rv, rv->type, rv->name + "_swp"));
    auto loop = std::make_shared<ForStmt>(k, idx(a + D * step), idx(a + trip * step), idx(D * step), ias,
                                          make_body(std::move(steady), sp), results, ForKind::Sequential, sp, 0);
    out.push_back(with_comments(loop, f));
    // The epilogue: the last D consume parts.
    cur.clear();
    for (const auto& r : results) cur.push_back(r);
    if (results.empty()) cur = inits;
    for (int64_t i = 0; i < D; ++i) cur = part(consume, idx(a + (trip - D + i) * step), cur, out);
    for (size_t j = 0; j < f.return_vars.size() && j < cur.size(); ++j)
      out.push_back(std::make_shared<AssignStmt>(f.return_vars[j], cur[j], sp));
    return make_body(std::move(out), sp);
  }

  // The sending parts of one group in order.
  static std::vector<StmtPtr> in_order(const std::vector<std::vector<StmtPtr>>& parts) {
    std::vector<StmtPtr> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  }

  // The sending parts of one group with their loads first: each part's loads and the scalar
  // arithmetic they need, in part order, then the rest of each part in order. The parts are
  // copies of one another with fresh Vars, so a part's loads depend on nothing of another part.
  // In order when a part writes memory (a store, an in-place instruction): a later part's load
  // could read it.
  static std::vector<StmtPtr> loads_first(const std::vector<std::vector<StmtPtr>>& parts) {
    if (parts.size() < 2) return in_order(parts);
    std::vector<StmtPtr> head, tail;
    for (const auto& p : parts) {
      std::unordered_set<const Var*> bound, early;  // bound by the part; by its early statements
      for (const auto& st : p) {
        if (writes_memory(st)) return in_order(parts);
        const auto* a = as<AssignStmt>(st);
        bool move = is_load(st) || is_scalar_math(st);
        if (move) {
          std::unordered_map<const Var*, int> u;
          collect_uses(st, u);
          for (const auto& [v, n] : u)
            if (bound.count(v) && !early.count(v)) move = false;
        }
        (move ? head : tail).push_back(st);
        if (a) {
          bound.insert(a->var.get());
          if (move) early.insert(a->var.get());
        }
      }
    }
    if (tail.empty() || head.empty()) return in_order(parts);
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  }

  // Whether `stmts` (the statements of `body`) keep no more tiles live than the on-chip memories
  // hold, with the tiles they read from outside and those the loop carries; else the tightest
  // space in tightest_.
  bool fits(const std::vector<StmtPtr>& stmts, const StmtPtr& body, const SpaceBytes& carried = {}) {
    const SpaceBytes peak = peak_tile_bytes(stmts);
    SpaceBytes outside = outside_tile_bytes(body, tile_defs_);
    for (const auto& [space, bytes] : carried) outside[space] += bytes;
    for (const auto& [space, need] : peak) {
      const int64_t room = std::max<int64_t>(0, soc_.capacity(space) - outside[space]);
      if (need > room) {
        tightest_ = {space, need, room};
        return false;
      }
    }
    return true;
  }

  // Whether statement `i` and what it reads in the body are scalar arithmetic (no calls): then
  // they are also put in the consume part (`consume`), which recomputes them.
  static bool recomputable(const std::vector<StmtPtr>& body, const std::unordered_map<const Var*, size_t>& def,
                           size_t i, std::vector<bool>& consume) {
    const auto* s = as<AssignStmt>(body[i]);
    if (!s || !as_scalar(s->var->type) || as<Call>(s->value)) return false;
    if (consume[i]) return true;
    consume[i] = true;
    std::unordered_map<const Var*, int> u;
    collect_uses(s->value, u);
    for (const auto& [v, cnt] : u)
      if (auto d = def.find(v); d != def.end() && !recomputable(body, def, d->second, consume)) return false;
    return true;
  }

  int64_t ring_;
  const SocInfo& soc_;
  DiagnosticSink& sink_;
  TileDefs tile_defs_;  // every tile binding of the function
  std::tuple<MemorySpace, int64_t, int64_t> tightest_{};          // (space, bytes needed, room)
};

}  // namespace

Pass skew_cross_core_pipeline_pass() {
  return Pass{"SkewCrossCorePipeline",
              "In a mixed kernel's half, a pl.pipeline loop whose body sends one tile to the other core and then "
              "receives one runs its sending part D iterations ahead of its receiving part (prologue, steady loop, "
              "epilogue), D up to max(2, F - 1) within the FIFO's depth, the loads of each group of sends first where "
              "their buffers fit; other pipeline loops with crossings run their iterations one after another.",
              {{Property::SSAForm, Property::MixedKernelExpanded}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!f->body || (f->type != FunctionType::AIC && f->type != FunctionType::AIV)) return f;
                  return Skewer(*f, ring_depth(*f), soc_info(ctx.soc), ctx.diagnostics).mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
