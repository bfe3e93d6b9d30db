// Memory properties: TileMemoryInferred (every tile has a memory space), HasMemRefs (every tile /
// tensor of a kernel has a MemRef large enough for it), AllocatedMemoryAddr (every on-chip MemRef
// has a constant, aligned offset and fits the SoC capacity of its space).
#include <fmt/format.h>

#include <unordered_set>

#include "ir/op_registry.h"
#include "ir/verify_util.h"

namespace pypto::ir::verify_detail {

void check_tile_memory_inferred(const Env& env) {
  for (const auto& f : env.program.functions) {
    for_each_binding(*f, [&](const Var& v, const Span& sp) {
      if (const auto* t = as_tile(v.type); t && !t->space)
        env.report("TileMemoryInferred", sp,
                   fmt::format("tile '{}' in function '{}' has no memory space", v.name, f->name),
                   "InferTileMemorySpace assigns pl.Mem.X to every tile");
    });
  }
}

void check_has_memrefs(const Env& env) {
  for (const auto& f : env.program.functions) {
    if (!is_incore_like(f->type)) continue;  // orchestration tensors are runtime allocations
    std::unordered_set<const Var*> seen;
    for_each_binding(*f, [&](const Var& v, const Span& sp) {
      const auto* t = as_shaped(v.type);
      if (!t || !seen.insert(&v).second) return;
      if (!t->memref || !t->memref->base) {
        env.report("HasMemRefs", sp, fmt::format("'{}' in function '{}' has no MemRef", v.name, f->name),
                   "InitMemRef gives every tile and tensor a MemRef");
        return;
      }
      auto need = byte_size(*t);
      if (need && t->memref->size < *need)
        env.report("HasMemRefs", sp,
                   fmt::format("MemRef of '{}' in function '{}' holds {} bytes but {} needs {}", v.name, f->name,
                               t->memref->size, type_str(v.type), *need));
    });
  }
}

void check_allocated_memory_addr(const Env& env) {
  const SocInfo& soc = soc_info(env.opts.soc);
  for (const auto& f : env.program.functions) {
    std::unordered_set<const Var*> seen;
    for_each_binding(*f, [&](const Var& v, const Span& sp) {
      const auto* t = as_tile(v.type);
      if (!t || !seen.insert(&v).second) return;
      auto bad = [&](std::string msg, std::string hint = {}) {
        env.report("AllocatedMemoryAddr", sp, fmt::format("tile '{}' in function '{}': {}", v.name, f->name, msg),
                   std::move(hint));
      };
      if (!t->memref) return bad("no MemRef", "InitMemRef and AllocateMemoryAddr must run first");
      if (!t->space || *t->space == MemorySpace::DDR) return bad("no on-chip memory space");
      auto off = const_int_value(t->memref->offset);
      if (!off) return bad("the MemRef offset is not a constant address");
      const int64_t cap = soc.capacity(*t->space);
      if (*off < 0 || *off % soc.alignment != 0)
        bad(fmt::format("address {} is not {}-byte aligned", *off, soc.alignment));
      if (*off + t->memref->size > cap)
        bad(fmt::format("{} buffer [{}, {}) exceeds the {} capacity of {} bytes on {}", to_string(*t->space), *off,
                        *off + t->memref->size, to_string(*t->space), cap, soc.cli_name),
            "reduce tile sizes or let MemoryReuse share buffers");
    });
    for_each_call(f->body, [&](const Call& c, const Stmt& s) {
      if (!c.is_op("tile.alloc")) return;
      const auto* sp = c.kwarg("memory_space");
      const auto* sz = c.kwarg("size");
      const auto* space = sp ? std::get_if<MemorySpace>(sp) : nullptr;
      const auto* size = sz ? std::get_if<int64_t>(sz) : nullptr;
      if (space && size && *size > soc.capacity(*space))
        env.report("AllocatedMemoryAddr", c.span.valid() ? c.span : s.span,
                   fmt::format("Function '{}': {} allocation of {} bytes exceeds platform limit ({} bytes)", f->name,
                               to_string(*space), *size, soc.capacity(*space)));
    });
  }
}

}  // namespace pypto::ir::verify_detail
