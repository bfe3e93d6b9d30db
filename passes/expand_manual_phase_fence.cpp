// ExpandManualPhaseFence — in a pl.manual_scope(), a task that waits on a whole TaskId array
// (`pl.submit(self.k, ..., deps=[tids])`, tids an Array[N, TASK_ID]) gets N dependency edges, and
// a loop of M such tasks N·M of them. When N·M exceeds N + M (+1 for the extra task), one
// dependency-only task `phase_fence_barrier_<k>_tid = pl.system.task_dummy(deps=[tids])` placed
// right before the loop gathers the N producers, and the M consumers wait on it instead: N + M
// edges. The runtime orders exactly the same tasks before each consumer either way.
//
// Loops of an orchestration function are decision points, outermost first, when the innermost
// runtime scope around them is manual. For a loop L and each array A used as the only dep of a
// submit in L (in the order arrays first appear):
//   * M counts the submits in L's body (through ifs, whiles and scopes) times L's trip count; a
//     sequential L also counts the submits of nested loops with a constant positive trip count
//     (times it; their own nested loops only when they are sequential too). A parallel L with a
//     runtime or empty trip count decides nothing; a sequential one with a runtime trip count
//     counts one trip;
//   * N is A's constant extent;
//   * A must hold the same tasks for the whole loop: not one of L's iter_args, not defined in L's
//     body (an assignment, a nested if's / loop's result or carry), and not updated in it by
//     pl.array.update_element — directly or through a loop carry that starts from it (carries
//     chain: iter_arg ↔ init, transitively; a plain copy `t2 = tids` is a new array).
// The counted submits become `deps=[barrier]`. Nested loops decide afterwards on what is left, so
// an array rejected by L may still be fenced inside its body. Runs after DeriveCallDirections;
// programs without manual scopes are unchanged.
#include <fmt/format.h>

#include <functional>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// The TaskId array a call waits on as its only dependency, or null.
const Var* sole_array_dep(const Call& c) {
  if (c.callee.empty() || !c.dispatch || c.dispatch->deps.size() != 1) return nullptr;
  const auto* v = as<Var>(c.dispatch->deps[0]);
  const auto* a = v ? as_array(v->type) : nullptr;
  return a && a->dtype == DataType::TASK_ID ? v : nullptr;
}

std::optional<int64_t> trip_count(const ForStmt& f) {
  auto a = const_int_value(f.start), b = const_int_value(f.stop), c = const_int_value(f.step);
  if (!a || !b || !c || *c == 0) return std::nullopt;
  const int64_t span = *b - *a;
  if ((span > 0) != (*c > 0) || span == 0) return int64_t{0};
  return (span + *c + (*c > 0 ? -1 : 1)) / *c;
}

// Iter_arg ↔ init classes of TaskId arrays (union-find over the whole function).
class CarryClasses : public IRVisitor {
 public:
  const Var* find(const Var* v) {
    auto it = parent_.find(v);
    if (it == parent_.end() || it->second == v) return v;
    return it->second = find(it->second);
  }

 protected:
  void visit_for(const ForStmt& s) override {
    join(s.iter_args);
    IRVisitor::visit_for(s);
  }
  void visit_while(const WhileStmt& s) override {
    join(s.iter_args);
    IRVisitor::visit_while(s);
  }

 private:
  void join(const std::vector<IterArgPtr>& ias) {
    for (const auto& ia : ias)
      if (const auto* init = as<Var>(ia->init); init && as_array(ia->type) && as_array(init->type))
        parent_[find(ia.get())] = find(init);
  }
  std::unordered_map<const Var*, const Var*> parent_;
};

// What a loop's body says about the arrays it waits on.
struct Scan {
  std::vector<const Var*> order;                          // arrays, by first appearance
  std::unordered_map<const Var*, int64_t> count;          // consumers per array (weighted)
  std::unordered_map<const Var*, std::vector<const Call*>> covered;
  std::unordered_map<const Var*, ExprPtr> expr;           // the array as the deps list names it
  std::unordered_set<const Var*> defined;                 // Vars bound inside the body
  std::unordered_set<const Var*> updated;                 // carry classes updated inside
};

class PhaseFence {
 public:
  explicit PhaseFence(const Function& f) { classes_.visit_function(f); }

  StmtPtr run(const StmtPtr& body) { return stmt(body, false); }

 private:
  // Consumers directly in `s` (through ifs, whiles and scopes, not loops), each weighted `w`;
  // nested loops handled by `nested(loop, w)`.
  void consumers(const StmtPtr& s, int64_t w, Scan& out, const std::function<void(const ForStmt&, int64_t)>& nested) {
    if (!s) return;
    if (const auto* q = as<SeqStmts>(s)) {
      for (const auto& c : q->stmts) consumers(c, w, out, nested);
    } else if (const auto* i = as<IfStmt>(s)) {
      consumers(i->then_body, w, out, nested);
      consumers(i->else_body, w, out, nested);
    } else if (const auto* wl = as<WhileStmt>(s)) {
      consumers(wl->body, w, out, nested);
    } else if (const auto* sc = as<ScopeStmt>(s)) {
      consumers(sc->body, w, out, nested);
    } else if (const auto* f = as<ForStmt>(s)) {
      nested(*f, w);
    } else {
      const Call* c = nullptr;
      if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
      if (const auto* e = as<EvalStmt>(s)) c = as<Call>(e->expr);
      if (const Var* arr = c ? sole_array_dep(*c) : nullptr) {
        if (!out.count.count(arr)) {
          out.order.push_back(arr);
          out.expr[arr] = c->dispatch->deps[0];
        }
        out.count[arr] += w;
        out.covered[arr].push_back(c);
      }
    }
  }

  // Submits of a nested loop `f` that a sequential deciding loop covers (weight w · trips).
  void nested_sequential(const ForStmt& f, int64_t w, Scan& out) {
    auto trips = trip_count(f);
    if (!trips || *trips <= 0) return;
    const bool deeper = f.kind == ForKind::Sequential;
    consumers(f.body, w * *trips, out, [&](const ForStmt& g, int64_t w2) {
      if (deeper) nested_sequential(g, w2, out);
    });
  }

  // Bindings and array updates anywhere inside `s`.
  void effects(const StmtPtr& s, Scan& out) {
    struct Walker : IRVisitor {
      Scan& out;
      CarryClasses& classes;
      Walker(Scan& o, CarryClasses& c) : out(o), classes(c) {}
      void visit_assign(const AssignStmt& a) override {
        out.defined.insert(a.var.get());
        IRVisitor::visit_assign(a);
      }
      void visit_call(const Call& c) override {
        if (c.is_op("array.update_element") && !c.args.empty())
          if (const auto* v = as<Var>(c.args[0])) out.updated.insert(classes.find(v));
        IRVisitor::visit_call(c);
      }
      void visit_for(const ForStmt& f) override {
        bind(f.iter_args, f.return_vars);
        IRVisitor::visit_for(f);
      }
      void visit_while(const WhileStmt& w) override {
        bind(w.iter_args, w.return_vars);
        IRVisitor::visit_while(w);
      }
      void visit_if(const IfStmt& i) override {
        for (const auto& rv : i.return_vars) out.defined.insert(rv.get());
        IRVisitor::visit_if(i);
      }
      void bind(const std::vector<IterArgPtr>& ias, const std::vector<VarPtr>& rvs) {
        for (const auto& ia : ias) out.defined.insert(ia.get());
        for (const auto& rv : rvs) out.defined.insert(rv.get());
      }
    } walker(out, classes_);
    walker.visit(s);
  }

  // The barriers placed before `f` (appended to `before`) and `f` with its covered submits
  // rewritten.
  StmtPtr decide(const std::shared_ptr<const ForStmt>& f, std::vector<StmtPtr>& before) {
    auto trips = trip_count(*f);
    const bool parallel = f->kind == ForKind::Parallel;
    if (trips && *trips <= 0) return f;
    if (!trips && parallel) return f;
    const int64_t mult = trips ? *trips : 1;
    Scan scan;
    consumers(f->body, 1, scan, [&](const ForStmt& g, int64_t w) {
      if (!parallel) nested_sequential(g, w, scan);
    });
    if (scan.order.empty()) return f;
    effects(f->body, scan);
    std::unordered_set<const Var*> carried;
    for (const auto& ia : f->iter_args) carried.insert(ia.get());
    std::unordered_map<const Call*, VarPtr> rewrite;
    for (const Var* arr : scan.order) {
      const int64_t n = as_array(arr->type)->extent, m = scan.count[arr] * mult;
      if (n <= 0 || m <= 0 || n * m - (n + m) < 1) continue;
      if (carried.count(arr) || scan.defined.count(arr) || scan.updated.count(classes_.find(arr))) continue;
      auto barrier = make_var(fmt::format("phase_fence_barrier_{}_tid", next_++), scalar_type(DataType::TASK_ID), f->span);
      ExprPtr deps = std::make_shared<MakeTuple>(std::vector<ExprPtr>{scan.expr[arr]},
                                                 std::make_shared<TupleType>(std::vector<TypePtr>{arr->type}), f->span);
      before.push_back(std::make_shared<AssignStmt>(barrier, make_call("system.task_dummy", {deps}, {}, f->span), f->span));
      for (const Call* c : scan.covered[arr]) rewrite[c] = barrier;
    }
    if (rewrite.empty()) return f;
    struct Rewriter : IRMutator {
      std::unordered_map<const Call*, VarPtr>& to;
      explicit Rewriter(std::unordered_map<const Call*, VarPtr>& t) : to(t) {}
      ExprPtr mutate_call(const std::shared_ptr<const Call>& c) override {
        auto it = to.find(c.get());
        if (it == to.end()) return IRMutator::mutate_call(c);
        auto d = std::make_shared<Dispatch>(*c->dispatch);
        d->deps = {it->second};
        auto n = std::make_shared<Call>(*c);
        n->dispatch = d;
        return n;
      }
    } rw(rewrite);
    return rw.mutate(StmtPtr(f));
  }

  StmtPtr stmt(const StmtPtr& s, bool manual) {
    if (!s) return s;
    if (const auto* q = as<SeqStmts>(s)) {
      std::vector<StmtPtr> out;
      bool changed = false;
      for (const auto& c : q->stmts) {
        StmtPtr n = stmt(c, manual);
        changed |= n != c;
        if (as<ForStmt>(c) && as<SeqStmts>(n))
          for (const auto& x : as<SeqStmts>(n)->stmts) out.push_back(x);
        else
          out.push_back(n);
      }
      return changed ? with_comments(std::make_shared<SeqStmts>(std::move(out), q->span), *q) : s;
    }
    if (const auto* sc = as<ScopeStmt>(s)) {
      const bool inner = sc->scope == ScopeKind::Runtime ? sc->manual : manual;
      StmtPtr body = stmt(sc->body, inner);
      if (body == sc->body) return s;
      auto n = std::make_shared<ScopeStmt>(*sc);
      n->body = body;
      return n;
    }
    if (const auto* i = as<IfStmt>(s)) {
      StmtPtr t = stmt(i->then_body, manual), e = stmt(i->else_body, manual);
      if (t == i->then_body && e == i->else_body) return s;
      auto n = std::make_shared<IfStmt>(*i);
      n->then_body = t;
      n->else_body = e;
      return n;
    }
    if (const auto* w = as<WhileStmt>(s)) {
      StmtPtr body = stmt(w->body, manual);
      if (body == w->body) return s;
      auto n = std::make_shared<WhileStmt>(*w);
      n->body = body;
      return n;
    }
    if (as<ForStmt>(s)) {
      std::vector<StmtPtr> before;
      StmtPtr loop = manual ? decide(std::static_pointer_cast<const ForStmt>(s), before) : s;
      const auto* lf = as<ForStmt>(loop);
      StmtPtr body = stmt(lf->body, manual);
      if (body != lf->body) {
        auto n = std::make_shared<ForStmt>(*lf);
        n->body = body;
        loop = n;
      }
      if (before.empty()) return loop;
      before.push_back(loop);
      return std::make_shared<SeqStmts>(std::move(before), s->span);
    }
    return s;
  }

  CarryClasses classes_;
  int next_ = 0;
};

}  // namespace

Pass expand_manual_phase_fence_pass() {
  return Pass{"ExpandManualPhaseFence",
              "In manual scopes, a loop of M submits that each wait on a whole TaskId array of N tasks gets one "
              "pl.system.task_dummy barrier on the array before the loop when N*M - (N+M) >= 1, and the submits "
              "wait on it instead (N + M edges instead of N*M); arrays the loop carries, defines or updates are "
              "left alone.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!f->body || f->type != FunctionType::Orchestration) return f;
                  PhaseFence pf(*f);
                  StmtPtr body = pf.run(f->body);
                  if (body == f->body) return f;
                  auto n = std::make_shared<Function>(*f);
                  n->body = body;
                  return n;
                });
              }};
}

}  // namespace pypto::passes
