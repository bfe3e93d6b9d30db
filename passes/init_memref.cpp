// InitMemRef — gives every tile and tensor Var of a kernel a MemRef (allocation base, byte offset
// 0, size) and declares the on-chip allocations (ir-and-passes.md §5.1):
//   * tensor parameters get DDR MemRefs (a Ptr base named mem_ddr_N, no allocation);
//   * every other buffer gets its own base `mem_<space>_N` and one `tile.alloc(space, size)`
//     statement, all prepended to the kernel body in order of first appearance;
//   * size = element count × bits / 8, Acc tiles with rows rounded up to 16 (32 for INT32 on
//     910B); a tile whose shape is not static is a CompileError;
//   * sharing (one buffer for several Vars): a tile.store result ↔ the tensor it writes; an
//     in-place op's or a view's result (registry `output_reuses_input`, e.g. tile.assemble,
//     tile.reshape) ↔ that input; `a = b`; a loop's init, iter_arg, yielded value and return_var
//     (the carried accumulator lives in one buffer); an if's return_var and both yielded values.
//     The AllocatedMemoryAddr verifier rule checks the same relation on the planned addresses.
//   * a window (tile.slice) shares its source's buffer and gets TileView stride [pitch, 1] and
//     start_offset (its first element: row offset × pitch + column offset, summed through
//     windows of windows); a view of a window (pl.set_validshape, a reshape of a contiguous
//     window) starts where the window starts. A window of an Acc / Mat tile (NZ fractal layout)
//     gets instead TileView buffer_shape, the physical shape of the tile it views (of the root,
//     through windows of windows): the kernel places it at its origin in that layout;
//   * first, copies where that sharing would clobber a value that is still read (SSA values must
//     survive; memref_copies.h decides on a liveness model of the kernel). A buffer may hold
//     several values over time only if every write into it — an op result, an in-place op, the
//     next iteration's carried value — comes after the last read of the values it replaces. So a
//     loop's initial value shares the carry's buffer only when it is dead once the loop starts
//     (not read in the body nor after the loop); a yielded value only when the iter_arg (or
//     another carry) is not read after the value is computed, nor by an op computing it that may
//     not write over its input (`not_inplace_safe`, e.g. recip); an if arm's yielded value only when
//     it overwrites nothing read later (both arms yielding tiles that exist before the if, or
//     `z = a` read after one arm changes `a`); an in-place op's operand only when it is not read
//     after the op (directly or through `a = b` / a view).
//     Where the answer is no, the pass inserts `c = tile.move(v, target_memory=<v's space>)` —
//     before the loop, before the yield, before the op — and shares `c` instead, so `v` keeps a
//     buffer of its own; carries that exchange their values copy through a temporary. Sites are
//     shared again one by one wherever that stays safe, so a kernel that never clobbers gets no
//     copy. The copy is a TMOV, which pto-isa has only for Vec → Vec: one needed in another space
//     is a CompileError (E603) at its site.
//   * a tile popped from the cross-core FIFO (mixed kernels) lives in its slot window: its base
//     is named after the system.reserve_buffer window (memref_util.h fifo_windows) and gets no
//     tile.alloc, so MemoryReuse leaves it alone and AllocateMemoryAddr places the window.
// Orchestration functions are left alone. Produces HasMemRefs; invalidates SSAForm (reference).
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/memref_copies.h"
#include "passes/memref_util.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class UnionFind {
 public:
  const Var* find(const Var* v) {
    auto it = parent_.find(v);
    if (it == parent_.end()) {
      parent_[v] = v;
      return v;
    }
    if (it->second == v) return v;
    const Var* r = find(it->second);
    parent_[v] = r;
    return r;
  }
  void unite(const Var* a, const Var* b) {
    const Var* ra = find(a);
    const Var* rb = find(b);
    if (ra != rb) parent_[rb] = ra;
  }

 private:
  std::unordered_map<const Var*, const Var*> parent_;
};

bool shaped_var(const ExprPtr& e) { return as<Var>(e) && as_shaped(e->type); }

// Collects the Vars in order of first binding and the sharing relation.
class Sharing : public IRVisitor {
 public:
  UnionFind uf;
  std::vector<VarPtr> order;  // tile/tensor Vars in order of first binding
  std::unordered_map<const Var*, Span> def_span;

  void bind(const VarPtr& v, const Span& at) {
    if (!v || !as_shaped(v->type)) return;
    if (def_span.emplace(v.get(), at).second) order.push_back(v);
    uf.find(v.get());
  }
  void share(const VarPtr& a, const ExprPtr& b) {
    if (a && as_shaped(a->type) && shaped_var(b)) uf.unite(a.get(), as<Var>(b));
  }

 protected:
  void visit_assign(const AssignStmt& s) override {
    bind(s.var, s.span);
    if (as<Var>(s.value)) {
      share(s.var, s.value);
    } else if (const auto* c = as<Call>(s.value); c && c->op) {
      if (as_tensor(c->type) && c->op->family() == "tile") {  // tile.store-like: writes its tensor operand
        ExprPtr out;
        for (const auto& a : c->args)
          if (as_tensor(a->type)) out = a;
        share(s.var, out);
      } else if (c->op->output_reuses_input >= 0 && c->op->output_reuses_input < int(c->args.size())) {
        share(s.var, c->args[c->op->output_reuses_input]);
      }
    }
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ForStmt& s) override {
    for (const auto& ia : s.iter_args) {
      bind(ia, s.span);
      share(ia, ia->init);
    }
    IRVisitor::visit_for(s);
    carry(s.iter_args, s.body, s.return_vars, s.span);
  }
  void visit_while(const WhileStmt& s) override {
    for (const auto& ia : s.iter_args) {
      bind(ia, s.span);
      share(ia, ia->init);
    }
    IRVisitor::visit_while(s);
    carry(s.iter_args, s.body, s.return_vars, s.span);
  }
  void carry(const std::vector<IterArgPtr>& ias, const StmtPtr& body, const std::vector<VarPtr>& rvs, const Span& at) {
    auto y = split_trailing_yield(body).second;
    for (size_t i = 0; i < rvs.size(); ++i) {
      bind(rvs[i], at);
      if (i < ias.size()) share(rvs[i], ias[i]);
      if (y && i < y->values.size()) share(rvs[i], y->values[i]);
    }
  }
  void visit_if(const IfStmt& s) override {
    IRVisitor::visit_if(s);
    auto ty = split_trailing_yield(s.then_body).second, ey = split_trailing_yield(s.else_body).second;
    for (size_t i = 0; i < s.return_vars.size(); ++i) {
      bind(s.return_vars[i], s.span);
      if (ty && i < ty->values.size()) share(s.return_vars[i], ty->values[i]);
      if (ey && i < ey->values.size()) share(s.return_vars[i], ey->values[i]);
    }
  }
};

std::string space_tag(MemorySpace s) {
  std::string n(to_string(s));
  for (auto& ch : n) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return n;
}

// Windows of a tile (tile.slice): the row pitch of the buffer they sit in and their first
// element, as the TileView's stride [pitch, 1] and start_offset. A window of a window adds up.
// A window of a tile in a fractal layout (a non-Vec source) keeps instead the physical shape of
// the tile it views (TileView buffer_shape); its origin is the slice's offsets, which the kernel
// turns into an address in that layout.
struct Window {
  ExprPtr pitch, start;
  std::vector<ExprPtr> buffer;
};
// a + b and a * b over index expressions, folding constants (0 + x, 1 * x, c1 op c2).
ExprPtr index_op(BinOp op, const ExprPtr& a, const ExprPtr& b, const Span& sp) {
  auto x = const_int_value(a), y = const_int_value(b);
  if (x && y) return make_int(op == BinOp::Add ? *x + *y : *x * *y, sp, DataType::INDEX);
  if (op == BinOp::Add && x == 0) return b;
  if (op == BinOp::Add && y == 0) return a;
  if (const auto* ab = as<Binary>(a); op == BinOp::Add && y && ab && ab->op == BinOp::Add)
    if (auto c = const_int_value(ab->b)) return index_op(BinOp::Add, ab->a, make_int(*c + *y, sp, DataType::INDEX), sp);
  if (op == BinOp::Mul && (x == 0 || y == 0)) return make_int(0, sp, DataType::INDEX);
  if (op == BinOp::Mul && x == 1) return b;
  if (op == BinOp::Mul && y == 1) return a;
  return std::make_shared<Binary>(op, a, b, scalar_type(DataType::INDEX), sp);
}
class WindowScan : public IRVisitor {
 public:
  std::unordered_map<const Var*, Window> windows;

 protected:
  void visit_assign(const AssignStmt& s) override {
    const auto* c = as<Call>(s.value);
    const bool slice = c && c->is_op("tile.slice") && c->args.size() > 2;  // (source, shape, offsets, ...)
    const auto* src = slice ? as<Var>(c->args[0]) : nullptr;
    const auto* st = src ? as_tile(src->type) : nullptr;
    const auto* offs = slice ? as<MakeTuple>(c->args[2]) : nullptr;
    const bool window = st && offs && st->shape.size() == 2 && offs->elems.size() == 2;
    if (window && st->space.value_or(MemorySpace::Vec) != MemorySpace::Vec) {
      Window w;
      if (auto it = windows.find(src); it != windows.end()) w.buffer = it->second.buffer;
      else w.buffer = st->shape;
      windows[s.var.get()] = w;
    } else if (window) {
      Window w;
      if (auto it = windows.find(src); it != windows.end()) w = it->second;
      else w = {st->shape[1], make_int(0, s.span, DataType::INDEX), {}};
      w.start = index_op(BinOp::Add, index_op(BinOp::Add, w.start, index_op(BinOp::Mul, offs->elems[0], w.pitch, s.span), s.span),
                         offs->elems[1], s.span);
      windows[s.var.get()] = w;
    } else if (const auto* vsrc = view_of_window(c)) {
      // A view of a window (its valid shape set, or reshaped) starts where the window starts:
      // at the same shape it keeps the window's pitch; reshaped, the window must be contiguous
      // (one row, or rows as wide as the pitch), and the new shape is packed from there.
      const Window& w = windows.at(vsrc);
      const auto* rt = as_tile(s.var->type);
      const auto* vt = as_tile(vsrc->type);
      if (rt && vt && rt->shape.size() == 2 && vt->shape.size() == 2) {
        const auto same = static_shape(rt->shape) == static_shape(vt->shape);
        if (!w.buffer.empty() && !same)
          throw CompileError("E501", s.span,
                             fmt::format("pl.{} of a window of a {} tile is not supported yet", c->op->name,
                                         to_string(vt->space.value_or(MemorySpace::Vec))),
                             "reshape the whole source tile");
        if (same) {
          windows[s.var.get()] = w;
        } else {
          const bool contiguous = const_int_value(vt->shape[0]) == 1 ||
                                  (const_int_value(vt->shape[1]) && const_int_value(vt->shape[1]) == const_int_value(w.pitch));
          if (!contiguous)
            throw CompileError("E501", s.span,
                               fmt::format("pl.{} of a window whose rows are not contiguous in its source tile is not "
                                           "supported yet", c->op->name),
                               "reshape the whole source tile, or a window of one row");
          windows[s.var.get()] = Window{rt->shape[1], w.start, {}};
        }
      }
    }
    IRVisitor::visit_assign(s);
  }

 private:
  // The window a view op (registry: no instruction, its result reuses operand 0) is applied to.
  const Var* view_of_window(const Call* c) const {
    if (!c || !c->op || c->args.empty() || c->op->output_reuses_input != 0 || c->op->pipe_rule != PipeRule::NotInstruction)
      return nullptr;
    const auto* v = as<Var>(c->args[0]);
    return v && windows.count(v) ? v : nullptr;
  }
};

FunctionPtr init_function(const FunctionPtr& in, Soc soc) {
  if (!computes_on_chip(*in)) return in;
  const FunctionPtr f = insert_buffer_copies(in);
  Sharing sh;
  for (const auto& p : f->params) sh.bind(p, f->span);
  sh.visit_function(*f);

  struct Buffer {
    VarPtr base;
    std::optional<MemorySpace> space;  // nullopt: DDR
    int64_t size = 0;
  };
  // Popped tiles live in their FIFO slot window (a reserve_buffer, placed by AllocateMemoryAddr).
  std::unordered_map<const Var*, FifoWindow> window_of;  // class root → window
  for (const auto& [v, w] : fifo_windows(*f)) window_of[sh.uf.find(v)] = w;
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
    if (auto w = window_of.find(root); w != window_of.end()) {
      b.base = make_var(w->second.name, ptr_type(), f->span);
      continue;
    }
    std::string name = fmt::format("mem_{}_{}", b.space ? space_tag(*b.space) : "ddr", counter++);
    b.base = make_var(name, ptr_type(), f->span);
    if (b.space) allocs.push_back(make_alloc_stmt(b.base, *b.space, b.size, f->span));
  }
  WindowScan ws;
  ws.visit_function(*f);
  auto zero = make_int(0, {}, DataType::INT64);
  FunctionPtr g = retype_vars(f, [&](const Var& v) -> TypePtr {
    if (!as_shaped(v.type)) return nullptr;
    auto it = buffers.find(sh.uf.find(&v));
    if (it == buffers.end()) return nullptr;
    auto sz = var_size.find(&v);
    TypePtr t = v.type;
    if (auto w = ws.windows.find(&v); w != ws.windows.end()) {
      auto tl = std::make_shared<TileType>(*as_tile(v.type));
      TileView view = tl->view.value_or(TileView{});
      if (!w->second.buffer.empty()) {
        view.buffer_shape = w->second.buffer;
      } else {
        view.stride = {w->second.pitch, make_int(1, v.span, DataType::INDEX)};
        view.start_offset = w->second.start;
      }
      tl->view = std::move(view);
      t = tl;
    }
    return with_memref_any(t, MemRef{it->second.base, zero, sz == var_size.end() ? it->second.size : sz->second});
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
              "in-place ops, copies, loop carries and if results; a tile.move copy first wherever that "
              "sharing would overwrite a value that is still read.",
              {{Property::TileMemoryInferred, Property::SSAForm}, {Property::HasMemRefs}, {Property::SSAForm}},
              [](const ProgramPtr& p, PassContext& ctx) {
                return map_functions(p, [&](const FunctionPtr& f) { return init_function(f, ctx.soc); });
              }};
}

}  // namespace pypto::passes
