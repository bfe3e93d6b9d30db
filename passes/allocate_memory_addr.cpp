// AllocateMemoryAddr — byte addresses for on-chip buffers (ir-and-passes.md §5.4), per kernel and
// per memory space: the `tile.alloc` statements are taken in order, each space starts at 0 and
// bumps `addr = align32(addr + size)`; every MemRef on that base gets `offset = base address +
// its offset` as an INT64 constant. Usage above the SoC budget (ctx.soc, ir/soc.h) is a
// CompileError naming the function, the space, the bytes needed vs the limit, and the tile whose
// buffer crossed the limit with its source line. Produces AllocatedMemoryAddr.
#include <fmt/format.h>

#include <map>

#include "ir/op_registry.h"
#include "ir/soc.h"
#include "passes/memref_util.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

std::string shape_text(const TileType& t) {
  std::string s;
  for (const auto& d : t.shape) {
    auto v = const_int_value(d);
    s += (s.empty() ? "" : ", ") + (v ? std::to_string(*v) : std::string("?"));
  }
  return "[" + s + "]";
}

// First binding of a Var whose MemRef uses `base` (for the overflow message).
class FirstUser : public IRVisitor {
 public:
  const Var* base;
  VarPtr var;
  Span span;
  explicit FirstUser(const Var* b) : base(b) {}

 protected:
  void visit_assign(const AssignStmt& s) override {
    if (!var) {
      const MemRef* m = memref_of(s.var->type);
      if (m && m->base.get() == base && as_tile(s.var->type)) {
        var = s.var;
        span = s.span;
      }
    }
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ForStmt& s) override {
    for (const auto& ia : s.iter_args) {
      const MemRef* m = memref_of(ia->type);
      if (!var && m && m->base.get() == base) {
        var = ia;
        span = s.span;
      }
    }
    IRVisitor::visit_for(s);
  }
};

FunctionPtr allocate_function(const FunctionPtr& f, const SocInfo& soc) {
  if (!computes_on_chip(*f)) return f;
  std::map<MemorySpace, int64_t> next, used;
  std::unordered_map<const Var*, int64_t> addr;
  std::vector<AllocInfo> allocs;
  for (const auto& s : flatten_body(f->body)) {
    auto a = as_alloc(s);
    if (!a) continue;
    int64_t& cur = next[a->space];
    addr[a->base.get()] = cur;
    used[a->space] = cur + a->size;
    cur = align_up(cur + a->size, soc.alignment);
    allocs.push_back(*a);
  }
  for (const auto& a : allocs) {
    int64_t start = addr[a.base.get()];
    int64_t cap = soc.capacity(a.space);
    if (cap <= 0 || start + a.size <= cap) continue;
    FirstUser fu(a.base.get());
    fu.visit_function(*f);
    std::string space(to_string(a.space));
    CompileError err("E602", fu.span.valid() ? fu.span : f->span,
                     fmt::format("Function '{}': {} buffer usage ({} bytes) exceeds platform limit ({} bytes)",
                                 f->name, space, used[a.space], cap),
                     fmt::format("use smaller tiles or fewer tiles live at the same time ({} holds {} bytes on {})",
                                 space, cap, soc.cli_name));
    auto diags = err.diagnostics();
    if (fu.var) {
      const auto* tl = as_tile(fu.var->type);
      diags[0].notes.push_back(
          {fu.span, fmt::format("tile '{}' ({} {}, {} bytes at offset {}) is the buffer that crosses the limit",
                                fu.var->name, tl ? shape_text(*tl) : "", tl ? dtype_name(tl->dtype) : "", a.size,
                                start)});
      diags[0].message += fmt::format("; tile '{}' at {} crosses it", fu.var->name, fu.span.to_string());
    }
    throw CompileError(std::move(diags));
  }
  if (addr.empty()) return f;
  return retype_vars(f, [&](const Var& v) -> TypePtr {
    const MemRef* m = memref_of(v.type);
    if (!m || !m->base) return nullptr;
    auto it = addr.find(m->base.get());
    if (it == addr.end()) return nullptr;
    int64_t off = const_int_value(m->offset).value_or(0);
    MemRef n = *m;
    n.offset = make_int(it->second + off, {}, DataType::INT64);
    return with_memref_any(v.type, n);
  });
}

}  // namespace

Pass allocate_memory_addr_pass() {
  return Pass{"AllocateMemoryAddr",
              "Assigns byte addresses to on-chip buffers (per memory space from 0, 32-byte aligned), "
              "writes them into the MemRef offsets and checks each space against the SoC's capacity.",
              {{Property::HasMemRefs}, {Property::AllocatedMemoryAddr}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                const SocInfo& soc = soc_info(ctx.soc);
                return map_functions(p, [&](const FunctionPtr& f) { return allocate_function(f, soc); });
              }};
}

}  // namespace pypto::passes
