// On-chip footprint estimates of statement lists (see tile_footprint.h).
#include "passes/tile_footprint.h"

#include <unordered_set>

#include "ir/op_registry.h"
#include "passes/pass_util.h"

namespace pypto::passes {

using namespace ir;

int64_t own_tile_bytes(const AssignStmt& a) {
  const auto* t = as_tile(a.var->type);
  if (!t || !t->space) return 0;
  const auto* c = as<Call>(a.value);
  if (!c || !c->op || c->op->output_reuses_input >= 0) return 0;  // a copy, a view, an in-place result
  return byte_size(*t).value_or(0);
}

SpaceBytes peak_tile_bytes(const std::vector<StmtPtr>& top) {
  std::vector<std::unordered_map<const Var*, int>> uses(top.size());
  for (size_t i = 0; i < top.size(); ++i) collect_uses(top[i], uses[i]);
  struct Interval {
    MemorySpace space;
    int64_t bytes;
    size_t from, to;
  };
  std::vector<Interval> live;
  std::vector<SpaceBytes> nested(top.size());
  for (size_t i = 0; i < top.size(); ++i) {
    if (const auto* a = as<AssignStmt>(top[i])) {
      if (const int64_t b = own_tile_bytes(*a)) {
        size_t last = i;
        for (size_t j = i; j < top.size(); ++j)
          if (uses[j].count(a->var.get())) last = j;
        live.push_back({*as_tile(a->var->type)->space, b, i, last});
      }
    } else if (const auto* f = as<ForStmt>(top[i])) {
      nested[i] = peak_tile_bytes(flatten_body(f->body));
    } else if (const auto* w = as<WhileStmt>(top[i])) {
      nested[i] = peak_tile_bytes(flatten_body(w->body));
    } else if (const auto* sc = as<ScopeStmt>(top[i])) {
      nested[i] = peak_tile_bytes(flatten_body(sc->body));
    } else if (const auto* c = as<IfStmt>(top[i])) {
      nested[i] = peak_tile_bytes(flatten_body(c->then_body));
      if (c->else_body)
        for (const auto& [sp, b] : peak_tile_bytes(flatten_body(c->else_body))) nested[i][sp] = std::max(nested[i][sp], b);
    }
  }
  SpaceBytes peak;
  for (size_t i = 0; i < top.size(); ++i) {
    SpaceBytes at = nested[i];
    for (const auto& iv : live)
      if (iv.from <= i && i <= iv.to) at[iv.space] += iv.bytes;
    for (const auto& [sp, b] : at) peak[sp] = std::max(peak[sp], b);
  }
  return peak;
}

TileDefs tile_defs(const StmtPtr& body) {
  TileDefs defs;
  if (body)
    for (const AssignStmt* a : collect_assign_stmts(body))
      if (as_tile(a->var->type)) defs[a->var.get()] = a;
  return defs;
}

SpaceBytes outside_tile_bytes(const StmtPtr& body, const TileDefs& defs) {
  SpaceBytes outside;
  std::unordered_map<const Var*, int> inside;
  collect_uses(body, inside);
  std::unordered_set<const Var*> own;
  for (const AssignStmt* a : collect_assign_stmts(body)) own.insert(a->var.get());
  for (const auto& [v, a] : defs)
    if (const int64_t b = own_tile_bytes(*a); b && inside.count(v) && !own.count(v)) outside[*as_tile(v->type)->space] += b;
  return outside;
}

}  // namespace pypto::passes
