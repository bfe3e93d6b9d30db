// InitMemRef — gives every tile and tensor Var of a kernel a MemRef (allocation base, byte offset
// 0, size) and declares the on-chip allocations (ir-and-passes.md §5.1):
//   * tensor parameters get DDR MemRefs (a Ptr base named mem_ddr_N, no allocation);
//   * every other buffer gets its own base `mem_<space>_N` and one `tile.alloc(space, size)`
//     statement, all prepended to the kernel body in order of first appearance;
//   * size = element count × bits / 8, Acc tiles with rows rounded up to 16 (32 for INT32 on
//     910B); a tile whose shape is not static is a CompileError;
//   * sharing (one buffer for several Vars, buffer_sharing.h): a tile.store result ↔ the tensor it
//     writes; an in-place op's or a view's result (registry `output_reuses_input`, e.g.
//     tile.assemble, tile.reshape) ↔ that input; `a = b`; a loop's init, iter_arg, yielded value
//     and return_var (the carried accumulator lives in one buffer); an if's return_var and both
//     yielded values. The AllocatedMemoryAddr verifier rule checks the same relation on the
//     planned addresses.
// Orchestration functions are left alone. Produces HasMemRefs; invalidates SSAForm (reference).
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/buffer_sharing.h"
#include "passes/memref_util.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

std::string space_tag(MemorySpace s) {
  std::string n(to_string(s));
  for (auto& ch : n) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return n;
}

FunctionPtr init_function(const FunctionPtr& f, Soc soc) {
  if (!is_incore_like(f->type)) return f;
  BufferSharing sh(*f);

  struct Buffer {
    VarPtr base;
    std::optional<MemorySpace> space;  // nullopt: DDR
    int64_t size = 0;
  };
  std::unordered_map<const Var*, Buffer> buffers;  // class root → buffer
  std::vector<const Var*> buffer_order;
  std::unordered_map<const Var*, int64_t> var_size;
  int counter = 0;

  // Sizes and spaces per class.
  for (const auto& v : sh.order) {
    const Var* root = sh.uf.find(v.get());
    int64_t size = 0;
    std::optional<MemorySpace> space;
    if (const auto* tl = as_tile(v->type)) {
      auto b = tile_bytes(*tl, soc);
      if (!b)
        throw CompileError("E601", sh.def_span[v.get()].valid() ? sh.def_span[v.get()] : v->span,
                           fmt::format("tile '{}' has a dynamic shape; tile shapes must be static for memory planning",
                                       v->name),
                           "use a static tile shape and describe the dynamic extent with valid_shape");
      size = *b;
      if (!tl->space) throw InternalError("InitMemRef", fmt::format("tile '{}' has no memory space", v->name), v->span);
      space = *tl->space;
    } else if (const auto* tt = as_tensor(v->type)) {
      size = byte_size(*tt).value_or(0);
    }
    var_size[v.get()] = size;
    auto it = buffers.find(root);
    if (it == buffers.end()) {
      Buffer b;
      b.space = space;
      b.size = size;
      buffers.emplace(root, b);
      buffer_order.push_back(root);
    } else {
      it->second.size = std::max(it->second.size, size);
      if (space && !it->second.space) it->second.space = space;
    }
  }
  // Bases, named in order of first appearance with one counter per function.
  std::vector<StmtPtr> allocs;
  for (const Var* root : buffer_order) {
    Buffer& b = buffers[root];
    std::string name = fmt::format("mem_{}_{}", b.space ? space_tag(*b.space) : "ddr", counter++);
    b.base = make_var(name, ptr_type(), f->span);
    if (b.space) allocs.push_back(make_alloc_stmt(b.base, *b.space, b.size, f->span));
  }
  auto zero = make_int(0, {}, DataType::INT64);
  FunctionPtr g = retype_vars(f, [&](const Var& v) -> TypePtr {
    if (!as_shaped(v.type)) return nullptr;
    auto it = buffers.find(sh.uf.find(&v));
    if (it == buffers.end()) return nullptr;
    auto sz = var_size.find(&v);
    return with_memref_any(v.type, MemRef{it->second.base, zero, sz == var_size.end() ? it->second.size : sz->second});
  });
  if (allocs.empty()) return g;
  std::vector<StmtPtr> body = std::move(allocs);
  for (const auto& s : flatten_body(g->body)) body.push_back(s);
  return with_body(*g, make_body(std::move(body), g->body ? g->body->span : g->span));
}

}  // namespace

Pass init_memref_pass() {
  return Pass{"InitMemRef",
              "Gives every tile/tensor Var of a kernel a MemRef: DDR bases for tensor parameters, one "
              "tile.alloc per on-chip buffer prepended to the body, buffers shared by store results, "
              "in-place ops, copies, loop carries and if results.",
              {{Property::TileMemoryInferred, Property::SSAForm}, {Property::HasMemRefs}, {Property::SSAForm}},
              [](const ProgramPtr& p, PassContext& ctx) {
                return map_functions(p, [&](const FunctionPtr& f) { return init_function(f, ctx.soc); });
              }};
}

}  // namespace pypto::passes
