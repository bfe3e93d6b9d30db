// AllocateMemoryAddr — byte addresses for on-chip buffers (ir-and-passes.md §5.4), per kernel and
// per memory space: the `tile.alloc` statements are taken in order, each space starts at 0 and
// bumps `addr = align32(addr + size)`; every MemRef on that base gets `offset = base address +
// its offset` as an INT64 constant. Usage above the SoC budget (ctx.soc, ir/soc.h) is a
// CompileError naming the function, the space, the bytes needed vs the limit, and the tile whose
// buffer crossed the limit with its source line. Cross-core FIFO slot windows
// (system.reserve_buffer, mixed kernels) are placed first, from 0 in the kernel's receive space
// (Vec on an AIV, Mat on the AIC), and their address is written into base= — and into the peer
// kernel's system.import_peer_buffer of the same name. An MX scale buffer bound to a data tile
// (memref_util.h scale_bindings) is not bumped: the cube reads it at the data tile's address / 16,
// so it is placed there (data buffers with bound scales start on 512 bytes, the scale space's
// 32-byte alignment); a scale bound to data tiles at two addresses is an error. Produces
// AllocatedMemoryAddr.
#include <fmt/format.h>

#include <map>
#include <set>

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

const OpDef& op_def(const char* n) { return *OpRegistry::instance().find(n); }

// `s` with its call's base= keyword set (a reserve_buffer / import_peer_buffer statement).
StmtPtr with_base(const AssignStmt& s, int64_t base) {
  const auto& c = static_cast<const Call&>(*s.value);
  auto kw = c.kwargs;
  bool set = false;
  for (auto& [k, v] : kw)
    if (k == "base") v = AttrValue(base), set = true;
  if (!set) kw.push_back({"base", AttrValue(base)});
  auto call = std::make_shared<Call>(c.op, c.callee, c.args, std::move(kw), c.type, c.span);
  return std::make_shared<AssignStmt>(s.var, call, s.span);
}

// The reserve_buffer windows of `f` (top level), placed first in the kernel's receive space: Vec
// on an AIV, Mat on the AIC; an explicit base= is kept. Records name → address.
FunctionPtr place_windows(const FunctionPtr& f, const SocInfo& soc, std::map<MemorySpace, int64_t>& next,
                          std::map<MemorySpace, int64_t>& used, std::map<std::string, int64_t>& window_addr) {
  static const OpDef* reserve = &op_def("system.reserve_buffer");
  const MemorySpace space = f->type == FunctionType::AIC ? MemorySpace::Mat : MemorySpace::Vec;
  std::vector<StmtPtr> body;
  bool changed = false;
  for (const auto& s : flatten_body(f->body)) {
    const auto* a = as<AssignStmt>(s);
    const auto* c = a ? as<Call>(a->value) : nullptr;
    if (!c || c->op != reserve) {
      body.push_back(s);
      continue;
    }
    const int64_t size = kw_int(*c, "size", 0);
    int64_t base = kw_int(*c, "base", -1);
    if (base < 0) base = next[space];
    next[space] = std::max(next[space], align_up(base + size, soc.alignment));
    used[space] = std::max(used[space], base + size);
    window_addr[kw_string(*c, "name")] = base;
    body.push_back(with_base(*a, base));
    changed = true;
  }
  return changed ? with_body(*f, make_body(std::move(body), f->body->span)) : f;
}

// Each import_peer_buffer (top level) gets the address its peer reserved under that name.
FunctionPtr resolve_imports(const FunctionPtr& f, const std::map<std::string, std::map<std::string, int64_t>>& windows) {
  static const OpDef* import = &op_def("system.import_peer_buffer");
  std::vector<StmtPtr> body;
  bool changed = false;
  for (const auto& s : flatten_body(f->body)) {
    const auto* a = as<AssignStmt>(s);
    const auto* c = a ? as<Call>(a->value) : nullptr;
    if (!c || c->op != import) {
      body.push_back(s);
      continue;
    }
    const std::string peer = kw_string(*c, "peer_func"), name = kw_string(*c, "name");
    auto p = windows.find(peer);
    auto w = p == windows.end() ? std::map<std::string, int64_t>::const_iterator{} : p->second.find(name);
    if (p == windows.end() || w == p->second.end())
      throw CompileError("E602", s->span,
                         fmt::format("pl.system.import_peer_buffer(name=\"{}\", peer_func=\"{}\"): '{}' reserves no "
                                     "buffer of that name", name, peer, peer),
                         "the peer kernel must call pl.system.reserve_buffer(name=..., size=...) with the same name");
    body.push_back(with_base(*a, w->second));
    changed = true;
  }
  return changed ? with_body(*f, make_body(std::move(body), f->body->span)) : f;
}

FunctionPtr allocate_function(const FunctionPtr& f0, const SocInfo& soc, std::map<std::string, int64_t>& windows) {
  if (!computes_on_chip(*f0)) return f0;
  std::map<MemorySpace, int64_t> next, used;
  std::unordered_map<const Var*, int64_t> addr;
  std::vector<AllocInfo> allocs;
  const FunctionPtr f = place_windows(f0, soc, next, used, windows);
  const auto bindings = scale_bindings(*f);
  std::unordered_map<const Var*, const ScaleBinding*> scale_of;  // scale buffer → its first binding
  std::set<const Var*> scaled_data;
  for (const auto& b : bindings) {
    scale_of.emplace(b.scale_base, &b);
    scaled_data.insert(b.data_base);
  }
  std::vector<AllocInfo> derived, late;  // bound scales; unbound ones, bumped after them
  auto bump = [&](const AllocInfo& a) {
    int64_t& cur = next[a.space];
    if (scaled_data.count(a.base.get())) cur = align_up(cur, 512);
    addr[a.base.get()] = cur;
    used[a.space] = std::max(used[a.space], cur + a.size);
    cur = align_up(cur + a.size, soc.alignment);
  };
  for (const auto& s : flatten_body(f->body)) {
    auto a = as_alloc(s);
    if (!a) continue;
    allocs.push_back(*a);
    if (scale_of.count(a->base.get())) {
      derived.push_back(*a);
      continue;
    }
    if (a->space == MemorySpace::LeftScale || a->space == MemorySpace::RightScale) {
      late.push_back(*a);
      continue;
    }
    bump(*a);
  }
  for (const auto& a : derived) {
    std::optional<int64_t> at;
    for (const auto& b : bindings) {
      if (b.scale_base != a.base.get()) continue;
      auto d = addr.find(b.data_base);
      if (d == addr.end()) throw InternalError("AllocateMemoryAddr", "an MX data tile without a buffer", b.span);
      const int64_t here = (d->second + const_int_value(b.data_offset).value_or(0)) / 16;
      if (at && *at != here)
        throw CompileError("E602", b.span,
                           fmt::format("the MX scale tile '{}' is bound to data tiles at two L0 addresses, but the cube "
                                       "reads a data tile's scales at its own address / 16",
                                       b.scale_name),
                           fmt::format("move the scales again for '{}' (one pl.move per data tile)", b.data_name));
      at = here;
    }
    addr[a.base.get()] = *at;
    used[a.space] = std::max(used[a.space], *at + a.size);
    next[a.space] = std::max(next[a.space], align_up(*at + a.size, soc.alignment));
  }
  for (const auto& a : late) bump(a);
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
  if (addr.empty() && windows.empty()) return f;
  return retype_vars(f, [&](const Var& v) -> TypePtr {
    const MemRef* m = memref_of(v.type);
    if (!m || !m->base) return nullptr;
    auto it = addr.find(m->base.get());
    auto w = windows.find(m->base->name);  // a popped tile in its slot window (no tile.alloc)
    if (it == addr.end() && w == windows.end()) return nullptr;
    const int64_t at = it != addr.end() ? it->second : w->second;
    int64_t off = const_int_value(m->offset).value_or(0);
    MemRef n = *m;
    n.offset = make_int(at + off, {}, DataType::INT64);
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
                std::map<std::string, std::map<std::string, int64_t>> windows;  // function → window → address
                auto q = map_functions(p, [&](const FunctionPtr& f) { return allocate_function(f, soc, windows[f->name]); });
                return map_functions(q, [&](const FunctionPtr& f) { return resolve_imports(f, windows); });
              }};
}

}  // namespace pypto::passes
