// InsertPipeSync (see insert_pipe_sync.h).
//
// Algorithm, per statement list ("block") of a kernel, innermost blocks first:
//  1. Summarise every statement of the block: the (pipe, access) pairs of all tile instructions
//     nested in it (pipe_model.h).
//  2. Forward dependencies: for statements i < j with conflicting accesses on pipes P → C:
//       P == C == V: a bar_v before j unless a barrier or a chain of flags (V→X→V) already
//       orders them;
//       P == C (other pipes): nothing (a pipe runs its queue in order);
//       P != C: nothing if the existing flag pairs of the block already order i before j
//       (transitively, e.g. P→X then X→C); else, if a P→C pair waits between i and j, move its
//       set to just after i (still covers what it covered); else, if j is a loop whose P→C
//       back-edge pair waits at the very top of its body, the set after i takes the place of
//       that pair's priming set; else a new pair: sync_src after i, sync_dst before j. Statements are the block's own (a nested loop / if counts as one
//       statement), so every set and wait runs once per execution of the block: balanced.
//  3. Loop bodies, back-edge dependencies (consumer i of the next iteration, producer j >= i of the
//     previous one): one pair per (P, C) per loop: set after the last producer, wait before the
//     first consumer, a priming set before the loop and a final wait after it. (A nested loop is
//     not its own back-edge consumer: its body handles that; inside an if, a consumer after its
//     producer on the same branch path is already ordered by the if's own syncs.) V→V
//     back-edges get a bar_v.
//  4. Event ids: each pair is live from its first to its last sync in program order (a back-edge
//     pair spans its whole loop); ids EVENT_ID0..7 are coloured greedily per (src, dst).
#include "passes/insert_pipe_sync.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <memory>

#include "ir/op_registry.h"
#include "passes/pipe_model.h"

namespace pypto::passes {

using namespace ir;

namespace {

struct SyncInst {
  Pipe src, dst;
  int event = -1;
};
enum class RefKind : uint8_t { Set, Wait, BarV };
struct SyncRef {
  RefKind kind;
  int inst;  // -1 for BarV
  Span span;
};

struct PlanBlock;
struct PlanStmt {
  StmtPtr stmt;
  // Emitted before the statement: waits, barriers, loop primes; after it: loop finals, sets.
  std::vector<SyncRef> waits, bars, primes, finals, sets;
  std::vector<std::unique_ptr<PlanBlock>> children;  // for/while: body; if: then, else; scope: body
};
struct PlanBlock {
  std::vector<PlanStmt> stmts;
  Span span;
};

struct PipedAccess {
  Pipe pipe;
  MemAccess acc;
  int ord;                // pre-order position of the instruction inside its statement
  std::vector<int> path;  // if-branches (ids) enclosing the instruction inside its statement
};

// Can two instructions of one statement run in the same execution of it (one branch path is a
// prefix of the other)?
bool same_path(const PipedAccess& a, const PipedAccess& b) {
  const size_t n = std::min(a.path.size(), b.path.size());
  return std::equal(a.path.begin(), a.path.begin() + n, b.path.begin());
}

bool is_loop(const StmtPtr& s) { return as<ForStmt>(s) || as<WhileStmt>(s); }

class Planner {
 public:
  explicit Planner(const Function& f) : model_(f) {}
  std::vector<SyncInst> insts;

  // Plans one block; for a loop body, the ids of its back-edge pairs go to `back_out`.
  std::unique_ptr<PlanBlock> plan(const StmtPtr& body, std::vector<int>* back_out) {
    auto blk = std::make_unique<PlanBlock>();
    blk->span = body ? body->span : Span{};
    const auto stmts = flatten_body(body);
    for (const auto& s : stmts) {
      PlanStmt ps;
      ps.stmt = s;
      std::vector<int> back;
      if (const auto* f = as<ForStmt>(s)) {
        ps.children.push_back(plan(f->body, &back));
      } else if (const auto* w = as<WhileStmt>(s)) {
        ps.children.push_back(plan(w->body, &back));
      } else if (const auto* i = as<IfStmt>(s)) {
        ps.children.push_back(plan(i->then_body, nullptr));
        if (i->else_body) ps.children.push_back(plan(i->else_body, nullptr));
      } else if (const auto* sc = as<ScopeStmt>(s)) {
        ps.children.push_back(plan(sc->body, nullptr));
      }
      for (int id : back) {
        ps.primes.push_back({RefKind::Set, id, s->span});
        ps.finals.push_back({RefKind::Wait, id, s->span});
      }
      blk->stmts.push_back(std::move(ps));
    }
    std::vector<std::vector<PipedAccess>> sum(stmts.size());
    for (size_t i = 0; i < stmts.size(); ++i) {
      ord_ = 0;
      path_.clear();
      summarize(stmts[i], sum[i]);
    }
    forward(*blk, sum);
    if (back_out) backward(*blk, sum, *back_out);
    return blk;
  }

 private:
  struct Fwd {
    int inst;
    int set_after;   // statement index the set follows
    int wait_before; // statement index the wait precedes
    bool prime = false;  // a loop's back-edge pair: its wait is the loop's top wait (no own wait)
  };

  // The back-edge pair (P -> C) of the loop statement `ps` whose top wait precedes the whole body
  // and whose priming set is still in place, or -1.
  int takeover_prime(const PlanStmt& ps, Pipe P, Pipe C) const {
    for (const auto& r : ps.primes)
      if (insts[r.inst].src == P && insts[r.inst].dst == C && top_wait_.count(r.inst)) return r.inst;
    return -1;
  }

  void summarize(const StmtPtr& s, std::vector<PipedAccess>& out) {
    if (!s) return;
    if (const auto* f = as<ForStmt>(s)) return summarize_body(f->body, out);
    if (const auto* w = as<WhileStmt>(s)) return summarize_body(w->body, out);
    if (const auto* i = as<IfStmt>(s)) {
      for (const StmtPtr& arm : {i->then_body, i->else_body}) {
        path_.push_back(next_branch_++);
        summarize_body(arm, out);
        path_.pop_back();
      }
      return;
    }
    if (const auto* sc = as<ScopeStmt>(s)) return summarize_body(sc->body, out);
    if (as<SeqStmts>(s)) return summarize_body(s, out);
    const InstrInfo info = model_.classify(*s);
    if (info.pipe == Pipe::None) return;
    const int ord = ord_++;
    for (const auto& a : info.accesses) out.push_back({info.pipe, a, ord, path_});
  }
  void summarize_body(const StmtPtr& body, std::vector<PipedAccess>& out) {
    if (!body) return;
    for (const auto& s : flatten_body(body)) summarize(s, out);
  }

  int new_inst(Pipe src, Pipe dst) {
    insts.push_back({src, dst, -1});
    return static_cast<int>(insts.size()) - 1;
  }

  // Is an instruction of pipe P in statement i ordered before pipe C's statement j by the
  // forward pairs? Positions are doubled gaps: the gap after statement s is s; within a gap the
  // sets (after s) precede the waits (before s+1).
  bool ordered(int i, Pipe P, int j, Pipe C, const std::vector<Fwd>& fwd) const {
    std::array<int, kNumPipes> best;
    best.fill(1 << 30);
    std::vector<std::pair<Pipe, int>> work{{P, 2 * i - 1}};
    best[int(P)] = 2 * i - 1;
    while (!work.empty()) {
      auto [x, q] = work.back();
      work.pop_back();
      for (const auto& f : fwd) {
        const auto& in = insts[f.inst];
        if (in.src != x || 2 * f.set_after <= q) continue;
        const int nq = 2 * (f.wait_before - 1);
        if (in.dst == C && f.wait_before <= j) return true;
        if (nq < best[int(in.dst)]) {
          best[int(in.dst)] = nq;
          work.emplace_back(in.dst, nq);
        }
      }
    }
    return false;
  }

  void forward(PlanBlock& blk, const std::vector<std::vector<PipedAccess>>& sum) {
    std::vector<Fwd> fwd;
    std::vector<int> bars;  // statement indices with a bar_v before them
    auto bar_between = [&](int i, int j) {
      for (int b : bars)
        if (b > i && b <= j) return true;
      return false;
    };
    const int n = static_cast<int>(sum.size());
    for (int j = 0; j < n; ++j) {
      // Cross-pipe dependencies first (nearest producer first), then vector-vector ones, which
      // the flag pairs just placed may already order (V -> X -> V).
      for (int pass = 0; pass < 2; ++pass) {
        for (int i = j - 1; i >= 0; --i) {
          for (const auto& a : sum[i]) {
            for (const auto& b : sum[j]) {
              if (!conflicts(a.acc, b.acc)) continue;
              const Pipe P = a.pipe, C = b.pipe;
              if (P == C) {
                if (pass == 1 && P == Pipe::V && !bar_between(i, j) && !ordered(i, P, j, C, fwd)) bars.push_back(j);
                continue;
              }
              if (pass == 1 || ordered(i, P, j, C, fwd)) continue;
              bool merged = false;
              for (auto& f : fwd) {
                const auto& in = insts[f.inst];
                if (in.src == P && in.dst == C && f.set_after < i && f.wait_before > i && f.wait_before <= j) {
                  f.set_after = i;
                  merged = true;
                  break;
                }
              }
              if (merged) continue;
              // A loop consumer whose back-edge pair (P -> C) waits at the top of the body: the
              // set after i can replace that pair's priming set (one pair fewer).
              if (const int b = takeover_prime(blk.stmts[j], P, C); b >= 0) {
                auto& primes = blk.stmts[j].primes;
                primes.erase(std::find_if(primes.begin(), primes.end(), [&](const SyncRef& r) { return r.inst == b; }));
                fwd.push_back({b, i, j, true});
                continue;
              }
              fwd.push_back({new_inst(P, C), i, j});
            }
          }
        }
      }
    }
    for (const auto& f : fwd) {
      blk.stmts[f.set_after].sets.push_back({RefKind::Set, f.inst, blk.stmts[f.set_after].stmt->span});
      if (!f.prime)
        blk.stmts[f.wait_before].waits.push_back({RefKind::Wait, f.inst, blk.stmts[f.wait_before].stmt->span});
    }
    std::sort(bars.begin(), bars.end());
    bars.erase(std::unique(bars.begin(), bars.end()), bars.end());
    for (int b : bars) blk.stmts[b].bars.push_back({RefKind::BarV, -1, blk.stmts[b].stmt->span});
    fwd_bars_ = std::move(bars);
  }

  void backward(PlanBlock& blk, const std::vector<std::vector<PipedAccess>>& sum, std::vector<int>& out) {
    struct Back {
      int inst, set_after, wait_before;
    };
    std::vector<Back> back;
    std::vector<int> back_bars;  // statements with a bar_v after them
    const int n = static_cast<int>(sum.size());
    auto v_ordered = [&](int i, int j) {  // a barrier after producer j or before consumer i
      for (int b : fwd_bars_)
        if (b > j || b <= i) return true;
      for (int b : back_bars)
        if (b >= j || b < i) return true;
      return false;
    };
    for (int i = 0; i < n; ++i) {
      for (int j = i; j < n; ++j) {
        if (i == j && is_loop(blk.stmts[i].stmt)) continue;
        for (const auto& a : sum[j]) {
          for (const auto& b : sum[i]) {
            if (!conflicts(a.acc, b.acc)) continue;
            // Inside one statement, a consumer after its producer on the same branch path is
            // ordered in every iteration by that statement's own forward syncs.
            if (i == j && b.ord > a.ord && same_path(a, b)) continue;
            const Pipe P = a.pipe, C = b.pipe;
            if (P == C) {
              if (P == Pipe::V && !v_ordered(i, j)) back_bars.push_back(j);
              continue;
            }
            auto it = std::find_if(back.begin(), back.end(), [&](const Back& x) {
              return insts[x.inst].src == P && insts[x.inst].dst == C;
            });
            if (it == back.end()) {
              back.push_back({new_inst(P, C), j, i});
            } else {
              it->set_after = std::max(it->set_after, j);
              it->wait_before = std::min(it->wait_before, i);
            }
          }
        }
      }
    }
    for (auto& b : back) {
      // Hoisting the wait to the top of the body costs nothing when no instruction of the waiting
      // pipe precedes it, and lets a forward pair into the loop stand in for the priming set.
      bool free = true;
      for (int k = 0; k < b.wait_before && free; ++k)
        for (const auto& a : sum[k]) free = free && a.pipe != insts[b.inst].dst;
      if (free) b.wait_before = 0;
      if (b.wait_before == 0) top_wait_.insert(b.inst);
      blk.stmts[b.set_after].sets.push_back({RefKind::Set, b.inst, blk.stmts[b.set_after].stmt->span});
      blk.stmts[b.wait_before].waits.push_back({RefKind::Wait, b.inst, blk.stmts[b.wait_before].stmt->span});
      out.push_back(b.inst);
    }
    std::sort(back_bars.begin(), back_bars.end());
    back_bars.erase(std::unique(back_bars.begin(), back_bars.end()), back_bars.end());
    for (int b : back_bars) blk.stmts[b].finals.push_back({RefKind::BarV, -1, blk.stmts[b].stmt->span});
  }

  PipeModel model_;
  std::set<int> top_wait_;  // back-edge pairs whose wait precedes the whole loop body
  int ord_ = 0, next_branch_ = 0;
  std::vector<int> path_;
  std::vector<int> fwd_bars_;  // bar positions of the block being planned (forward step)
};

// ---- event ids ----

void linearize(const PlanBlock& b, int& pos, std::vector<std::pair<int, int>>& live) {
  auto touch = [&](const SyncRef& r) {
    if (r.inst < 0) return;
    auto& [first, last] = live[r.inst];
    if (first < 0) first = pos;
    last = pos;
    ++pos;
  };
  for (const auto& ps : b.stmts) {
    for (const auto* list : {&ps.waits, &ps.bars, &ps.primes})
      for (const auto& r : *list) touch(r);
    for (const auto& c : ps.children) linearize(*c, pos, live);
    for (const auto* list : {&ps.finals, &ps.sets})
      for (const auto& r : *list) touch(r);
  }
}

void assign_event_ids(const PlanBlock& root, std::vector<SyncInst>& insts, const Function& f) {
  std::vector<std::pair<int, int>> live(insts.size(), {-1, -1});
  int pos = 0;
  linearize(root, pos, live);
  std::vector<int> order(insts.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return live[a].first < live[b].first; });
  std::map<std::pair<Pipe, Pipe>, std::array<int, 8>> busy_until;  // last position per id
  for (int k : order) {
    auto& slots = busy_until.try_emplace({insts[k].src, insts[k].dst}, std::array<int, 8>{-1, -1, -1, -1, -1, -1, -1, -1})
                      .first->second;
    int chosen = -1;
    for (int id = 0; id < 8 && chosen < 0; ++id)
      if (slots[id] < live[k].first) chosen = id;
    if (chosen < 0)
      throw CompileError("E700", f.span,
                         fmt::format("kernel '{}' needs more than 8 simultaneous PIPE_{} -> PIPE_{} event ids",
                                     f.name, pipe_name(insts[k].src), pipe_name(insts[k].dst)),
                         "split the kernel or reduce the number of tiles live across loops");
    slots[chosen] = live[k].second;
    insts[k].event = chosen;
  }
}

// ---- materialisation ----

StmtPtr sync_stmt(const SyncRef& r, const std::vector<SyncInst>& insts) {
  std::shared_ptr<const Call> call;
  if (r.kind == RefKind::BarV) {
    call = make_call("system.bar_v", {}, {}, r.span);
  } else {
    const auto& in = insts[r.inst];
    call = make_call(r.kind == RefKind::Set ? "system.sync_src" : "system.sync_dst", {},
                     {{"set_pipe", EnumLit{"PipeType", std::string(pipe_name(in.src))}},
                      {"wait_pipe", EnumLit{"PipeType", std::string(pipe_name(in.dst))}},
                      {"event_id", int64_t(in.event)}},
                     r.span);
  }
  return std::make_shared<EvalStmt>(call, r.span);
}

StmtPtr build(const PlanBlock& b, const std::vector<SyncInst>& insts) {
  std::vector<StmtPtr> out;
  for (const auto& ps : b.stmts) {
    for (const auto* list : {&ps.waits, &ps.bars, &ps.primes})
      for (const auto& r : *list) out.push_back(sync_stmt(r, insts));
    StmtPtr s = ps.stmt;
    if (!ps.children.empty()) {
      if (const auto* f = as<ForStmt>(s)) {
        auto n = std::make_shared<ForStmt>(*f);
        n->body = build(*ps.children[0], insts);
        s = n;
      } else if (const auto* w = as<WhileStmt>(s)) {
        auto n = std::make_shared<WhileStmt>(*w);
        n->body = build(*ps.children[0], insts);
        s = n;
      } else if (const auto* i = as<IfStmt>(s)) {
        auto n = std::make_shared<IfStmt>(*i);
        n->then_body = build(*ps.children[0], insts);
        if (ps.children.size() > 1) n->else_body = build(*ps.children[1], insts);
        s = n;
      } else if (const auto* sc = as<ScopeStmt>(s)) {
        auto n = std::make_shared<ScopeStmt>(*sc);
        n->body = build(*ps.children[0], insts);
        s = n;
      }
    }
    out.push_back(s);
    for (const auto* list : {&ps.finals, &ps.sets})
      for (const auto& r : *list) out.push_back(sync_stmt(r, insts));
  }
  return make_body(std::move(out), b.span);
}

// Set / wait flags written by the user (their event ids would collide with ours).
bool has_sync_ops(const StmtPtr& s) {
  if (!s) return false;
  for (const auto& st : flatten_body(s)) {
    const auto k = PipeModel::sync_of(*st).kind;
    if (k == SyncKind::Set || k == SyncKind::Wait) return true;
    if (const auto* f = as<ForStmt>(st); f && has_sync_ops(f->body)) return true;
    if (const auto* w = as<WhileStmt>(st); w && has_sync_ops(w->body)) return true;
    if (const auto* i = as<IfStmt>(st); i && (has_sync_ops(i->then_body) || has_sync_ops(i->else_body))) return true;
    if (const auto* sc = as<ScopeStmt>(st); sc && has_sync_ops(sc->body)) return true;
  }
  return false;
}

}  // namespace

FunctionPtr insert_pipe_sync(const FunctionPtr& f) {
  if (!f || (f->type != FunctionType::AIV && f->type != FunctionType::AIC) || !f->body) return f;
  if (has_sync_ops(f->body)) return f;
  Planner planner(*f);
  auto root = planner.plan(f->body, nullptr);
  if (planner.insts.empty()) {
    bool any_bar = false;
    std::vector<const PlanBlock*> work{root.get()};
    while (!work.empty() && !any_bar) {
      const PlanBlock* b = work.back();
      work.pop_back();
      for (const auto& ps : b->stmts) {
        if (!ps.bars.empty() || !ps.finals.empty()) any_bar = true;
        for (const auto& c : ps.children) work.push_back(c.get());
      }
    }
    if (!any_bar) return f;
  }
  assign_event_ids(*root, planner.insts, *f);
  return with_body(*f, build(*root, planner.insts));
}

ProgramPtr insert_pipe_sync(const ProgramPtr& p) {
  std::vector<FunctionPtr> fns;
  bool changed = false;
  for (const auto& f : p->functions) {
    fns.push_back(insert_pipe_sync(f));
    changed = changed || fns.back() != f;
  }
  if (!changed) return p;
  return make_program(p->name, std::move(fns), p->dynamic_dims, p->span);
}

Pass insert_pipe_sync_pass() {
  Pass p;
  p.name = "InsertPipeSync";
  p.description =
      "Inserts set_flag / wait_flag pairs (system.sync_src / sync_dst) for every cross-pipe "
      "dependency inside AIV / AIC kernels (overlapping planned addresses, GM store->load), "
      "pipe_barrier(PIPE_V) between dependent vector ops, and primed back-edge flags for "
      "buffers reused across loop iterations; event ids EVENT_ID0..7 per pipe pair.";
  p.properties.required = {Property::AllocatedMemoryAddr};
  p.properties.produced = {Property::PipeSyncInserted};
  // The IR verifier has no rule for PipeSyncInserted (the pipe model lives here), so the pass
  // checks its own output with the static checker.
  p.fn = [](const ProgramPtr& prog, PassContext& ctx) {
    ProgramPtr out = insert_pipe_sync(prog);
    if (ctx.verify && out != prog) {
      for (const auto& f : out->functions) {
        if (f->type != FunctionType::AIV && f->type != FunctionType::AIC) continue;
        if (prog->find(f->name) == f) continue;  // left as written
        for (const auto& d : check_pipe_sync(*f))
          if (d.severity == Severity::Error)
            throw InternalError("InsertPipeSync", fmt::format("kernel '{}': {}", f->name, d.message), d.span);
      }
    }
    return out;
  };
  return p;
}

}  // namespace pypto::passes
