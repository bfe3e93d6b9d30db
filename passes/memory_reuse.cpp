// MemoryReuse — lifetime-based sharing of on-chip buffers (ir-and-passes.md §5.3), per kernel and
// per memory space:
//   * lifetimes (buffer_lifetimes.h): statements are numbered in a linear walk (nested bodies
//     included); a buffer lives from the first binding of any of its Vars to the last use of any of
//     them; a buffer defined outside a loop and used inside stays live until the loop's end;
//   * packing: first-fit-decreasing — largest buffer first (ties: earlier definition), each joins
//     the first group all of whose members it can share with; sharing is allowed when the
//     lifetimes do not overlap (touching is fine: `u = f(t)` may write t's buffer when t dies there);
//   * guards: the result of a `not_inplace_safe` op never shares with its tile inputs, a
//     `forbid_output_alias(i)` op's result never with input i, a widening tile.cast's result never
//     with its input;
//   * MX scales (memref_util.h scale_bindings): a bound scale buffer is never shared (its address
//     is its data buffer's / 16), and its data buffer lives at least as long as it, so that two
//     scales alive together sit under two data buffers alive together;
//   * rewrite: every member's MemRef points at the group's first (largest) base, its alloc size is
//     the largest member's; allocations left without members are removed.
// Requires HasMemRefs (keeps it).
#include <algorithm>
#include <map>
#include <set>

#include "ir/op_registry.h"
#include "passes/buffer_lifetimes.h"
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

// The pairs of buffers an op's guards keep apart (unordered pairs (min, max)).
using Conflicts = std::set<std::pair<const Var*, const Var*>>;

void record_conflicts(const AssignStmt& s, const std::unordered_map<const Var*, AllocInfo>& allocs, Conflicts& out) {
  const auto* c = as<Call>(s.value);
  if (!c || !c->op) return;
  const Var* o = onchip_base(s.var->type, allocs);
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
    if (forbid && o && in && o != in) out.insert({std::min(o, in), std::max(o, in)});
  }
}

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
  BufferLifetimes lt([&](const Var& v) { return onchip_base(v.type, allocs); });
  Conflicts conflicts;
  lt.on_assign = [&](const AssignStmt& s) { record_conflicts(s, allocs, conflicts); };
  lt.visit(f->body);
  std::set<const Var*> pinned;  // bound MX scale buffers
  for (const auto& b : scale_bindings(*f)) {
    if (!lt.def.count(b.scale_base) || !lt.def.count(b.data_base)) continue;
    pinned.insert(b.scale_base);
    lt.def[b.data_base] = std::min(lt.def[b.data_base], lt.def[b.scale_base]);
    lt.last[b.data_base] = std::max(lt.last[b.data_base], lt.last[b.scale_base]);
  }

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
        if (pinned.count(b) || pinned.count(g.front())) continue;
        bool ok = true;
        for (const Var* m : g) {
          bool disjoint = lt.last[m] <= lt.def[b] || lt.last[b] <= lt.def[m];
          if (!disjoint || conflicts.count({std::min(m, b), std::max(m, b)})) {
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
