// MemoryReuse — lifetime-based sharing of on-chip buffers (ir-and-passes.md §5.3), per kernel and
// per memory space:
//   * lifetimes: statements are numbered in a linear walk (nested bodies included); a buffer lives
//     from the first binding of any of its Vars to the last use of any of them; a buffer defined
//     outside a loop and used inside stays live until the loop's end;
//   * packing: first-fit-decreasing — largest buffer first (ties: earlier definition), each joins
//     the first group all of whose members it can share with; sharing is allowed when the
//     lifetimes do not overlap (touching is fine: `u = f(t)` may write t's buffer when t dies there);
//   * guards: the result of a `not_inplace_safe` op never shares with its tile inputs, a
//     `forbid_output_alias(i)` op's result never with input i, a widening tile.cast's result never
//     with its input;
//   * rewrite: every member's MemRef points at the group's first (largest) base, its alloc size is
//     the largest member's; allocations left without members are removed.
// Requires HasMemRefs (keeps it).
#include <algorithm>
#include <map>
#include <set>

#include "ir/op_registry.h"
#include "passes/memref_util.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

const Var* onchip_base(const TypePtr& t, const std::unordered_map<const Var*, AllocInfo>& allocs) {
  const MemRef* m = memref_of(t);
  if (!m || !m->base) return nullptr;
  return allocs.count(m->base.get()) ? m->base.get() : nullptr;
}

class Lifetimes : public IRVisitor {
 public:
  explicit Lifetimes(const std::unordered_map<const Var*, AllocInfo>& a) : allocs(a) {}
  const std::unordered_map<const Var*, AllocInfo>& allocs;
  std::unordered_map<const Var*, int> def, last;               // per base
  std::set<std::pair<const Var*, const Var*>> conflicts;       // unordered pairs (min, max)
  int counter = 0;

  void conflict(const Var* a, const Var* b) {
    if (!a || !b || a == b) return;
    conflicts.insert({std::min(a, b), std::max(a, b)});
  }

 private:
  struct Loop {
    int start;
    std::vector<const Var*> extend;  // bases used inside that were defined before
  };
  std::vector<Loop> loops_;

  void define(const VarPtr& v) {
    const Var* b = onchip_base(v->type, allocs);
    if (!b) return;
    if (!def.count(b)) def[b] = counter;
    last[b] = std::max(last.count(b) ? last[b] : counter, counter);
  }
  void use_base(const Var* b) {
    if (!b) return;
    last[b] = std::max(last.count(b) ? last[b] : counter, counter);
    for (auto& l : loops_)
      if (def.count(b) && def[b] < l.start) l.extend.push_back(b);
  }

 protected:
  void visit_var(const Var& v) override { use_base(onchip_base(v.type, allocs)); }
  void visit_iter_arg(const IterArg& v) override { use_base(onchip_base(v.type, allocs)); }

  void visit_assign(const AssignStmt& s) override {
    ++counter;
    IRVisitor::visit_assign(s);
    define(s.var);
    if (const auto* c = as<Call>(s.value); c && c->op) {
      const Var* out = onchip_base(s.var->type, allocs);
      for (size_t i = 0; i < c->args.size(); ++i) {
        const Var* in = onchip_base(c->args[i]->type, allocs);
        bool forbid = c->op->not_inplace_safe ||
                      std::find(c->op->forbid_output_alias.begin(), c->op->forbid_output_alias.end(), int(i)) !=
                          c->op->forbid_output_alias.end();
        if (c->op->name == "tile.cast") {
          const auto* ti = as_tile(c->args[i]->type);
          const auto* to = as_tile(s.var->type);
          if (ti && to && dtype_bits(to->dtype) > dtype_bits(ti->dtype)) forbid = true;
        }
        if (forbid) conflict(out, in);
      }
    }
  }
  void visit_eval(const EvalStmt& s) override {
    ++counter;
    IRVisitor::visit_eval(s);
  }
  void visit_return(const ReturnStmt& s) override {
    ++counter;
    IRVisitor::visit_return(s);
  }
  void visit_yield(const YieldStmt& s) override {
    ++counter;
    IRVisitor::visit_yield(s);
  }
  void loop_body(const std::vector<IterArgPtr>& ias, const ExprPtr& cond, const StmtPtr& body,
                 const std::vector<VarPtr>& rvs) {
    ++counter;
    for (const auto& ia : ias) {
      visit(ia->init);
      define(ia);
    }
    loops_.push_back({counter, {}});
    visit(cond);
    visit(body);
    ++counter;
    Loop l = loops_.back();
    loops_.pop_back();
    for (const Var* b : l.extend) last[b] = std::max(last[b], counter);
    for (const auto& rv : rvs) define(rv);
  }
  void visit_for(const ForStmt& s) override {
    visit(s.start);
    visit(s.stop);
    visit(s.step);
    loop_body(s.iter_args, nullptr, s.body, s.return_vars);
  }
  void visit_while(const WhileStmt& s) override { loop_body(s.iter_args, s.cond, s.body, s.return_vars); }
  void visit_if(const IfStmt& s) override {
    ++counter;
    IRVisitor::visit_if(s);
    ++counter;
    for (const auto& rv : s.return_vars) define(rv);
  }
};

FunctionPtr reuse_function(const FunctionPtr& f) {
  if (!computes_on_chip(*f)) return f;
  std::vector<StmtPtr> stmts = flatten_body(f->body);
  std::unordered_map<const Var*, AllocInfo> allocs;
  std::vector<const Var*> alloc_order;
  for (const auto& s : stmts)
    if (auto a = as_alloc(s)) {
      allocs.emplace(a->base.get(), *a);
      alloc_order.push_back(a->base.get());
    }
  if (allocs.empty()) return f;
  Lifetimes lt(allocs);
  for (const auto& p : f->params) (void)p;
  lt.visit(f->body);

  // Group per space, first-fit-decreasing.
  std::map<MemorySpace, std::vector<const Var*>> per_space;
  for (const Var* b : alloc_order)
    if (lt.def.count(b)) per_space[allocs.at(b).space].push_back(b);
  std::unordered_map<const Var*, const Var*> leader;  // base → group leader
  std::unordered_map<const Var*, int64_t> group_size;
  for (auto& [space, bases] : per_space) {
    std::stable_sort(bases.begin(), bases.end(), [&](const Var* a, const Var* b) {
      if (allocs.at(a).size != allocs.at(b).size) return allocs.at(a).size > allocs.at(b).size;
      return lt.def[a] < lt.def[b];
    });
    std::vector<std::vector<const Var*>> groups;
    for (const Var* b : bases) {
      bool placed = false;
      for (auto& g : groups) {
        bool ok = true;
        for (const Var* m : g) {
          bool disjoint = lt.last[m] <= lt.def[b] || lt.last[b] <= lt.def[m];
          if (!disjoint || lt.conflicts.count({std::min(m, b), std::max(m, b)})) {
            ok = false;
            break;
          }
        }
        if (ok) {
          g.push_back(b);
          placed = true;
          break;
        }
      }
      if (!placed) groups.push_back({b});
    }
    for (auto& g : groups) {
      int64_t size = 0;
      for (const Var* m : g) {
        leader[m] = g.front();
        size = std::max(size, allocs.at(m).size);
      }
      group_size[g.front()] = size;
    }
  }
  // Rewrite MemRefs to the leaders' bases.
  FunctionPtr g = retype_vars(f, [&](const Var& v) -> TypePtr {
    const MemRef* m = memref_of(v.type);
    if (!m || !m->base) return nullptr;
    auto it = leader.find(m->base.get());
    if (it == leader.end() || it->second == m->base.get()) return nullptr;
    MemRef n = *m;
    n.base = allocs.at(it->second).base;
    return with_memref_any(v.type, n);
  });
  std::vector<StmtPtr> body;
  for (const auto& s : flatten_body(g->body)) {
    if (auto a = as_alloc(s)) {
      auto it = leader.find(a->base.get());
      if (it == leader.end() || it->second != a->base.get()) continue;  // unused or merged away
      body.push_back(make_alloc_stmt(a->base, a->space, group_size[a->base.get()], s->span));
      continue;
    }
    body.push_back(s);
  }
  return with_body(*g, make_body(std::move(body), g->body->span));
}

}  // namespace

Pass memory_reuse_pass() {
  return Pass{"MemoryReuse",
              "Lets on-chip buffers whose lifetimes do not overlap share one allocation (first-fit-"
              "decreasing per memory space, respecting the ops' no-alias guards); removes the "
              "allocations that become unused.",
              {{Property::HasMemRefs}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, reuse_function); }};
}

}  // namespace pypto::passes
