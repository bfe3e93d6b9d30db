// PreserveOverwrittenValues — keeps SSA values that memory planning would otherwise overwrite.
// InitMemRef gives one buffer to the Vars buffer_sharing.h names (an in-place op's result and its
// input, a loop's init / iter_arg / yielded value), so a write into such a buffer changes every
// Var of the class. Where one of them is still read after the write, a Vec copy (tile.move) keeps
// its value:
//   * a loop whose carried Vec tile is updated, when a Var of its init's class (defined before
//     the loop) is read after the loop starts: the loop carries a copy of the init;
//   * an if whose branch yields a Vec tile bound before the if while the other branch yields
//     another value, when that tile's class is read after the if or in the other branch (or the
//     other value is bound before the if as well): the branch yields a copy;
//   * an in-place op (registry `output_reuses_input`, e.g. tile.write / tile.assemble /
//     tile.scatter) whose Vec operand's class has a Var defined before it and read after it:
//     the op works on a copy of the operand — unless its result reaches the operand's buffer
//     another way (yielded as the loop-carried tile the operand is), where a copy would share
//     that buffer again: then the reads that follow it in its block read a copy taken before it,
//     and other such reads are E501.
// Runs on SSA kernels after InferTileMemorySpace, before InitMemRef.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "ir/op_registry.h"
#include "passes/buffer_sharing.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool vec_tile(const ExprPtr& e) {
  const auto* t = as_tile(e->type);
  return as<Var>(e) && t && t->space == MemorySpace::Vec;
}

// Statement positions in a linear walk, each Var's binding position and read positions. A Var
// read inside a loop but bound before it is also read at the loop's end (the next iteration).
class Positions : public IRVisitor {
 public:
  struct Loop {
    int start = 0, end = 0;
    std::vector<IterArgPtr> iter_args;
  };
  std::unordered_map<const Var*, int> def;
  std::unordered_map<const Var*, std::vector<int>> reads;
  std::unordered_map<const Stmt*, int> pos;
  std::unordered_map<const Stmt*, Loop> loops;

  explicit Positions(const Function& f) {
    for (const auto& p : f.params) def[p.get()] = -1;
    visit(f.body);
  }
  int read_after(const Var* v, int p) const {
    auto it = reads.find(v);
    if (it == reads.end()) return -1;
    int last = -1;
    for (int r : it->second)
      if (r > p) last = std::max(last, r);
    return last;
  }
  int def_of(const Var* v) const {
    auto it = def.find(v);
    return it == def.end() ? -1 : it->second;
  }
  // The last position inside a statement (its own for a simple one).
  int end_of(const Stmt* s) const {
    auto it = end.find(s);
    return it != end.end() ? it->second : pos.at(s);
  }
  std::unordered_map<const Stmt*, int> end;  // compound statements
  std::unordered_map<const Var*, ExprPtr> value;  // what each assigned Var is bound to
  // An if's then / else position ranges (first, last; empty when last < first).
  std::unordered_map<const Stmt*, std::array<std::pair<int, int>, 2>> branches;
  bool read_within(const Var* v, std::pair<int, int> range) const {
    auto it = reads.find(v);
    if (it == reads.end()) return false;
    for (int r : it->second)
      if (r >= range.first && r <= range.second) return true;
    return false;
  }

 protected:
  void visit_var(const Var& v) override { read(&v); }
  void visit_iter_arg(const IterArg& v) override { read(&v); }
  void visit_assign(const AssignStmt& s) override {
    here(s);
    IRVisitor::visit_assign(s);
    def[s.var.get()] = now_;
    value[s.var.get()] = s.value;
  }
  void visit_eval(const EvalStmt& s) override {
    here(s);
    IRVisitor::visit_eval(s);
  }
  void visit_return(const ReturnStmt& s) override {
    here(s);
    IRVisitor::visit_return(s);
  }
  void visit_yield(const YieldStmt& s) override {
    here(s);
    IRVisitor::visit_yield(s);
  }
  void visit_if(const IfStmt& s) override {
    here(s);
    visit(s.cond);
    const int t0 = counter_;
    visit(s.then_body);
    const int e0 = counter_;
    visit(s.else_body);
    branches[&s] = {std::pair{t0, e0 - 1}, std::pair{e0, counter_ - 1}};
    end[&s] = now_ = counter_++;
    for (const auto& rv : s.return_vars) def[rv.get()] = now_;
  }
  void visit_for(const ForStmt& s) override {
    here(s);
    visit(s.start);
    visit(s.stop);
    visit(s.step);
    for (const auto& ia : s.iter_args) visit(ia->init);
    def[s.loop_var.get()] = now_;
    loop_body(s, s.iter_args, nullptr, s.body, s.return_vars);
  }
  void visit_while(const WhileStmt& s) override {
    here(s);
    for (const auto& ia : s.iter_args) visit(ia->init);
    loop_body(s, s.iter_args, s.cond, s.body, s.return_vars);
  }

 private:
  void here(const Stmt& s) { pos[&s] = now_ = counter_++; }
  void read(const Var* v) {
    reads[v].push_back(now_);
    log_.push_back(v);
  }
  void loop_body(const Stmt& s, const std::vector<IterArgPtr>& ias, const ExprPtr& cond, const StmtPtr& body,
                 const std::vector<VarPtr>& rvs) {
    const int start = now_;
    for (const auto& ia : ias) def[ia.get()] = start;
    const size_t first = log_.size();
    visit(cond);
    visit(body);
    now_ = counter_++;
    for (size_t i = first; i < log_.size(); ++i)
      if (def_of(log_[i]) < start) reads[log_[i]].push_back(now_);  // read again by the next iteration
    for (const auto& rv : rvs) def[rv.get()] = now_;
    loops[&s] = Loop{start, now_, ias};
    end[&s] = now_;
  }
  int counter_ = 0, now_ = 0;
  std::vector<const Var*> log_;
};

// The Vars of `v`'s buffer class bound before position `p` and read after it.
std::vector<const Var*> live_sharers(const BufferSharing& sh, UnionFind& uf, const Positions& ps, const Var* v, int p) {
  std::vector<const Var*> out;
  const Var* root = uf.find(v);
  for (const auto& m : sh.order)
    if (uf.find(m.get()) == root && ps.def_of(m.get()) < p && ps.read_after(m.get(), p) >= 0) out.push_back(m.get());
  return out;
}

ExprPtr copy_of(const ExprPtr& x, const Span& sp) {
  return make_call("tile.move", {x}, {{"target_memory", MemorySpace::Vec}}, sp);
}

// One rewrite per round: the earliest loop init or in-place operand that needs a copy.
class Rewriter : public IRMutator {
 public:
  explicit Rewriter(const Function& f) : f_(f), sh_(f), ps_(f) {}
  bool changed = false;

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    std::vector<StmtPtr> out;
    bool any = false;
    for (size_t i = 0; i < s->stmts.size(); ++i) {
      const StmtPtr& st = s->stmts[i];
      if (!changed) {
        if (auto pre = loop_init_copy(st)) {
          for (auto& x : *pre) out.push_back(x);
          any = true;
          continue;
        }
        if (auto ifs = if_yield_copy(st)) {
          out.push_back(*ifs);
          any = true;
          continue;
        }
        if (auto pre = in_place_copy(st, s->stmts, i)) {
          for (auto& x : *pre) out.push_back(x);
          any = true;
          if (skip_rest_) {  // the rest of the block was rewritten with it
            skip_rest_ = false;
            break;
          }
          continue;
        }
      }
      StmtPtr m = mutate(st);
      any |= m != st;
      if (const auto* q = as<SeqStmts>(m); q && m != st)
        for (const auto& x : q->stmts) out.push_back(x);
      else
        out.push_back(m);
    }
    if (!any) return s;
    return with_comments(std::make_shared<SeqStmts>(std::move(out), s->span), *s);
  }

 private:
  // A loop updating a carried Vec tile whose init's class is read after the loop starts.
  std::optional<std::vector<StmtPtr>> loop_init_copy(const StmtPtr& st) {
    auto it = ps_.loops.find(st.get());
    if (it == ps_.loops.end()) return std::nullopt;
    const auto& loop = it->second;
    const auto* f = as<ForStmt>(st);
    const auto* w = as<WhileStmt>(st);
    const StmtPtr& body = f ? f->body : w->body;
    auto y = split_trailing_yield(body).second;
    for (size_t i = 0; i < loop.iter_args.size(); ++i) {
      const auto& ia = loop.iter_args[i];
      if (!vec_tile(ia->init) || !y || i >= y->values.size() || y->values[i].get() == ia.get()) continue;
      bool live = false;
      for (const Var* m : live_sharers(sh_, sh_.uf, ps_, as<Var>(ia->init), loop.start))
        live |= m != ia.get();
      if (!live) continue;
      changed = true;
      auto c = copy_of(ia->init, st->span);
      auto cv = std::make_shared<Var>(ia->name + "_init", c->type, st->span);
      auto nia = std::make_shared<IterArg>(ia->name, ia->type, cv, ia->span);
      std::vector<IterArgPtr> ias = f ? f->iter_args : w->iter_args;
      ias[i] = nia;
      var_map[ia.get()] = nia;
      StmtPtr nb = mutate(body);
      StmtPtr loop_stmt = f ? StmtPtr(with_comments(std::make_shared<ForStmt>(f->loop_var, f->start, f->stop, f->step, std::move(ias),
                                                                             nb, f->return_vars, f->kind, f->span, f->stage), *st))
                            : StmtPtr(with_comments(std::make_shared<WhileStmt>(mutate(w->cond), std::move(ias), nb,
                                                                               w->return_vars, w->span), *st));
      return std::vector<StmtPtr>{std::make_shared<AssignStmt>(cv, c, st->span), loop_stmt};
    }
    return std::nullopt;
  }

  // The Var a value passes on unchanged: through plain copies `a = b` and reshapes.
  const Var* origin(const Var* v) const {
    for (int guard = 0; guard < 1000; ++guard) {
      auto it = ps_.value.find(v);
      if (it == ps_.value.end()) return v;
      const ExprPtr& e = it->second;
      const auto* c = as<Call>(e);
      const Var* next = as<Var>(e) ? as<Var>(e) : c && c->is_op("tile.reshape") ? as<Var>(c->args[0]) : nullptr;
      if (!next) return v;
      v = next;
    }
    return v;
  }

  // An if yielding a Vec tile bound before it, while the other branch yields another value: the
  // if's result shares one buffer with both, so the branch yields a copy when that tile's class is
  // still read after the if or in the other branch, or the other value is bound before the if too.
  std::optional<StmtPtr> if_yield_copy(const StmtPtr& st) {
    const auto* i = as<IfStmt>(st);
    if (!i || !i->else_body) return std::nullopt;
    const int p = ps_.pos.at(st.get()), e = ps_.end_of(st.get());
    const auto& ranges = ps_.branches.at(st.get());
    const std::shared_ptr<const YieldStmt> ys[2] = {split_trailing_yield(i->then_body).second,
                                                   split_trailing_yield(i->else_body).second};
    if (!ys[0] || !ys[1]) return std::nullopt;
    for (size_t k = 0; k < i->return_vars.size() && k < ys[0]->values.size() && k < ys[1]->values.size(); ++k)
      for (int b = 0; b < 2; ++b) {
        const ExprPtr& y = ys[b]->values[k];
        const ExprPtr& other = ys[1 - b]->values[k];
        if (!vec_tile(y) || other.get() == y.get() || ps_.def_of(origin(as<Var>(y))) >= p) continue;
        bool live = as<Var>(other) && ps_.def_of(origin(as<Var>(other))) < p;  // two values bound before it
        const Var* root = sh_.uf.find(origin(as<Var>(y)));
        for (const auto& m : sh_.order)
          if (sh_.uf.find(m.get()) == root && ps_.def_of(m.get()) < p)
            live |= ps_.read_after(m.get(), e) >= 0 || ps_.read_within(m.get(), ranges[1 - b]);
        if (!live) continue;
        changed = true;
        const Span& sp = ys[b]->span;
        auto cp = copy_of(y, sp);
        auto cv = std::make_shared<Var>(as<Var>(y)->name + "_yield", cp->type, sp);
        auto [stmts, yield] = split_trailing_yield(b == 0 ? i->then_body : i->else_body);
        auto vals = yield->values;
        vals[k] = cv;
        stmts.push_back(std::make_shared<AssignStmt>(cv, cp, sp));
        stmts.push_back(with_comments(std::make_shared<YieldStmt>(std::move(vals), yield->span), *yield));
        StmtPtr nb = make_body(std::move(stmts), sp);
        return StmtPtr(with_comments(std::make_shared<IfStmt>(i->cond, b == 0 ? nb : i->then_body, b == 0 ? i->else_body : nb,
                                                              i->return_vars, i->span), *st));
      }
    return std::nullopt;
  }

  std::optional<std::vector<StmtPtr>> in_place_copy(const StmtPtr& st, const std::vector<StmtPtr>& block, size_t at) {
    const auto* a = as<AssignStmt>(st);
    const auto* c = a ? as<Call>(a->value) : nullptr;
    if (!c || !c->op || c->op->pipe_rule == PipeRule::NotInstruction) return std::nullopt;  // views write nothing
    const int k = c->op->output_reuses_input;
    if (k < 0 || size_t(k) >= c->args.size() || !vec_tile(c->args[k])) return std::nullopt;
    const int p = ps_.pos.at(st.get());
    const Var* x = as<Var>(c->args[k]);
    auto live = live_sharers(sh_, sh_.uf, ps_, x, p);
    if (live.empty()) return std::nullopt;
    changed = true;
    // A copy of the operand helps unless the result reaches the operand's buffer another way (it
    // is yielded as the loop-carried tile the operand belongs to).
    BufferSharing without(f_, st.get());
    const bool carried = without.uf.find(a->var.get()) == without.uf.find(x);
    const Span& sp = a->span;
    if (!carried) {  // the op writes a copy of its operand
      auto cp = copy_of(c->args[k], sp);
      auto cv = std::make_shared<Var>(x->name + "_copy", cp->type, sp);
      auto args = c->args;
      args[k] = cv;
      return std::vector<StmtPtr>{std::make_shared<AssignStmt>(cv, cp, sp),
                                  with_comments(std::make_shared<AssignStmt>(a->var, rebuild_call(*c, args), sp), *st)};
    }
    // The operand is a loop's carried value: the reads after the op in this block read a copy.
    const int last = ps_.end_of(block.back().get());
    for (const Var* m : live)
      if (m != x || ps_.read_after(m, last) >= 0)
        throw CompileError("E501", sp,
                           fmt::format("'{}' is read after 'pl.{}' updated the loop-carried tile it shares a buffer with; "
                                       "reading it there is not supported yet", m->name, c->op->name),
                           "read the values before the update, or copy them with pl.tile.move first");
    auto cp = copy_of(c->args[k], sp);
    auto kv = std::make_shared<Var>(x->name + "_kept", cp->type, sp);
    std::vector<StmtPtr> out = {std::make_shared<AssignStmt>(kv, cp, sp), st};
    var_map[x] = kv;
    for (size_t j = at + 1; j < block.size(); ++j) out.push_back(mutate(block[j]));
    var_map.erase(x);
    skip_rest_ = true;
    return out;
  }

  const Function& f_;
  BufferSharing sh_;
  Positions ps_;
  bool skip_rest_ = false;
};

FunctionPtr preserve(const FunctionPtr& f) {
  if (!is_incore_like(f->type) || !f->body) return f;
  FunctionPtr g = f;
  for (int round = 0; round < 4096; ++round) {  // one rewrite per round; each removes a hazard
    Rewriter r(*g);
    StmtPtr body = r.mutate(g->body);
    if (!r.changed) return g;
    g = with_body(*g, body);
  }
  throw InternalError("PreserveOverwrittenValues", fmt::format("no fixed point for kernel '{}'", f->name), f->span);
}

}  // namespace

Pass preserve_overwritten_values_pass() {
  return Pass{"PreserveOverwrittenValues",
              "Where a write into a shared buffer (an in-place op, a loop's carried tile) would change a value that "
              "is still read afterwards, the write works on a Vec copy (tile.move) instead; reads after an in-place "
              "update of a loop-carried tile outside its block are rejected.",
              {{Property::SSAForm}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, preserve); }};
}

}  // namespace pypto::passes
