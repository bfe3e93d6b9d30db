// One half of a mixed kernel made a kernel of its own: repair, dead code, slot releases
// (mixed_kernel_halves.h).
#include "passes/mixed_kernel_halves.h"

#include <fmt/format.h>

#include <unordered_set>

#include "ir/op_registry.h"
#include "ir/visitor.h"
#include "passes/pass_util.h"

namespace pypto::passes {

using namespace ir;

namespace {

using Defined = std::unordered_set<const Var*>;

const OpDef* op_named(const char* n) { return OpRegistry::instance().find(n); }
const OpDef* pop_from_aic() {
  static const OpDef* d = op_named("tile.tpop_from_aic");
  return d;
}
const OpDef* pop_from_aiv() {
  static const OpDef* d = op_named("tile.tpop_from_aiv");
  return d;
}
// 0: a pop from the AIC (C2V, on the vector side), 1: from the AIV (V2C, on the cube side), -1: none.
int pop_direction(const ExprPtr& value) {
  const auto* c = as<Call>(value);
  if (!c || !c->op) return -1;
  if (c->op == pop_from_aic()) return 0;
  if (c->op == pop_from_aiv()) return 1;
  return -1;
}

std::vector<StmtPtr> stmts_of(const StmtPtr& s) { return s ? flatten_body(s) : std::vector<StmtPtr>{}; }

std::unordered_map<const Var*, int> uses_of(const ExprPtr& e) {
  std::unordered_map<const Var*, int> u;
  if (e) collect_uses(e, u);
  return u;
}

// The Vars the kernel binds somewhere (assignments, loop variables and carries, if results): a
// Var bound nowhere in it — a parameter, a module-level dynamic dimension — is defined on both sides.
Defined bound_in(const StmtPtr& body) {
  struct B : IRVisitor {
    Defined out;
    void visit_assign(const AssignStmt& s) override {
      out.insert(s.var.get());
      IRVisitor::visit_assign(s);
    }
    void visit_for(const ForStmt& s) override {
      out.insert(s.loop_var.get());
      for (const auto& ia : s.iter_args) out.insert(ia.get());
      for (const auto& v : s.return_vars) out.insert(v.get());
      IRVisitor::visit_for(s);
    }
    void visit_while(const WhileStmt& s) override {
      for (const auto& ia : s.iter_args) out.insert(ia.get());
      for (const auto& v : s.return_vars) out.insert(v.get());
      IRVisitor::visit_while(s);
    }
    void visit_if(const IfStmt& s) override {
      for (const auto& v : s.return_vars) out.insert(v.get());
      IRVisitor::visit_if(s);
    }
  } b;
  if (body) b.visit(body);
  return b.out;
}

std::shared_ptr<const YieldStmt> trailing_yield(const std::vector<StmtPtr>& b) {
  if (b.empty()) return nullptr;
  return std::dynamic_pointer_cast<const YieldStmt>(b.back());
}

// Rebuilds a block's trailing yield keeping the values at `keep`.
std::vector<StmtPtr> filter_yield(std::vector<StmtPtr> b, const std::vector<bool>& keep) {
  auto y = trailing_yield(b);
  if (!y) return b;
  std::vector<ExprPtr> vals;
  for (size_t i = 0; i < y->values.size(); ++i)
    if (i >= keep.size() || keep[i]) vals.push_back(y->values[i]);
  if (vals.empty()) b.pop_back();  // no carry left: no yield
  else b.back() = std::make_shared<YieldStmt>(std::move(vals), y->span);
  return b;
}

template <typename T>
std::vector<T> keep_where(const std::vector<T>& v, const std::vector<bool>& keep) {
  std::vector<T> out;
  for (size_t i = 0; i < v.size(); ++i)
    if (keep[i]) out.push_back(v[i]);
  return out;
}

// ---------------------------------------------------------------- repair

class Repairer {
 public:
  Repairer(const HalfContext& cx, std::vector<size_t>& kept, Defined bound)
      : cx_(cx), kept_(kept), bound_(std::move(bound)) {}

  std::vector<StmtPtr> block(const std::vector<StmtPtr>& in, Defined& d) {
    std::vector<StmtPtr> out;
    for (const auto& s : in) {
      switch (s->kind) {
        case NodeKind::AssignStmt: {
          const auto& a = static_cast<const AssignStmt&>(*s);
          if (const Var* m = missing(uses_of(a.value), d)) {
            if (pure_value(a.value)) continue;
            fail(*m, s->span);
          }
          out.push_back(s);
          d.insert(a.var.get());
          break;
        }
        case NodeKind::EvalStmt: {
          if (const Var* m = missing(uses_of(static_cast<const EvalStmt&>(*s).expr), d)) fail(*m, s->span);
          out.push_back(s);
          break;
        }
        case NodeKind::ReturnStmt: {
          const auto& r = static_cast<const ReturnStmt&>(*s);
          std::vector<ExprPtr> vals;
          kept_.clear();
          for (size_t i = 0; i < r.values.size(); ++i)
            if (!missing(uses_of(r.values[i]), d)) vals.push_back(r.values[i]), kept_.push_back(i);
          out.push_back(std::make_shared<ReturnStmt>(std::move(vals), r.span));
          break;
        }
        case NodeKind::SeqStmts:
          for (auto& t : block(static_cast<const SeqStmts&>(*s).stmts, d)) out.push_back(t);
          break;
        case NodeKind::ScopeStmt: {
          auto sc = std::make_shared<ScopeStmt>(static_cast<const ScopeStmt&>(*s));
          sc->body = make_body(block(stmts_of(sc->body), d), sc->body ? sc->body->span : s->span);
          out.push_back(sc);
          break;
        }
        case NodeKind::ForStmt: out.push_back(for_stmt(static_cast<const ForStmt&>(*s), d)); break;
        case NodeKind::WhileStmt: out.push_back(while_stmt(static_cast<const WhileStmt&>(*s), d)); break;
        case NodeKind::IfStmt: out.push_back(if_stmt(static_cast<const IfStmt&>(*s), d)); break;
        default: out.push_back(s); break;  // yield (filtered by the loop / if), break, continue
      }
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const Var& v, const Span& at) const {
    throw CompileError("E504", at,
                       fmt::format("in mixed kernel '{}', this {} statement reads '{}', which is computed on the {} side",
                                   cx_.kernel, cx_.side, v.name, cx_.other),
                       "the cube and vector halves exchange tiles only where an Acc tile moves to Vec (or a Vec "
                       "tile to Mat / Left / Right); compute the value on the side that uses it");
  }
  void need(const ExprPtr& e, const Defined& d, const Span& at) const {
    if (const Var* m = missing(uses_of(e), d)) fail(*m, at);
  }

  // Loop carries: keep those whose init and yielded value this side computes, to a fixpoint.
  template <typename Loop, typename Extra>
  std::pair<std::vector<bool>, std::vector<StmtPtr>> carries(const Loop& l, const Defined& d, Extra&& extra) {
    std::vector<bool> keep(l.iter_args.size());
    for (size_t i = 0; i < keep.size(); ++i) keep[i] = !missing(uses_of(l.iter_args[i]->init), d);
    for (;;) {
      Defined inner = d;
      extra(inner);
      for (size_t i = 0; i < keep.size(); ++i)
        if (keep[i]) inner.insert(l.iter_args[i].get());
      auto body = block(stmts_of(l.body), inner);
      bool changed = false;
      if (auto y = trailing_yield(body))
        for (size_t i = 0; i < keep.size() && i < y->values.size(); ++i)
          if (keep[i] && missing(uses_of(y->values[i]), inner)) keep[i] = false, changed = true;
      if (!changed) return {keep, filter_yield(std::move(body), keep)};
    }
  }

  StmtPtr for_stmt(const ForStmt& f, Defined& d) {
    for (const auto& e : {f.start, f.stop, f.step}) need(e, d, f.span);
    auto [keep, body] = carries(f, d, [&](Defined& in) { in.insert(f.loop_var.get()); });
    auto rvs = keep_where(f.return_vars, keep);
    for (const auto& v : rvs) d.insert(v.get());
    return std::make_shared<ForStmt>(f.loop_var, f.start, f.stop, f.step, keep_where(f.iter_args, keep),
                                     make_body(std::move(body), f.body ? f.body->span : f.span), std::move(rvs), f.kind,
                                     f.span, f.stage);
  }

  StmtPtr while_stmt(const WhileStmt& w, Defined& d) {
    auto [keep, body] = carries(w, d, [](Defined&) {});
    Defined inner = d;
    for (size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) inner.insert(w.iter_args[i].get());
    need(w.cond, inner, w.span);
    auto rvs = keep_where(w.return_vars, keep);
    for (const auto& v : rvs) d.insert(v.get());
    return std::make_shared<WhileStmt>(w.cond, keep_where(w.iter_args, keep),
                                       make_body(std::move(body), w.body ? w.body->span : w.span), std::move(rvs), w.span);
  }

  StmtPtr if_stmt(const IfStmt& s, Defined& d) {
    need(s.cond, d, s.span);
    Defined dt = d, de = d;
    auto tb = block(stmts_of(s.then_body), dt);
    auto eb = block(stmts_of(s.else_body), de);
    std::vector<bool> keep(s.return_vars.size(), true);
    auto ty = trailing_yield(tb), ey = trailing_yield(eb);
    for (size_t i = 0; i < keep.size(); ++i) {
      if (ty && i < ty->values.size() && missing(uses_of(ty->values[i]), dt)) keep[i] = false;
      if (ey && i < ey->values.size() && missing(uses_of(ey->values[i]), de)) keep[i] = false;
    }
    auto rvs = keep_where(s.return_vars, keep);
    for (const auto& v : rvs) d.insert(v.get());
    StmtPtr else_body = s.else_body ? make_body(filter_yield(std::move(eb), keep), s.else_body->span) : nullptr;
    return std::make_shared<IfStmt>(s.cond, make_body(filter_yield(std::move(tb), keep), s.then_body->span), else_body,
                                    std::move(rvs), s.span);
  }

  // The first Var of `uses` this side binds but has not computed at this point.
  const Var* missing(const std::unordered_map<const Var*, int>& uses, const Defined& d) const {
    for (const auto& [v, n] : uses)
      if (!d.count(v) && bound_.count(v)) return v;
    return nullptr;
  }

  const HalfContext& cx_;
  std::vector<size_t>& kept_;
  const Defined bound_;
};

// ---------------------------------------------------------------- dead code

class Liveness {
 public:
  Defined live;
  bool changed = false;

  void mark(const ExprPtr& e) {
    for (const auto& [v, n] : uses_of(e)) changed |= live.insert(v).second;
  }
  void walk(const std::vector<StmtPtr>& b) {
    for (const auto& s : b) walk(s);
  }
  void walk(const StmtPtr& s) {
    switch (s->kind) {
      case NodeKind::AssignStmt: {
        const auto& a = static_cast<const AssignStmt&>(*s);
        if (!pure_value(a.value) || live.count(a.var.get())) mark(a.value);
        break;
      }
      case NodeKind::EvalStmt: mark(static_cast<const EvalStmt&>(*s).expr); break;
      case NodeKind::ReturnStmt:
        for (const auto& v : static_cast<const ReturnStmt&>(*s).values) mark(v);
        break;
      case NodeKind::SeqStmts: walk(static_cast<const SeqStmts&>(*s).stmts); break;
      case NodeKind::ScopeStmt: walk(stmts_of(static_cast<const ScopeStmt&>(*s).body)); break;
      case NodeKind::ForStmt: {
        const auto& f = static_cast<const ForStmt&>(*s);
        for (const auto& e : {f.start, f.stop, f.step}) mark(e);
        loop(f.iter_args, f.return_vars, f.body);
        break;
      }
      case NodeKind::WhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        mark(w.cond);
        loop(w.iter_args, w.return_vars, w.body);
        break;
      }
      case NodeKind::IfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        mark(i.cond);
        auto tb = stmts_of(i.then_body), eb = stmts_of(i.else_body);
        auto ty = trailing_yield(tb), ey = trailing_yield(eb);
        for (size_t k = 0; k < i.return_vars.size(); ++k) {
          if (!live.count(i.return_vars[k].get())) continue;
          if (ty && k < ty->values.size()) mark(ty->values[k]);
          if (ey && k < ey->values.size()) mark(ey->values[k]);
        }
        walk(tb);
        walk(eb);
        break;
      }
      default: break;
    }
  }

 private:
  void loop(const std::vector<IterArgPtr>& ias, const std::vector<VarPtr>& rvs, const StmtPtr& body) {
    auto b = stmts_of(body);
    auto y = trailing_yield(b);
    for (size_t k = 0; k < ias.size(); ++k) {
      const bool is_live = live.count(ias[k].get()) || (k < rvs.size() && live.count(rvs[k].get()));
      if (!is_live) continue;
      changed |= live.insert(ias[k].get()).second;
      if (k < rvs.size()) changed |= live.insert(rvs[k].get()).second;
      mark(ias[k]->init);
      if (y && k < y->values.size()) mark(y->values[k]);
    }
    walk(b);
  }
};

bool only_yield(const std::vector<StmtPtr>& b) {
  return b.empty() || (b.size() == 1 && trailing_yield(b));
}

class Sweeper {
 public:
  explicit Sweeper(const Defined& live) : live_(live) {}
  bool removed = false;

  std::vector<StmtPtr> block(const std::vector<StmtPtr>& in) {
    std::vector<StmtPtr> out;
    for (const auto& s : in) {
      switch (s->kind) {
        case NodeKind::AssignStmt: {
          const auto& a = static_cast<const AssignStmt&>(*s);
          if (pure_value(a.value) && !live_.count(a.var.get())) {
            removed = true;
            continue;
          }
          out.push_back(s);
          break;
        }
        case NodeKind::SeqStmts:
          for (auto& t : block(static_cast<const SeqStmts&>(*s).stmts)) out.push_back(t);
          break;
        case NodeKind::ScopeStmt: {
          auto sc = std::make_shared<ScopeStmt>(static_cast<const ScopeStmt&>(*s));
          sc->body = make_body(block(stmts_of(sc->body)), sc->body ? sc->body->span : s->span);
          out.push_back(sc);
          break;
        }
        case NodeKind::ForStmt: {
          const auto& f = static_cast<const ForStmt&>(*s);
          auto keep = carry_keep(f.iter_args);
          auto body = filter_yield(block(stmts_of(f.body)), keep);
          if (only_yield(body) && !any(keep)) {
            removed = true;
            continue;
          }
          removed |= !all(keep);
          out.push_back(std::make_shared<ForStmt>(f.loop_var, f.start, f.stop, f.step, keep_where(f.iter_args, keep),
                                                  make_body(std::move(body), f.body ? f.body->span : f.span),
                                                  keep_where(f.return_vars, keep), f.kind, f.span, f.stage));
          break;
        }
        case NodeKind::WhileStmt: {
          const auto& w = static_cast<const WhileStmt&>(*s);
          auto keep = carry_keep(w.iter_args);
          // The condition reads carries: those stay.
          for (const auto& [v, n] : uses_of(w.cond))
            for (size_t k = 0; k < w.iter_args.size(); ++k)
              if (w.iter_args[k].get() == v) keep[k] = true;
          auto body = filter_yield(block(stmts_of(w.body)), keep);
          if (only_yield(body) && !any(keep)) {
            removed = true;
            continue;
          }
          removed |= !all(keep);
          out.push_back(std::make_shared<WhileStmt>(w.cond, keep_where(w.iter_args, keep),
                                                    make_body(std::move(body), w.body ? w.body->span : w.span),
                                                    keep_where(w.return_vars, keep), w.span));
          break;
        }
        case NodeKind::IfStmt: {
          const auto& i = static_cast<const IfStmt&>(*s);
          std::vector<bool> keep(i.return_vars.size());
          for (size_t k = 0; k < keep.size(); ++k) keep[k] = live_.count(i.return_vars[k].get()) > 0;
          auto tb = filter_yield(block(stmts_of(i.then_body)), keep);
          auto eb = filter_yield(block(stmts_of(i.else_body)), keep);
          if (only_yield(tb) && only_yield(eb) && !any(keep)) {
            removed = true;
            continue;
          }
          removed |= !all(keep);
          StmtPtr else_body = i.else_body ? make_body(std::move(eb), i.else_body->span) : nullptr;
          out.push_back(std::make_shared<IfStmt>(i.cond, make_body(std::move(tb), i.then_body->span), else_body,
                                                 keep_where(i.return_vars, keep), i.span));
          break;
        }
        default: out.push_back(s); break;
      }
    }
    return out;
  }

 private:
  std::vector<bool> carry_keep(const std::vector<IterArgPtr>& ias) const {
    std::vector<bool> keep(ias.size());
    for (size_t k = 0; k < ias.size(); ++k) keep[k] = live_.count(ias[k].get()) > 0;
    return keep;
  }
  static bool any(const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); }
  static bool all(const std::vector<bool>& v) { return std::find(v.begin(), v.end(), false) == v.end(); }
  const Defined& live_;
};

// ---------------------------------------------------------------- slot releases

class Releaser {
 public:
  explicit Releaser(const HalfContext& cx) : cx_(cx) {}
  int max_live[2] = {0, 0};

  // Each Var sharing a popped tile's buffer → that pop's result.
  void collect_aliases(const std::vector<StmtPtr>& b) {
    for (const auto& s : b) {
      if (const auto* a = as<AssignStmt>(s)) {
        if (int dir = pop_direction(a->value); dir >= 0) {
          root_[a->var.get()] = a->var.get();
        } else if (const auto* v = as<Var>(a->value); v && root_.count(v)) {
          root_[a->var.get()] = root_[v];
        } else if (const auto* c = as<Call>(a->value); c && c->op && c->op->output_reuses_input >= 0 &&
                                                         c->op->output_reuses_input < int(c->args.size())) {
          if (const auto* v = as<Var>(c->args[c->op->output_reuses_input]); v && root_.count(v)) root_[a->var.get()] = root_[v];
        }
      }
      // A received tile carried on (yielded, returned, a loop's initial value) would outlive its slot.
      std::vector<ExprPtr> out_of_block;
      if (const auto* y = as<YieldStmt>(s)) out_of_block = y->values;
      if (const auto* r = as<ReturnStmt>(s)) out_of_block = r->values;
      if (const auto* f = as<ForStmt>(s))
        for (const auto& ia : f->iter_args) out_of_block.push_back(ia->init);
      if (const auto* w = as<WhileStmt>(s))
        for (const auto& ia : w->iter_args) out_of_block.push_back(ia->init);
      for (const auto& e : out_of_block)
        if (const auto* v = as<Var>(e); v && root_.count(v)) leaves(*v, s->span);
      for_each_child(s, [&](const std::vector<StmtPtr>& child) { collect_aliases(child); });
    }
  }

  std::vector<StmtPtr> block(const std::vector<StmtPtr>& in, const int open_outer[2]) {
    // The popped tiles each statement reads (directly or through a view).
    std::vector<std::unordered_set<const Var*>> reads(in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      std::unordered_map<const Var*, int> u;
      collect_uses(in[k], u);
      for (const auto& [v, n] : u)
        if (auto it = root_.find(v); it != root_.end()) reads[k].insert(it->second);
    }
    // Where each pop of this block is released: after its last read, not before an earlier pop's
    // release in the same direction (TFREE releases the oldest slot).
    std::vector<std::vector<std::pair<size_t, int>>> after(in.size());  // [pop index, direction]
    size_t last_pos[2] = {0, 0};
    bool any_pop[2] = {false, false};
    std::vector<std::pair<size_t, size_t>> held[2];  // [pop index, release index] per direction
    for (size_t p = 0; p < in.size(); ++p) {
      const auto* a = as<AssignStmt>(in[p]);
      const int dir = a ? pop_direction(a->value) : -1;
      if (dir < 0) continue;
      size_t last = p;
      for (size_t k = p + 1; k < in.size(); ++k)
        if (reads[k].count(a->var.get())) {
          last = k;
        }
      if (any_pop[dir]) last = std::max(last, last_pos[dir]);
      any_pop[dir] = true;
      last_pos[dir] = last;
      after[last].push_back({p, dir});
      held[dir].push_back({p, last});
    }
    std::vector<StmtPtr> out;
    for (size_t k = 0; k < in.size(); ++k) {
      int open[2] = {open_outer[0], open_outer[1]};
      for (int dir = 0; dir < 2; ++dir)
        for (const auto& [p, r] : held[dir])
          if (p <= k && k <= r) ++open[dir];
      for (int dir = 0; dir < 2; ++dir) max_live[dir] = std::max(max_live[dir], open[dir]);
      out.push_back(rebuild_children(in[k], open));
      for (const auto& [p, dir] : after[k]) {
        const auto& pop = static_cast<const AssignStmt&>(*in[p]);
        const auto& call = static_cast<const Call&>(*pop.value);
        std::vector<std::pair<std::string, AttrValue>> kw;
        for (const char* key : {"split", "id"})
          if (const AttrValue* x = call.kwarg(key)) kw.push_back({key, *x});
        const char* op = dir == 0 ? "system.tfree_to_aic" : "system.tfree_to_aiv";
        out.push_back(std::make_shared<EvalStmt>(make_call(op, {pop.var}, std::move(kw), in[k]->span), in[k]->span));
      }
    }
    return out;
  }

 private:
  [[noreturn]] void leaves(const Var& v, const Span& at) const {
    throw CompileError("E504", at,
                       fmt::format("in mixed kernel '{}', the tile '{}' received from the {} side leaves the block it "
                                   "was received in; its FIFO slot must be released inside that block",
                                   cx_.kernel, v.name, cx_.other),
                       "copy it first (pl.move to Vec) and carry the copy");
  }
  template <typename F>
  static void for_each_child(const StmtPtr& s, F&& f) {
    switch (s->kind) {
      case NodeKind::SeqStmts: f(static_cast<const SeqStmts&>(*s).stmts); break;
      case NodeKind::ScopeStmt: f(stmts_of(static_cast<const ScopeStmt&>(*s).body)); break;
      case NodeKind::ForStmt: f(stmts_of(static_cast<const ForStmt&>(*s).body)); break;
      case NodeKind::WhileStmt: f(stmts_of(static_cast<const WhileStmt&>(*s).body)); break;
      case NodeKind::IfStmt:
        f(stmts_of(static_cast<const IfStmt&>(*s).then_body));
        f(stmts_of(static_cast<const IfStmt&>(*s).else_body));
        break;
      default: break;
    }
  }
  bool holds_pops(const std::vector<StmtPtr>& b, int dir) const {
    for (const auto& s : b) {
      if (const auto* a = as<AssignStmt>(s); a && pop_direction(a->value) == dir) return true;
      bool found = false;
      for_each_child(s, [&](const std::vector<StmtPtr>& c) { found |= holds_pops(c, dir); });
      if (found) return true;
    }
    return false;
  }
  StmtPtr rebuild_children(const StmtPtr& s, const int open[2]) {
    auto sub = [&](const StmtPtr& body) -> StmtPtr {
      if (!body) return body;
      auto b = stmts_of(body);
      for (int dir = 0; dir < 2; ++dir)
        if (open[dir] > 0 && holds_pops(b, dir))
          throw CompileError("E504", s->span,
                             fmt::format("in mixed kernel '{}', this block receives tiles from the {} side while an "
                                         "earlier received tile is still held; the FIFO releases slots oldest first",
                                         cx_.kernel, cx_.other),
                             "finish with the earlier tile before the loop / branch (or copy it with pl.move)");
      return make_body(block(b, open), body->span);
    };
    switch (s->kind) {
      case NodeKind::ScopeStmt: {
        auto sc = std::make_shared<ScopeStmt>(static_cast<const ScopeStmt&>(*s));
        sc->body = sub(sc->body);
        return sc;
      }
      case NodeKind::ForStmt: {
        const auto& f = static_cast<const ForStmt&>(*s);
        return std::make_shared<ForStmt>(f.loop_var, f.start, f.stop, f.step, f.iter_args, sub(f.body), f.return_vars,
                                         f.kind, f.span, f.stage);
      }
      case NodeKind::WhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        return std::make_shared<WhileStmt>(w.cond, w.iter_args, sub(w.body), w.return_vars, w.span);
      }
      case NodeKind::IfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        return std::make_shared<IfStmt>(i.cond, sub(i.then_body), sub(i.else_body), i.return_vars, i.span);
      }
      default: return s;
    }
  }

  const HalfContext& cx_;
  std::unordered_map<const Var*, const Var*> root_;
};

}  // namespace

bool pure_value(const ExprPtr& value) {
  const auto* c = as<Call>(value);
  if (!c) return true;  // copies, scalar arithmetic
  if (!c->op) return false;
  if (c->op->written_tensor >= 0 || pop_direction(value) >= 0) return false;
  if (!c->type || as_tensor(c->type)) return false;  // a store-like write returns its tensor
  if (const auto* t = as_tuple(c->type); t && t->elems.empty()) return false;  // no value: an effect
  return true;
}

StmtPtr repair_half(const StmtPtr& body, const StmtPtr& kernel_body, const std::vector<VarPtr>& params,
                    const HalfContext& cx, std::vector<size_t>& kept_returns) {
  Defined d;
  for (const auto& p : params) d.insert(p.get());
  Repairer r(cx, kept_returns, bound_in(kernel_body));
  return make_body(r.block(stmts_of(body), d), body ? body->span : Span{});
}

StmtPtr remove_dead_code(const StmtPtr& body) {
  std::vector<StmtPtr> b = stmts_of(body);
  for (;;) {
    Liveness l;
    do {
      l.changed = false;
      l.walk(b);
    } while (l.changed);
    Sweeper s(l.live);
    b = s.block(b);
    if (!s.removed) break;
  }
  return make_body(std::move(b), body ? body->span : Span{});
}

StmtPtr insert_slot_releases(const StmtPtr& body, const HalfContext& cx, int max_live[2]) {
  Releaser r(cx);
  auto b = stmts_of(body);
  r.collect_aliases(b);
  const int none[2] = {0, 0};
  auto out = r.block(b, none);
  max_live[0] = r.max_live[0];
  max_live[1] = r.max_live[1];
  return make_body(std::move(out), body ? body->span : Span{});
}

}  // namespace pypto::passes
