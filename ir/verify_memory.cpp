// Memory properties: TileMemoryInferred (every tile has a memory space), HasMemRefs (every tile /
// tensor of a kernel has a MemRef large enough for it), AllocatedMemoryAddr (every on-chip MemRef
// has a constant, aligned offset and fits the SoC capacity of its space, and the tiles that are
// one buffer — a copy and its source, an in-place op's or a view's result and that operand, a
// loop's init / iter_arg / yielded value / return_var, an if's return_var and its arms' yielded
// values — are at one address in one space, because the kernel code declares them so).
#include <fmt/format.h>

#include <optional>
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
    if (!computes_on_chip(*f)) continue;  // orchestration tensors are runtime allocations
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

namespace {
// The planned address of a tile: its space and constant MemRef offset (nullopt: not planned, which
// the address rule reports).
std::optional<std::pair<MemorySpace, int64_t>> planned_address(const TileType& t) {
  const auto off = t.memref && t.space ? const_int_value(t.memref->offset) : std::nullopt;
  if (!off) return std::nullopt;
  return std::make_pair(*t.space, *off);
}

std::string address_text(const std::optional<std::pair<MemorySpace, int64_t>>& a) {
  return fmt::format("{} {}", to_string(a->first), a->second);
}

// Tiles that must share one buffer have the same planned address.
void check_tile_aliases(const Env& env, const Function& f) {
  // `v` is one buffer with `e` (`why` names the relation); reported at `sp`.
  auto same = [&](const Var& v, const ExprPtr& e, const Span& sp, const std::string& why) {
    const auto* vt = as_tile(v.type);
    if (!vt) return;
    const auto* w = as<Var>(e);
    const auto* wt = w ? as_tile(w->type) : nullptr;
    auto bad = [&](const std::string& msg) {
      env.report("AllocatedMemoryAddr", sp, fmt::format("tile '{}' in function '{}' {}", v.name, f.name, msg),
                 "InitMemRef gives copies, in-place and view results, loop carries and if results one buffer");
    };
    if (!wt) return bad(fmt::format("must be one buffer with {}, which is not a tile variable", why));
    const auto a = planned_address(*vt), b = planned_address(*wt);
    if (a && b && *a != *b)
      bad(fmt::format("is at {} but must be one buffer with {} '{}' at {}", address_text(a), why, w->name,
                      address_text(b)));
  };
  auto carries = [&](const std::vector<IterArgPtr>& ias, const StmtPtr& body, const std::vector<VarPtr>& rvs,
                     const Span& sp) {
    const YieldStmt* y = trailing_yield(body);
    for (size_t i = 0; i < ias.size(); ++i) {
      same(*ias[i], ias[i]->init, sp, "its initial value");
      if (y && i < y->values.size()) same(*ias[i], y->values[i], y->span, "the value yielded for it");
      if (i < rvs.size()) same(*rvs[i], ias[i], sp, "the loop-carried value");
    }
  };
  for_each_stmt(f.body, [&](const Stmt& s) {
    if (const auto* a = as<AssignStmt>(&s)) {
      const auto* c = as<Call>(a->value);
      if (!c) return same(*a->var, a->value, s.span, "the value it copies");
      const int k = c->op ? c->op->output_reuses_input : -1;
      if (k >= 0 && size_t(k) < c->args.size())
        same(*a->var, c->args[k], s.span, fmt::format("operand {} of pl.{}", k + 1, c->op->name));
    } else if (const auto* l = as<ForStmt>(&s)) {
      carries(l->iter_args, l->body, l->return_vars, s.span);
    } else if (const auto* w = as<WhileStmt>(&s)) {
      carries(w->iter_args, w->body, w->return_vars, s.span);
    } else if (const auto* i = as<IfStmt>(&s)) {
      for (const YieldStmt* y : {trailing_yield(i->then_body), trailing_yield(i->else_body)})
        for (size_t k = 0; y && k < i->return_vars.size() && k < y->values.size(); ++k)
          same(*i->return_vars[k], y->values[k], y->span, "the value yielded for it");
    }
  });
}
}  // namespace

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
    if (computes_on_chip(*f)) check_tile_aliases(env, *f);
  }
}

}  // namespace pypto::ir::verify_detail
