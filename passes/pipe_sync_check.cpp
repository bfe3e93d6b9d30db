// check_pipe_sync: the static stand-in for hardware (CPU runs execute every instruction in
// program order, so they cannot see a missing or unbalanced flag). It walks the paths of a kernel
// (both arms of every if; every loop run 0, 1 and 2 times, so back-edges are exercised) with a
// vector-clock model of the pipes:
//   vc[X][P]  = the newest instruction of pipe P known to be complete before pipe X's next one;
//   set_flag(P, C, e) snapshots vc[P] plus P's newest instruction; wait_flag(P, C, e) merges the
//   snapshot into vc[C]; pipe_barrier(PIPE_V) completes V for V; pipe_barrier(PIPE_ALL) all.
// A dependency (conflicting accesses, pipe_model.h) from p to c is ordered when c's pipe is p's
// (in-order queue; except V, which needs a barrier) or vc[pipe(c)][pipe(p)] >= p.
#include <array>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "ir/op_registry.h"
#include "passes/insert_pipe_sync.h"
#include "passes/pipe_model.h"

namespace pypto::passes {

using namespace ir;

namespace {

using Clock = std::array<int64_t, kNumPipes>;
constexpr size_t kMaxStates = 256;

// One tile instruction of the kernel (its facts, shared by every path state) ...
struct Instr {
  int id;
  Pipe pipe;
  std::vector<MemAccess> acc;
  const Stmt* stmt;
};

// ... and one run of it on a path: the newest run of each instruction is kept.
struct Rec {
  const Instr* ins;
  int64_t seq;
};

struct Pending {
  const Stmt* stmt;
  Clock clock;
};

struct State {
  std::map<std::tuple<int, int, int>, Pending> pending;
  std::array<Clock, kNumPipes> vc;
  Clock last;
  std::vector<Rec> recs;
  int64_t seq = 0;
  State() {
    for (auto& c : vc) c.fill(-1);
    last.fill(-1);
  }
};

std::string flag_text(std::string_view fn, const SyncInfo& s) {
  return fmt::format("{}(PIPE_{}, PIPE_{}, EVENT_ID{})", fn, pipe_name(s.src), pipe_name(s.dst), s.event);
}

std::string op_text(const Stmt* s) {
  const Call* c = s ? stmt_op_call(*s) : nullptr;
  std::string n = c ? "pl." + c->op->name : std::string("instruction");
  if (s && s->span.valid()) n += fmt::format(" (line {})", s->span.line);
  return n;
}

class Checker {
 public:
  explicit Checker(const Function& f) : model_(f) {}

  std::vector<Diagnostic> run(const Function& f) {
    collect(f.body);
    if (instrs_.size() <= kDenseLimit) dense_deps_.assign(instrs_.size() * instrs_.size(), kUnknown);
    std::vector<State> states(1);
    states = exec(f.body, std::move(states));
    for (const auto& st : states)
      for (const auto& [key, p] : st.pending) {
        SyncInfo s{SyncKind::Set, Pipe(std::get<0>(key)), Pipe(std::get<1>(key)), std::get<2>(key)};
        report(p.stmt->span, flag_text("set_flag", s) + " is never waited for on some path",
               "every set_flag needs exactly one wait_flag on every path");
      }
    if (truncated_)
      diags_.push_back({Severity::Note, "PipeSync", "path exploration truncated; the check is partial",
                        f.span, "", {}});
    return std::move(diags_);
  }

 private:
  void report(const Span& sp, std::string msg, std::string hint = {}) {
    if (!seen_.insert({sp.to_string(), msg}).second) return;
    diags_.push_back({Severity::Error, "PipeSync", std::move(msg), sp, std::move(hint), {}});
  }

  std::vector<State> exec(const StmtPtr& body, std::vector<State> in) {
    if (!body) return in;
    for (const auto& s : flatten_body(body)) {
      in = exec_stmt(s, std::move(in));
      if (in.size() > kMaxStates) {
        in.resize(kMaxStates);
        truncated_ = true;
      }
    }
    return in;
  }

  std::vector<State> exec_stmt(const StmtPtr& s, std::vector<State> in) {
    auto concat = [](std::vector<State>& a, std::vector<State> b) {
      for (auto& x : b) a.push_back(std::move(x));
    };
    auto loop = [&](const StmtPtr& body) {
      std::vector<State> out = in;                 // 0 iterations
      std::vector<State> once = exec(body, in);    // 1
      std::vector<State> twice = exec(body, once); // 2
      concat(out, std::move(once));
      concat(out, std::move(twice));
      return out;
    };
    if (const auto* f = as<ForStmt>(s)) return loop(f->body);
    if (const auto* w = as<WhileStmt>(s)) return loop(w->body);
    if (const auto* i = as<IfStmt>(s)) {
      std::vector<State> out = exec(i->then_body, in);
      concat(out, i->else_body ? exec(i->else_body, std::move(in)) : std::move(in));
      return out;
    }
    if (const auto* sc = as<ScopeStmt>(s)) return exec(sc->body, std::move(in));
    if (as<SeqStmts>(s)) return exec(s, std::move(in));
    const SyncInfo sync = PipeModel::sync_of(*s);
    if (sync.kind != SyncKind::None) {
      for (auto& st : in) apply_sync(st, sync, *s);
      return in;
    }
    const Instr* ins = instr(*s);
    if (!ins) return in;
    for (auto& st : in) apply_instr(st, *ins);
    return in;
  }

  // Gives every tile instruction of the kernel its facts and a dense id, once, before the walk.
  void collect(const StmtPtr& body) {
    if (!body) return;
    for (const auto& s : flatten_body(body)) {
      if (const auto* f = as<ForStmt>(s)) collect(f->body);
      else if (const auto* w = as<WhileStmt>(s)) collect(w->body);
      else if (const auto* i = as<IfStmt>(s)) collect(i->then_body), collect(i->else_body);
      else if (const auto* sc = as<ScopeStmt>(s)) collect(sc->body);
      else if (as<SeqStmts>(s)) collect(s);
      else if (PipeModel::sync_of(*s).kind == SyncKind::None && !instrs_.count(s.get())) {
        InstrInfo info = model_.classify(*s);
        if (info.pipe == Pipe::None) continue;
        auto ins = std::make_unique<Instr>(Instr{int(instrs_.size()), info.pipe, std::move(info.accesses), s.get()});
        instrs_.emplace(s.get(), std::move(ins));
      }
    }
  }

  const Instr* instr(const Stmt& s) const {
    auto it = instrs_.find(&s);
    return it == instrs_.end() ? nullptr : it->second.get();
  }

  // Whether a run of `earlier` and a later run of `later` conflict (bit 0), and whether as a
  // read after a write (bit 1): the same on every path, so computed once per pair (kUnknown
  // until then).
  // The table is dense (n² bytes) for kernels of up to kDenseLimit instructions, a hash map of
  // the pairs looked up above that.
  static constexpr uint8_t kUnknown = 0xff;
  static constexpr size_t kDenseLimit = 2048;
  uint8_t dependency(const Instr& earlier, const Instr& later) {
    const size_t key = size_t(earlier.id) * instrs_.size() + size_t(later.id);
    uint8_t& d = dense_deps_.empty() ? sparse_deps_.try_emplace(key, kUnknown).first->second : dense_deps_[key];
    if (d == kUnknown) {
      d = 0;
      for (const auto& a : earlier.acc)
        for (const auto& b : later.acc)
          if (conflicts(a, b)) d |= uint8_t(1 | ((a.write && !b.write) ? 2 : 0));
    }
    return d;
  }

  void apply_sync(State& st, const SyncInfo& s, const Stmt& stmt) {
    switch (s.kind) {
      case SyncKind::BarrierV: st.vc[int(Pipe::V)][int(Pipe::V)] = st.last[int(Pipe::V)]; return;
      case SyncKind::BarrierAll:
        for (auto& c : st.vc) c = st.last;
        return;
      case SyncKind::Set: {
        if (s.src == Pipe::None || s.dst == Pipe::None) return report(stmt.span, "set_flag with an unknown pipe");
        const auto key = std::make_tuple(int(s.src), int(s.dst), s.event);
        if (st.pending.count(key))
          report(stmt.span, flag_text("set_flag", s) + " while the same event is still set (no wait_flag in between)",
                 "use another event id or wait first");
        Clock c = st.vc[int(s.src)];
        c[int(s.src)] = st.last[int(s.src)];
        st.pending[key] = {&stmt, c};
        return;
      }
      case SyncKind::Wait: {
        if (s.src == Pipe::None || s.dst == Pipe::None) return report(stmt.span, "wait_flag with an unknown pipe");
        const auto key = std::make_tuple(int(s.src), int(s.dst), s.event);
        auto it = st.pending.find(key);
        if (it == st.pending.end()) {
          report(stmt.span, flag_text("wait_flag", s) + " without a matching set_flag on some path",
                 "every wait_flag must be preceded by exactly one set_flag of the same event");
          return;
        }
        auto& vc = st.vc[int(s.dst)];
        for (int p = 0; p < kNumPipes; ++p) vc[p] = std::max(vc[p], it->second.clock[p]);
        st.pending.erase(it);
        return;
      }
      case SyncKind::None: return;
    }
  }

  void apply_instr(State& st, const Instr& ins) {
    const Pipe C = ins.pipe;
    for (const auto& r : st.recs) {
      const uint8_t dep = dependency(*r.ins, ins);
      if (!dep) continue;
      const Pipe P = r.ins->pipe;
      if (P == C && C != Pipe::V) continue;
      if (st.vc[int(C)][int(P)] >= r.seq) continue;
      report(ins.stmt->span,
             fmt::format("unsynchronised {} dependency: {} on PIPE_{} after {} on PIPE_{}",
                         (dep & 2) ? "read-after-write" : "write-after-read/write", op_text(ins.stmt), pipe_name(C),
                         op_text(r.ins->stmt), pipe_name(P)),
             P == C ? "insert pipe_barrier(PIPE_V) between them"
                    : fmt::format("insert set_flag/wait_flag(PIPE_{}, PIPE_{}, ...) between them", pipe_name(P),
                                  pipe_name(C)));
    }
    const int64_t seq = ++st.seq;
    st.last[int(C)] = seq;
    // A later run of the same instruction (next loop iteration) subsumes the earlier one: same
    // pipe and bytes, newer sequence number (clocks are monotonic), so keep one record each.
    for (auto& r : st.recs)
      if (r.ins == &ins) {
        r.seq = seq;
        return;
      }
    st.recs.push_back(Rec{&ins, seq});
  }

  PipeModel model_;
  std::unordered_map<const Stmt*, std::unique_ptr<Instr>> instrs_;
  std::vector<uint8_t> dense_deps_;                 // [earlier id * instruction count + later id]
  std::unordered_map<size_t, uint8_t> sparse_deps_;  // the same key, for large kernels
  std::vector<Diagnostic> diags_;
  std::set<std::pair<std::string, std::string>> seen_;
  bool truncated_ = false;
};

}  // namespace

std::vector<Diagnostic> check_pipe_sync(const Function& f) {
  if (!f.body) return {};
  Checker c(f);
  return c.run(f);
}

}  // namespace pypto::passes
