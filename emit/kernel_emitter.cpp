// Kernel emitter (kernel_emitter.h). Translates statement by statement on top of the shared
// statement printer (c_printer.h: names, for / if / yield, scalar carries, which GM pointer each
// tensor-valued SSA name stands for); its own bookkeeping is the type aliases (one `using` per
// distinct Tile / GlobalTensor type, in order of first use) and which tiles are declared.
#include "emit/kernel_emitter.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <unordered_map>

#include "emit/c_expr.h"
#include "emit/c_names.h"
#include "emit/c_printer.h"
#include "emit/kernel_op_table.h"
#include "emit/kernel_types.h"
#include "ir/ir.h"
#include "ir/soc.h"
#include "ir/visitor.h"

namespace pypto::emit {

using namespace ir;

std::string kernel_core_dir(const Function& f) {
  if (f.type == FunctionType::AIV) return "aiv";
  if (f.type == FunctionType::AIC) return "aic";
  unreachable_form("kernel emitter", f.span, fmt::format("a kernel of type {} ('{}')", to_string(f.type), f.name),
                   "MixedKernelExpanded (InCore kernels are AIV / AIC) or CheckKernelForms (Group / Spmd functions)");
}

namespace {

// A form a pass, a type rule or a verifier rule rejects reached the emitter: a pypto bug, not a
// user error.
[[noreturn]] void unreachable(const Span& sp, const std::string& what, std::string_view by = "CheckKernelForms") {
  unreachable_form("kernel emitter", sp, what, by);
}
// Planned addresses: AllocatedMemoryAddr, verified before rendering.
constexpr std::string_view kAddressRule = "the AllocatedMemoryAddr verifier rule";
constexpr std::string_view kTypeRule = "its type rule";
// The kernel parameter (and kernel_entry local) holding the task's SDMA workspace (prefetch contexts).
constexpr const char* kSdmaWorkspace = "pypto_sdma_workspace";

std::vector<int64_t> const_list(const ExprPtr& e, const Span& sp, const char* what) {
  std::vector<int64_t> out;
  const auto* t = as<MakeTuple>(e);
  if (!t) unreachable(sp, std::string("a non-literal ") + what);
  for (const auto& x : t->elems) {
    auto v = const_int_value(x);
    if (!v) unreachable(sp, std::string("a dynamic ") + what);
    out.push_back(*v);
  }
  return out;
}

class KernelEmitter : CStmtPrinter {
 public:
  KernelEmitter(const Function& f, const EmitOptions& o)
      : CStmtPrinter("a kernel"), f_(f), opts_(o), soc_(soc_info(o.soc)) {}

  std::string run() {
    const std::string core = kernel_core_dir(f_);
    fname_ = sanitize_identifier(f_.name);
    names_.reserve(fname_);
    // Parameters: tensors first (pointers), then scalars.
    std::vector<std::string> params;
    for (const auto& p : f_.params) {
      if (const auto* t = as_tensor(p->type)) {
        const std::string n = names_.name(p.get());
        bind_handle(*p, n);
        params.push_back(fmt::format("__gm__ {}* {}", c_type(t->dtype), n));
      } else if (!as_scalar(p->type)) {
        unreachable(p->span, fmt::format("kernel parameter '{}' of a non-tensor, non-scalar type", p->name));
      }
    }
    for (const auto& p : f_.params)
      if (const auto* s = as_scalar(p->type)) params.push_back(fmt::format("{} {}", c_type(s->dtype), names_.name(p.get())));
    // Dynamic dimensions of tensor parameters: one int64_t each, read from the descriptor.
    dims_ = descriptor_dims(f_, names_);
    for (const auto& d : dims_) params.push_back(fmt::format("int64_t {}", names_.name(d.var)));
    // The launch geometry the body reads (SPMD block index, block count, AIV lane): trailing
    // int32_t parameters, in that order, which kernel_entry reads from the runtime's context.
    // A body that makes a prefetch context takes the task's SDMA workspace, read by kernel_entry
    // from the runtime, before the launch-geometry trailers.
    sdma_ = kernel_uses_sdma(f_);
    if (sdma_) params.push_back(fmt::format("__gm__ int8_t* {}", kSdmaWorkspace));
    launch_ = launch_ids(f_);
    for (const auto& l : launch_) params.push_back(fmt::format("int32_t {}", l.param));
    // Body.
    indent_ = 1;
    const auto stmts = flatten_body(f_.body);
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (i + 1 == stmts.size() && as<ReturnStmt>(stmts[i])) break;
      stmt(stmts[i]);
    }
    // Assemble the file.
    std::string out = fill_template(load_template(opts_, "kernel_prologue.cpp.in"),
                                    {{"name", f_.name}, {"source", source_name()}});
    if (!launch_.empty() || sdma_)
      out += "#include \"intrinsic.h\"  // get_block_idx(args), get_dma_workspace(args, kind): the runtime's per-task context\n";
    out += '\n';
    out += floor_helpers("__aicore__");
    out += '\n';
    for (const auto& a : alias_defs_) out += a + "\n";
    if (!alias_defs_.empty()) out += "\n";
    const auto [unpack, call] = entry_args();
    out += fill_template(load_template(opts_, "kernel_entry.cpp.in"),
                         {{"fname", fname_}, {"params", fmt::format("{}", fmt::join(params, ", "))},
                          {"fence", core == "aiv" ? "__DAV_VEC__" : "__DAV_CUBE__"},
                          {"core_setup", core == "aiv" ? load_template(opts_, "kernel_vector_setup.cpp.in") : ""},
                          {"body", body_},
                          {"unpack", unpack}, {"call", call}});
    return out;
  }

 private:
  std::string source_name() const {
    return f_.span.valid() ? std::filesystem::path(f_.span.filename()).filename().string() : std::string("<ir>");
  }


  // ---- types ----
  std::string alias(const std::string& base, const std::string& text) {
    auto it = alias_by_text_.find(text);
    if (it != alias_by_text_.end()) return it->second;
    const std::string n = names_.fresh(base);
    alias_by_text_[text] = n;
    alias_defs_.push_back(fmt::format("using {} = {};", n, text));
    return n;
  }

  std::string tile_alias(const TileType& t, const Span& sp) {
    const auto spell = tile_type_spelling(t, soc_, sp);
    return alias(spell.alias_base, spell.text);
  }

  int64_t tile_addr(const TileType& t, const Span& sp) {
    const auto off = t.memref ? const_int_value(t.memref->offset) : std::nullopt;
    if (!off) unreachable(sp, "a tile without a planned address (MemRef offset)", kAddressRule);
    return *off;
  }

  // The address of the window at `origin` of a tile of type `t` at `base`: the origin's offset
  // in t's layout as the tile API computes it (GetTileOffset, which gives the NZ fractal
  // offset on the NPU and the CPU runtime's storage offset there).
  std::string window_address(const std::string& base, const TileType& t, const std::vector<ExprPtr>& origin,
                             const Span& sp) {
    return fmt::format("({} + GetTileOffset<{}>({}, {}) * {})", base, tile_alias(t, sp), expr(origin[0]), expr(origin[1]),
                       dtype_bits(t.dtype) / 8);
  }

  // Declares the Tile object of `v` at its planned address (once), or at `at` (a window of a
  // fractal-layout tile: its source's address plus its origin's offset in that layout).
  void declare_tile(const Var& v, const Span& sp, const std::string& at = {}) {
    if (declared_.count(&v)) return;
    declared_.insert(&v);
    const auto* t = as_tile(v.type);
    const std::string a = tile_alias(*t, sp);
    const auto shape = *static_shape(t->shape);
    std::string vr = std::to_string(shape[0]), vc = std::to_string(shape[1]);
    if (t->view && t->view->valid_shape.size() == 2) {
      vr = expr(t->view->valid_shape[0]);
      vc = expr(t->view->valid_shape[1]);
    }
    const std::string n = names_.name(&v);
    // A window of another tile's buffer (tile.slice) sits start_offset elements past its base.
    std::string addr = std::to_string(tile_addr(*t, sp));
    if (t->view && t->view->start_offset && const_int_value(t->view->start_offset) != 0)
      addr = fmt::format("({} + ({}) * {})", addr, expr(t->view->start_offset), dtype_bits(t->dtype) / 8);
    if (!at.empty()) addr = at;
    addrs_[&v] = addr;
    line(fmt::format("{} {}({}, {}); TASSIGN({}, (uint64_t){});", a, n, vr, vc, n, addr));
  }

  // ---- GM views ----
  // Declares a GlobalTensor view of `tensor` at `offsets` with window `window`; returns
  // {type alias, variable name}.
  // A window extent that is not a constant (a dynamic valid region) and a tensor with dynamic
  // strides make a GlobalTensor with -1 in its type and the values in its constructor.
  std::pair<std::string, std::string> gm_view(const ExprPtr& tensor, const std::vector<ExprPtr>& offsets,
                                              const std::vector<ExprPtr>& window, const std::string& base_name,
                                              const Span& sp) {
    const auto* tt = as_tensor(tensor->type);
    const size_t n = tt->shape.size();
    if (offsets.size() != n) unreachable(sp, "a GM window whose offsets do not match the tensor's rank", kTypeRule);
    const auto view = gm_view_spelling(*tt, window, [this](const ExprPtr& e) { return expr(e); }, sp);
    const std::string a = alias(view.type.alias_base, view.type.text);
    std::vector<std::string> terms;
    for (size_t k = 0; k < n; ++k) {
      if (const_int_value(offsets[k]) == 0) continue;
      const std::string o = expr(offsets[k]);
      terms.push_back(view.strides[k] == "1" ? o : fmt::format("{} * {}", o, view.strides[k]));
    }
    const std::string g = names_.fresh(base_name + "_gm");
    const std::string& ptr = handle(tensor);
    std::string args = terms.empty() ? ptr : fmt::format("{} + ({})", ptr, fmt::join(terms, " + "));
    if (!view.shape_arg.empty()) args += ", " + view.shape_arg + ", " + view.stride_arg;
    line(fmt::format("{} {}({});", a, g, args));
    return {a, g};
  }

  static std::vector<ExprPtr> int_list(const std::vector<int64_t>& v) {
    std::vector<ExprPtr> out;
    for (int64_t x : v) out.push_back(make_int(x));
    return out;
  }

  // ---- statements ----
  void scope(const ScopeStmt& s) override {
    line("{");
    ++indent_;
    stmt(s.body);
    --indent_;
    line("}");
  }

  void eval(const EvalStmt& s) override {
    const auto* c = as<Call>(s.expr);
    if (!c || !c->op) unreachable(s.span, "this expression statement in a kernel");
    const KernelOpRow* row = find_kernel_op(*c->op);
    if (row && (row->form == OpForm::Store || row->form == OpForm::Barrier || row->form == OpForm::Flag ||
                row->form == OpForm::PipeInit || row->form == OpForm::FifoPush || row->form == OpForm::FifoFree ||
                row->form == OpForm::Prefetch || row->form == OpForm::PrefetchWait || row->form == OpForm::SyncAll))
      return op_call(nullptr, *c, s.span);
    unreachable(s.span, fmt::format("pl.{} with an unused result", c->op->name));
  }

  void sync_op(const KernelOpRow& row, const Call& c, const Span& sp) {
    if (row.form == OpForm::Barrier) return line(fmt::format("{};", row.call));
    auto pipe = [&](const char* k) {
      const AttrValue* v = c.kwarg(k);
      const auto* e = v ? std::get_if<EnumLit>(v) : nullptr;
      if (!e) unreachable(sp, fmt::format("pl.{} without {}", c.op->name, k), kTypeRule);
      return "PIPE_" + e->member;
    };
    const AttrValue* ev = c.kwarg("event_id");
    const auto* id = ev ? std::get_if<int64_t>(ev) : nullptr;
    if (!id || *id < 0 || *id > 7) unreachable(sp, fmt::format("pl.{} with an event id outside 0..7", c.op->name), kTypeRule);
    line(fmt::format("{}({}, {}, EVENT_ID{});", row.call, pipe("set_pipe"), pipe("wait_pipe"), *id));
  }

  void assign(const AssignStmt& s) override {
    const Var& v = *s.var;
    if (const auto* c = as<Call>(s.value)) {
      if (!c->op) unreachable(s.span, "a function call inside a kernel");
      return op_call(&v, *c, s.span);
    }
    if (as_tensor(v.type)) return bind_handle(v, handle(s.value));  // tensor copy: same GM pointer
    if (as_tile(v.type)) {
      const auto* src = as<Var>(s.value);
      const auto* st = src ? as_tile(src->type) : nullptr;
      if (!st || tile_addr(*st, s.span) != tile_addr(*as_tile(v.type), s.span))
        unreachable(s.span, "a tile copy between different addresses", kAddressRule);
      return declare_tile(v, s.span);
    }
    if (as_scalar(v.type)) return assign_scalar(v, s.value);
    unreachable(s.span, "an assignment of this type in a kernel");
  }

  // The C++ name of a handle-valued result (a prefetch context / event / session), bound as the
  // Var's handle; a fresh name for a bare call's unused result.
  std::string handle_name(const Var* dst, const std::string& fallback) {
    if (!dst) return names_.fresh(fallback);
    const std::string n = names_.name(dst);
    bind_handle(*dst, n);
    return n;
  }

  std::string operand(const ExprPtr& e) {
    if (as_tile(e->type)) {
      const auto* v = as<Var>(e);
      if (!v) unreachable(e->span, "a tile operand that is not a variable", "NoNestedCall (verified before rendering)");
      return names_.name(v);
    }
    return expr(e);
  }

  std::string flat_index(const ExprPtr& tile, const ExprPtr& idx, const Span& sp) {
    const auto* tup = as<MakeTuple>(idx);
    const auto* tt = as_tile(tile->type);
    const auto shape = static_shape(tt->shape);
    if (!tup || tup->elems.size() != 2 || !shape) unreachable(sp, "element access with other than 2 indices");
    return fmt::format("{} * {} + {}", expr(tup->elems[0]), tile_row_pitch(*tt, sp), expr(tup->elems[1]));
  }

  // The flat element index of a scalar GM access `c` (tensor.read / tensor.write: tensor, indices).
  std::string gm_element(const Call& c, const Span& sp) {
    const auto* tt = as_tensor(c.args[0]->type);
    const auto* idx = as<MakeTuple>(c.args[1]);
    if (!tt || !idx || idx->elems.size() != tt->shape.size())
      unreachable(sp, fmt::format("pl.{} without one index per dimension", c.op->name), kTypeRule);
    const std::vector<int64_t> unit(tt->shape.size(), 1);
    const auto strides = gm_view_spelling(*tt, int_list(unit), [this](const ExprPtr& e) { return expr(e); }, sp).strides;
    std::vector<std::string> terms;
    for (size_t k = 0; k < strides.size(); ++k)
      if (const_int_value(idx->elems[k]) != 0)
        terms.push_back(strides[k] == "1" ? expr(idx->elems[k]) : fmt::format("({}) * {}", expr(idx->elems[k]), strides[k]));
    return terms.empty() ? std::string("0") : fmt::format("{}", fmt::join(terms, " + "));
  }

  void op_call(const Var* dst, const Call& c, const Span& sp) {
    const KernelOpRow* row = find_kernel_op(*c.op);
    if (!row) unreachable(sp, fmt::format("pl.{} in a kernel", c.op->name));  // marked kernel_deferred
    if (row->form == OpForm::Planned) return;  // addresses are already planned
    if (row->form == OpForm::Barrier || row->form == OpForm::Flag) return sync_op(*row, c, sp);
    if (const std::string cm = source_comment(sp); !cm.empty()) line(cm);
    const std::string call(row->call);
    auto dst_tile = [&]() -> std::string {
      if (!dst || !as_tile(dst->type)) unreachable(sp, fmt::format("pl.{} without a tile result", c.op->name), kTypeRule);
      declare_tile(*dst, sp);
      return names_.name(dst);
    };
    std::vector<std::string> ops;
    switch (row->form) {
      case OpForm::DstArgs:
        for (const auto& a : c.args) ops.push_back(operand(a));
        return line(fmt::format("{}({}, {});", call, dst_tile(), fmt::join(ops, ", ")));
      case OpForm::DstDropFirst:
        for (size_t i = 1; i < c.args.size(); ++i) ops.push_back(operand(c.args[i]));
        return line(fmt::format("{}({}, {});", call, dst_tile(), fmt::join(ops, ", ")));
      case OpForm::DstFirstOnly: return line(fmt::format("{}({}, {});", call, dst_tile(), operand(c.args[0])));
      case OpForm::SubView: {
        // The declaration is the view: the same buffer, start_offset elements in (InitMemRef).
        const auto* src = as_tile(c.args[0]->type);
        if (!dst || !as_tile(dst->type) || tile_addr(*src, sp) != tile_addr(*as_tile(dst->type), sp))
          unreachable(sp, fmt::format("pl.{} whose result does not share its source's buffer", c.op->name), kAddressRule);
        const auto* dt = as_tile(dst->type);
        if (dt->view && !dt->view->buffer_shape.empty()) {
          // A window of a fractal-layout tile: its origin's offset in the source's layout, as
          // the tile API computes it (GetTileOffset), from the source's own address.
          const auto* offs = c.args.size() > 2 ? as<MakeTuple>(c.args[2]) : nullptr;
          if (!offs || offs->elems.size() != 2) unreachable(sp, "a window without 2 offsets", kTypeRule);
          const auto* sv = as<Var>(c.args[0]);
          const auto it = sv ? addrs_.find(sv) : addrs_.end();
          const std::string base = it != addrs_.end() ? it->second : std::to_string(tile_addr(*src, sp));
          declare_tile(*dst, sp, window_address(base, *src, offs->elems, sp));
          return;
        }
        dst_tile();
        return;
      }
      case OpForm::View: {
        // A view must alias its source (the sync analysis treats it as moving no data).
        const auto* src = as_tile(c.args[0]->type);
        if (!dst || !as_tile(dst->type) || tile_addr(*src, sp) != tile_addr(*as_tile(dst->type), sp))
          unreachable(sp, fmt::format("pl.{} whose result does not share its source's address", c.op->name), kAddressRule);
        return line(fmt::format("{}({}, {});", call, dst_tile(), operand(c.args[0])));
      }
      case OpForm::ColSum:
        if (c.args.size() > 1)
          return line(fmt::format("{}({}, {}, {}, true);", call, dst_tile(), operand(c.args[0]), operand(c.args[1])));
        return line(fmt::format("{}({}, {});", call, dst_tile(), operand(c.args[0])));
      case OpForm::Transpose:
        if (c.args.size() < 4) unreachable(sp, "pl.tile.transpose without a tmp tile");
        return line(fmt::format("{}({}, {}, {});", call, dst_tile(), operand(c.args[0]), operand(c.args[3])));
      case OpForm::Full: {
        const std::string d = dst_tile();
        const AttrValue* v = c.kwarg("value");
        double val = 0;
        if (const auto* f = v ? std::get_if<double>(v) : nullptr) val = *f;
        else if (const auto* i = v ? std::get_if<int64_t>(v) : nullptr) val = static_cast<double>(*i);
        else unreachable(sp, "pl.tile.full without a numeric value", kTypeRule);
        const auto* tt = as_tile(dst->type);
        const std::string lit = dtype_is_float(tt->dtype) ? expr(make_float(val, sp, DataType::FP32))
                                                          : expr(make_int(static_cast<int64_t>(val), sp));
        return line(fmt::format("{}({}, static_cast<{}>({}));", call, d, c_type(tt->dtype), lit));
      }
      case OpForm::Cast: return line(fmt::format("{}({}, {}, {});", call, dst_tile(), operand(c.args[0]), round_mode(c, sp)));
      case OpForm::Extract:
        return line(fmt::format("{}({}, {}, {}, {});", call, dst_tile(), operand(c.args[0]), expr(c.args[1]),
                                expr(c.args[2])));
      case OpForm::Assemble: {
        const auto* tgt = as_tile(c.args[0]->type);
        if (tile_addr(*tgt, sp) != tile_addr(*as_tile(dst->type), sp))
          unreachable(sp, "pl.tile.assemble whose result does not share the target's buffer", kAddressRule);
        const auto* off = as<MakeTuple>(c.args[2]);
        if (!off || off->elems.size() != 2) unreachable(sp, "pl.tile.assemble with other than 2 offsets");
        return line(fmt::format("{}({}, {}, {}, {});", call, dst_tile(), operand(c.args[1]), expr(off->elems[0]),
                                expr(off->elems[1])));
      }
      case OpForm::MatmulAcc:
        return line(fmt::format("{}({}, {}, {}, {});", call, dst_tile(), operand(c.args[0]), operand(c.args[1]),
                                operand(c.args[2])));
      case OpForm::Load: return load(dst, c, sp);
      case OpForm::GatherRow: return gather_row(dst, c, sp);
      case OpForm::Store: return store(dst, c, sp);
      case OpForm::Read: {
        if (!dst || !as_scalar(dst->type)) unreachable(sp, "pl.tile.read without a scalar result", kTypeRule);
        const std::string n = names_.name(dst);
        return line(fmt::format("{} {} = {}.GetValue({});", c_type(as_scalar(dst->type)->dtype), n, operand(c.args[0]),
                                flat_index(c.args[0], c.args[1], sp)));
      }
      case OpForm::GmRead: {
        if (!dst || !as_scalar(dst->type))
          unreachable(sp, "pl.tensor.read without a scalar result and one index per dimension", kTypeRule);
        // PYPTO_GM_LOAD: `ptr[index]`, checked against the kernel's tensors on the CPU runtime.
        return line(fmt::format("{} {} = PYPTO_GM_LOAD({}, {});", c_type(as_scalar(dst->type)->dtype), names_.name(dst),
                                handle(c.args[0]), gm_element(c, sp)));
      }
      case OpForm::GmWrite: {
        if (c.args.size() != 3 || !as_scalar(c.args[2]->type)) unreachable(sp, "pl.tensor.write without a scalar value", kTypeRule);
        const auto* tt = as_tensor(c.args[0]->type);
        // PYPTO_GM_STORE: `ptr[index] = value`, checked like PYPTO_GM_LOAD; the result is the tensor written.
        line(fmt::format("PYPTO_GM_STORE({}, {}, static_cast<{}>({}));", handle(c.args[0]), gm_element(c, sp),
                         c_type(tt->dtype), expr(c.args[2])));
        if (dst) bind_handle(*dst, handle(c.args[0]));
        return;
      }
      case OpForm::Write: {
        const std::string d = dst_tile();
        return line(fmt::format("{}.SetValue({}, {});", d, flat_index(c.args[0], c.args[1], sp), expr(c.args[2])));
      }
      case OpForm::DeclareOnly: dst_tile(); return;
      case OpForm::Cmp: {
        for (const auto& a : c.args) ops.push_back(operand(a));
        static constexpr std::string_view kModes[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
        const AttrValue* m = c.kwarg("cmp_type");
        const auto* k = m ? std::get_if<int64_t>(m) : nullptr;
        const int64_t mode = k ? *k : 0;
        if (mode < 0 || mode > 5) unreachable(sp, fmt::format("pl.{} with cmp_type {}", c.op->name, mode), kTypeRule);
        return line(fmt::format("{}({}, {}, CmpMode::{});", call, dst_tile(), fmt::join(ops, ", "), kModes[mode]));
      }
      case OpForm::Ci: {
        const std::string d = dst_tile();
        const auto* tt = as_tile(dst->type);
        const AttrValue* desc = c.kwarg("descending");
        const bool down = desc && std::get_if<bool>(desc) && *std::get_if<bool>(desc);
        return line(fmt::format("{}<{}, {}, {}>({}, static_cast<{}>({}));", call, tile_alias(*tt, sp), c_type(tt->dtype),
                                down ? 1 : 0, d, c_type(tt->dtype), expr(c.args[0])));
      }
      case OpForm::Tri: {
        const std::string d = dst_tile();
        const AttrValue* up = c.kwarg("upper");
        const bool upper = up && std::get_if<bool>(up) && *std::get_if<bool>(up);
        return line(fmt::format("{}<{}, {}>({}, static_cast<int>({}));", call, tile_alias(*as_tile(dst->type), sp),
                                upper ? 1 : 0, d, expr(c.args[0])));
      }
      case OpForm::MaskGather:
      case OpForm::MaskScatter: {
        static constexpr std::string_view kPatterns[] = {"", "P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"};
        const AttrValue* m = c.kwarg("mask_pattern");
        const auto* k = m ? std::get_if<int64_t>(m) : nullptr;
        if (!k || *k < 1 || *k > 7) unreachable(sp, "a mask_pattern outside 1..7");  // the type rule checks it
        const std::string d = dst_tile();
        if (row->form == OpForm::MaskScatter)
          return line(fmt::format("{}<MaskPattern::{}>({}, {});", call, kPatterns[*k], d, operand(c.args[1])));
        return line(fmt::format("{}<{}, {}, MaskPattern::{}>({}, {});", call, tile_alias(*as_tile(dst->type), sp),
                                tile_alias(*as_tile(c.args[0]->type), sp), kPatterns[*k], d, operand(c.args[0])));
      }
      case OpForm::MergeLists: {
        // The merged list in dst (tmp, the last operand, is the instruction's scratch); the
        // per-list counts pto-isa reports go to a local nothing reads (exhausted= only stops early).
        const std::string d = dst_tile();
        std::vector<std::string> types = {tile_alias(*as_tile(dst->type), sp), tile_alias(*as_tile(c.args.back()->type), sp)};
        ops.push_back(operand(c.args.back()));
        for (size_t i = 0; i + 1 < c.args.size(); ++i) {
          types.push_back(tile_alias(*as_tile(c.args[i]->type), sp));
          ops.push_back(operand(c.args[i]));
        }
        const bool exhausted = c.kwarg_true("exhausted");
        const std::string counts = names_.fresh(d + "_executed");
        line(fmt::format("MrgSortExecutedNumList {};", counts));
        return line(fmt::format("{}<{}, {}>({}, {}, {});", call, fmt::join(types, ", "), exhausted ? "true" : "false", d,
                                counts, fmt::join(ops, ", ")));
      }
      case OpForm::LaunchId: {
        if (!dst || !as_scalar(dst->type)) unreachable(sp, fmt::format("pl.{} without a scalar result", c.op->name), kTypeRule);
        std::string param;
        for (const auto& l : launch_)
          if (l.op == c.op->name) param = l.param;
        const std::string val = fmt::format("static_cast<{}>({})", c_type(as_scalar(dst->type)->dtype), param);
        if (names_.has(dst)) return line(fmt::format("{} = {};", names_.name(dst), val));
        return line(fmt::format("const {} {} = {};", c_type(as_scalar(dst->type)->dtype), names_.name(dst), val));
      }
      case OpForm::PipeInit: return pipe_init(call, c, sp);
      case OpForm::BufferAddr: {
        const int64_t base = int_kw(c, "base", -1);
        if (!dst || base < 0) unreachable(sp, fmt::format("pl.{} without a placed base", c.op->name), "AllocateMemoryAddr");
        return line(fmt::format("const int32_t {} = {};", names_.name(dst), base));
      }
      case OpForm::FifoPush:
        return line(fmt::format("{}<{}, {}, {}>({}, {});", call, pipe(c, sp).type, tile_alias(*as_tile(c.args[0]->type), sp),
                                split_axis(c), pipe(c, sp).var, operand(c.args[0])));
      case OpForm::FifoPop: {
        const std::string d = dst_tile();
        return line(fmt::format("{}<{}, {}, {}>({}, {});", call, pipe(c, sp).type, tile_alias(*as_tile(dst->type), sp),
                                split_axis(c), pipe(c, sp).var, d));
      }
      case OpForm::FifoFree:
        return line(fmt::format("{}<{}, {}>({});", call, pipe(c, sp).type, split_axis(c), pipe(c, sp).var));
      case OpForm::PrefetchContext:
        return line(fmt::format("{0} {1} = {0}(reinterpret_cast<__gm__ uint8_t*>({2}));", call, handle_name(dst, "prefetch_ctx"),
                                kSdmaWorkspace));
      case OpForm::Prefetch: {
        const auto* t = as_tensor(c.args[0]->type);
        if (!t) unreachable(sp, "pl.prefetch.async_prefetch of a non-tensor", kTypeRule);
        std::vector<ExprPtr> zeros(t->shape.size(), make_int(0, sp));
        const std::string evt = handle_name(dst, "prefetch_evt");
        const std::string g = gm_view(c.args[0], zeros, t->shape, evt, sp).second;
        return line(fmt::format("pto::comm::AsyncEvent {} = {}({}, {});", evt, call, g, handle(c.args[1])));
      }
      case OpForm::PrefetchSession:
        return line(fmt::format("pto::comm::AsyncSession {} = {}.session;", handle_name(dst, "prefetch_session"),
                                handle(c.args[0])));
      case OpForm::PrefetchWait: {
        const std::string w = fmt::format("{}.Wait({})", handle(c.args[0]), handle(c.args[1]));
        if (!dst) return line(fmt::format("(void){};", w));
        return line(fmt::format("const bool {} = {};", names_.name(dst), w));
      }
      case OpForm::SyncAll: {
        const std::string_view ct = c.kwarg_string("core_type");
        const char* who = ct == "aiv_only" ? "AIVOnly" : ct == "aic_only" ? "AICOnly" : "Mix";
        if (c.kwarg_string("mode") != "soft") return line(fmt::format("{}<pto::SyncCoreType::{}>();", call, who));
        const auto* t = c.args.empty() || !c.args[0] ? nullptr : as_tensor(c.args[0]->type);
        if (!t) unreachable(sp, "a soft pl.system.syncall without its GM workspace", kTypeRule);
        std::vector<ExprPtr> zeros(t->shape.size(), make_int(0, sp));
        const std::string g = gm_view(c.args[0], zeros, t->shape, "syncall_ws", sp).second;
        const std::string used = c.args.size() > 1 && c.args[1] ? expr(c.args[1]) : "0";
        return line(fmt::format("{}<pto::SyncAllMode::Soft, pto::SyncCoreType::{}>({}, {});", call, who, g, used));
      }
      case OpForm::Planned:
      case OpForm::Barrier:
      case OpForm::Flag: return;  // handled above
    }
  }

  // ---- cross-core FIFO (mixed kernels): one TPipe object per pipe id
  struct PipeName {
    std::string type, var;
  };
  static int64_t int_kw(const Call& c, const char* k, int64_t dflt) {
    const AttrValue* v = c.kwarg(k);
    const auto* i = v ? std::get_if<int64_t>(v) : nullptr;
    return i ? *i : dflt;
  }
  static std::string split_axis(const Call& c) {
    static constexpr std::string_view kAxes[] = {"TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT", "TILE_UP_DOWN_ODD",
                                                 "TILE_LEFT_RIGHT_ODD"};
    const int64_t s = int_kw(c, "split", 0);
    return fmt::format("TileSplitAxis::{}", kAxes[s >= 0 && s <= 4 ? s : 0]);
  }
  const PipeName& pipe(const Call& c, const Span& sp) {
    auto it = pipes_.find(int_kw(c, "id", 0));
    if (it == pipes_.end())
      unreachable(sp, fmt::format("pl.{} on pipe {}, which this kernel does not initialise", c.op->name, int_kw(c, "id", 0)),
                  "ExpandMixedKernel (a pipe init per pipe id)");
    return it->second;
  }
  void pipe_init(const std::string& call, const Call& c, const Span& sp) {
    static constexpr std::string_view kDirs[] = {"", "DIR_C2V", "DIR_V2C", "DIR_BOTH"};
    const int64_t id = int_kw(c, "id", 0), mask = int_kw(c, "dir_mask", 0);
    if (pipes_.count(id) || mask < 1 || mask > 3) unreachable(sp, fmt::format("a second or malformed init of pipe {}", id), kTypeRule);
    PipeName n{names_.fresh(fmt::format("Pipe{}", id)), names_.fresh(fmt::format("pipe{}", id))};
    auto buf = [&](size_t i) { return i < c.args.size() && c.args[i] ? expr(c.args[i]) : std::string("0"); };
    line(fmt::format("using {} = {}<{}, Direction::{}, {}, {}, {}, {}>;", n.type, call, id, kDirs[mask],
                     int_kw(c, "slot_size", 0), int_kw(c, "slot_num", 2), int_kw(c, "local_slot_num", 2),
                     int_kw(c, "split", 0) == 0 ? "true" : "false"));
    const std::string gm = c.args.size() > 2 && c.args[2] ? fmt::format("(__gm__ void*){}", handle(c.args[2])) : "nullptr";
    line(fmt::format("{} {}({}, static_cast<uint32_t>({}), static_cast<uint32_t>({}));", n.type, n.var, gm, buf(0), buf(1)));
    pipes_.emplace(id, std::move(n));
  }

  std::string round_mode(const Call& c, const Span& sp) {
    static constexpr std::string_view kModes[] = {"none", "rint", "round", "floor", "ceil", "trunc", "odd"};
    static constexpr std::string_view kNames[] = {"CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR",
                                                  "CAST_CEIL", "CAST_TRUNC", "CAST_ODD"};
    const AttrValue* m = c.kwarg("mode");
    int idx = 2;
    if (const auto* s = m ? std::get_if<std::string>(m) : nullptr) {
      idx = -1;
      for (int i = 0; i < 7; ++i)
        if (kModes[i] == *s) idx = i;
    } else if (const auto* i = m ? std::get_if<int64_t>(m) : nullptr) {
      idx = (*i >= 0 && *i < 7) ? static_cast<int>(*i) : -1;
    }
    if (idx < 0) unreachable(sp, "this pl.tile.cast mode", kTypeRule);
    return fmt::format("RoundMode::{}", kNames[idx]);
  }

  // The extents a TLOAD reads: the window `shape` (argument `shape_arg`), or the valid_shape
  // after it when given (the valid region: the GM view's extents; the tile's type carries them).
  std::vector<ExprPtr> load_extents(const Call& c, size_t shape_arg, const Span& sp) {
    const std::string what = fmt::format("pl.{} shape", c.op->name);
    const auto window = const_list(c.args[shape_arg], sp, what.c_str());
    if (c.args.size() <= shape_arg + 1 || !c.args[shape_arg + 1]) return int_list(window);
    const auto* v = as<MakeTuple>(c.args[shape_arg + 1]);
    if (!v || v->elems.size() != window.size())
      unreachable(sp, fmt::format("pl.{} with a valid_shape of another rank", c.op->name), kTypeRule);
    return v->elems;
  }

  void load(const Var* dst, const Call& c, const Span& sp) {
    if (!dst || !as_tile(dst->type)) unreachable(sp, "pl.tile.load without a tile result", kTypeRule);
    const std::vector<ExprPtr> extents = load_extents(c, 2, sp);
    if (c.kwarg("clamp") && std::get_if<bool>(c.kwarg("clamp")) && *std::get_if<bool>(c.kwarg("clamp")))
      unreachable(sp, "pl.tile.load(clamp=True)");
    declare_tile(*dst, sp);
    const std::string t = names_.name(dst);
    const auto* offs = as<MakeTuple>(c.args[1]);
    if (!offs) unreachable(sp, "pl.tile.load with non-literal offsets");
    const std::string g = gm_view(c.args[0], offs->elems, extents, t, sp).second;
    line(fmt::format("TLOAD({}, {});", t, g));
  }

  // tile.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape]): the result is dst
  // (the same buffer); a window of it at dst_offset — dst's Tile at GetTileOffset, as a window of
  // a fractal tile is placed — TLOADs the GM rows at src_offset.
  void gather_row(const Var* dst, const Call& c, const Span& sp) {
    if (!dst || !as_tile(dst->type)) unreachable(sp, "pl.tile.gather_row without a tile result", kTypeRule);
    const auto* dt = as_tile(c.args[0]->type);
    const auto* doffs = as<MakeTuple>(c.args[2]);
    const auto* soffs = as<MakeTuple>(c.args[3]);
    if (!dt || !doffs || !soffs || doffs->elems.size() != 2) unreachable(sp, "pl.tile.gather_row with non-literal offsets");
    const std::vector<ExprPtr> extents = load_extents(c, 4, sp);
    if (extents.size() != 2) unreachable(sp, "pl.tile.gather_row with a block of other than 2 extents", kTypeRule);
    declare_tile(*dst, sp);
    const std::string w = names_.name(dst) + "_rows";
    line(fmt::format("{} {}({}, {}); TASSIGN({}, (uint64_t){});", tile_alias(*dt, sp), w, expr(extents[0]), expr(extents[1]),
                     w, window_address(addrs_.at(dst), *dt, doffs->elems, sp)));
    const std::string g = gm_view(c.args[1], soffs->elems, extents, w, sp).second;
    line(fmt::format("TLOAD({}, {});", w, g));
  }

  void store(const Var* dst, const Call& c, const Span& sp) {
    const auto* tt = as_tile(c.args[0]->type);
    const auto* gt = as_tensor(c.args[2]->type);
    const auto offs = as<MakeTuple>(c.args[1]);
    if (!offs) unreachable(sp, "pl.tile.store with non-literal offsets");
    std::vector<ExprPtr> window;
    if (c.args.size() > 3 && c.args[3]) {
      window = int_list(const_list(c.args[3], sp, "store shape"));
    } else {
      const auto ts = static_shape(tt->shape);
      if (!ts || ts->size() != 2) unreachable(sp, "pl.tile.store of a tile without a static 2-D shape");
      // TSTORE writes the tile's valid region: the GM view has its valid extents.
      std::vector<ExprPtr> rc = {make_int((*ts)[0]), make_int((*ts)[1])};
      if (tt->view && tt->view->valid_shape.size() == 2) rc = tt->view->valid_shape;
      const size_t n = gt->shape.size();
      if (n == 1) {
        if ((*ts)[0] != 1) unreachable(sp, "pl.tile.store of a 2-D tile into a 1-D tensor");
        window = {rc[1]};
      } else {
        window = int_list(std::vector<int64_t>(n, 1));
        window[n - 2] = rc[0];
        window[n - 1] = rc[1];
      }
    }
    const std::string t = operand(c.args[0]);
    const auto [ga, g] = gm_view(c.args[2], offs->elems, window, t, sp);
    switch (atomic_mode(c)) {
      case AtomicMode::Add:
        line(fmt::format("TSTORE<{}, {}, AtomicType::AtomicAdd>({}, {});", tile_alias(*tt, sp), ga, g, t));
        break;
      case AtomicMode::None: line(fmt::format("TSTORE({}, {});", g, t)); break;
      case AtomicMode::Other: unreachable(sp, "this pl.tile.store atomic mode");
    }
    if (dst && as_tensor(dst->type)) bind_handle(*dst, handle(c.args[2]));
  }

  // ---- carried tiles: a loop / if result lives in the buffer of the value it carries ----
  void same_buffer(const ExprPtr& v, const TileType& t, const Span& sp, const char* what) {
    const auto* vv = as<Var>(v);
    const auto* vt = vv ? as_tile(vv->type) : nullptr;
    if (!vt || tile_addr(*vt, sp) != tile_addr(t, sp)) unreachable(sp, what, kAddressRule);
  }
  void carry_in(const Var& ia, const ExprPtr& init, const Span& sp) override {
    const auto* t = as_tile(ia.type);
    if (!t) return CStmtPrinter::carry_in(ia, init, sp);
    same_buffer(init, *t, sp, "a loop-carried tile whose initial value lives in another buffer");
    declare_tile(ia, sp);
  }
  void carry_out(const Var& target, const ExprPtr& yielded, const Span& sp) override {
    const auto* t = as_tile(target.type);
    if (!t) return CStmtPrinter::carry_out(target, yielded, sp);
    same_buffer(yielded, *t, sp, "a yielded tile in another buffer than the carried one");
  }
  void declare_result(const Var& rv, const Span& sp) override {
    if (as_tile(rv.type)) return declare_tile(rv, sp);
    CStmtPrinter::declare_result(rv, sp);
  }
  void bind_result(const Var& rv, const Var& from, const Span& sp) override {
    if (as_tile(rv.type)) return declare_tile(rv, sp);
    CStmtPrinter::bind_result(rv, from, sp);
  }

  // ---- kernel_entry: unpacking the task's args (the fixed text is templates/kernel_entry.cpp.in) ----
  std::pair<std::string, std::string> entry_args() {
    std::string out;
    std::vector<std::string> call, descs;
    int k = 0;
    for (const auto& p : f_.params) {
      const auto* t = as_tensor(p->type);
      if (!t) continue;
      const std::string n = names_.name(p.get());
      const std::string d = names_.fresh(n + "_tensor");
      descs.push_back(d);
      const std::string ty = c_type(t->dtype);
      out += fmt::format("    __gm__ ChipTensor* {} = reinterpret_cast<__gm__ ChipTensor*>(args[{}]);\n", d, k++);
      out += fmt::format("    __gm__ {0}* {1} = reinterpret_cast<__gm__ {0}*>({2}->buffer.addr) + {2}->start_offset;\n",
                         ty, n, d);
      call.push_back(n);
    }
    for (const auto& p : f_.params) {
      const auto* s = as_scalar(p->type);
      if (!s) continue;
      const std::string n = names_.name(p.get());
      const std::string b = names_.fresh(n + "_bits");
      out += fmt::format("    union {{ uint64_t u64; {} val; }} {};\n", c_type(s->dtype), b);
      out += fmt::format("    {}.u64 = static_cast<uint64_t>(args[{}]);\n", b, k++);
      call.push_back(b + ".val");
    }
    for (const auto& dim : dims_) {
      const std::string n = names_.name(dim.var);
      out += fmt::format("    int64_t {} = static_cast<int64_t>({}->shapes[{}]);\n", n, descs[dim.tensor], dim.axis);
      call.push_back(n);
    }
    if (sdma_) {
      out += fmt::format("    __gm__ int8_t* {} = reinterpret_cast<__gm__ int8_t*>(get_dma_workspace(args, DMA_WORKSPACE_SDMA));\n",
                         kSdmaWorkspace);
      call.push_back(kSdmaWorkspace);
    }
    for (const auto& l : launch_) call.push_back(fmt::format("{}(args)", l.call));
    return {out, fmt::format("{}", fmt::join(call, ", "))};
  }

  // The launch-geometry ops `f` calls, in trailer order (block index, block count, lane).
  struct LaunchParam {
    std::string op, call, param;
  };
  static std::vector<LaunchParam> launch_ids(const Function& f) {
    struct Uses : IRVisitor {
      std::set<std::string> ops;
      void visit_call(const Call& c) override {
        if (c.op && c.op->family() == "tile")
          if (const KernelOpRow* r = find_kernel_op(*c.op); r && r->form == OpForm::LaunchId) ops.insert(c.op->name);
        IRVisitor::visit_call(c);
      }
    } u;
    u.visit_function(f);
    std::vector<LaunchParam> out;
    for (const auto& [op, param] : {std::pair<const char*, const char*>{"tile.get_block_idx", "pypto_block_idx"},
                                    {"tile.get_block_num", "pypto_block_num"},
                                    {"tile.get_subblock_idx", "pypto_subblock_idx"}})
      if (u.ops.count(op)) {
        const auto* d = OpRegistry::instance().find(op);
        out.push_back({op, std::string(find_kernel_op(*d)->call), param});
      }
    return out;
  }

  const Function& f_;
  const EmitOptions& opts_;
  const SocInfo& soc_;
  std::vector<DescriptorDim> dims_;  // where kernel_entry reads them: tensor parameter index, axis
  std::vector<LaunchParam> launch_;  // the launch-geometry trailers the body reads
  bool sdma_ = false;                // the body makes a prefetch context: the SDMA workspace parameter
  std::map<int64_t, PipeName> pipes_;  // cross-core FIFO pipes by id (PipeInit)
  std::string fname_;
  std::vector<std::string> alias_defs_;
  std::map<std::string, std::string> alias_by_text_;
  std::set<const Var*> declared_;
  std::map<const Var*, std::string> addrs_;  // each declared tile's address expression
};

}  // namespace

std::string emit_kernel(const Function& f, const EmitOptions& opts) { return KernelEmitter(f, opts).run(); }

bool kernel_uses_sdma(const Function& f) {
  struct Uses : IRVisitor {
    bool found = false;
    void visit_call(const Call& c) override {
      const KernelOpRow* r = c.op ? find_kernel_op(*c.op) : nullptr;
      if (r && r->form == OpForm::PrefetchContext) found = true;
      IRVisitor::visit_call(c);
    }
  } u;
  u.visit_function(f);
  return u.found;
}

}  // namespace pypto::emit
