// The memory plan of a compiled program (see memory_plan.h).
#include "passes/memory_plan.h"

#include <algorithm>
#include <map>

#include "ir/ir.h"
#include "ir/printer.h"
#include "passes/buffer_lifetimes.h"
#include "passes/memref_util.h"

namespace pypto::passes {

using namespace ir;

namespace {

std::string type_text(const TypePtr& t) {
  const auto* tt = as_tile(t);
  if (!tt) return std::string(print_type(t));
  std::string s = "[";
  for (size_t i = 0; i < tt->shape.size(); ++i) {
    auto v = const_int_value(tt->shape[i]);
    s += (i ? ", " : "") + (v ? std::to_string(*v) : std::string("?"));
  }
  return s + "] " + std::string(dtype_name(tt->dtype));
}

}  // namespace

std::vector<KernelPlan> memory_plan(const Program& program, Soc soc) {
  const SocInfo& info = soc_info(soc);
  std::vector<KernelPlan> out;
  for (const auto& f : program.functions) {
    if (!computes_on_chip(*f)) continue;
    std::unordered_map<const Var*, AllocInfo> allocs;
    for (const auto& s : flatten_body(f->body))
      if (auto a = as_alloc(s)) allocs.emplace(a->base.get(), *a);
    if (allocs.empty()) continue;
    // Every Var whose MemRef is an on-chip allocation is a tile of the plan.
    std::unordered_map<const Var*, const Var*> tiles;  // key -> the Var (itself)
    BufferLifetimes lt([&](const Var& v) -> const Var* {
      const MemRef* m = memref_of(v.type);
      if (!m || !m->base || !allocs.count(m->base.get())) return nullptr;
      tiles.emplace(&v, &v);
      return &v;
    });
    lt.visit(f->body);
    KernelPlan k{f->name, f->type, lt.counter + 1, {}};
    std::map<MemorySpace, SpacePlan> spaces;
    for (const auto& [key, v] : tiles) {
      if (!lt.def.count(key)) continue;
      const MemRef* m = memref_of(v->type);
      const AllocInfo& a = allocs.at(m->base.get());
      SpacePlan& sp = spaces.try_emplace(a.space, SpacePlan{a.space, info.capacity(a.space), 0, {}}).first->second;
      PlannedTile t{v->name, type_text(v->type), m->base->name, const_int_value(m->offset).value_or(0), m->size ? m->size : a.size,
                    lt.def.at(key), lt.last.at(key), v->span};
      sp.used = std::max(sp.used, t.addr + t.size);
      sp.tiles.push_back(std::move(t));
    }
    for (auto& [space, sp] : spaces) {
      std::sort(sp.tiles.begin(), sp.tiles.end(), [](const PlannedTile& a, const PlannedTile& b) {
        return std::tie(a.addr, a.def, a.name) < std::tie(b.addr, b.def, b.name);
      });
      k.spaces.push_back(std::move(sp));
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace pypto::passes
