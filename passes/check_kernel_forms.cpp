// CheckKernelForms — rejects, at their source line and before any planning or emission, the
// kernel forms the C++ tile backend cannot write yet, so that the kernel emitter only translates:
//   * the rules both back ends share (form_rules.h): `break` / `continue` (CtrlFlowTransform
//     has rewritten those of kernels), an early `return`, tuple values bound
//     to variables, `**` and floating-point `//` / `%`;
//   * ops a kernel cannot hold yet (the registry's kernel_deferred marker: deferred tile ops,
//     orchestration-side and cross-core system ops, array / prefetch / distributed ops) and
//     calls to program functions;
//   * GM windows it cannot spell: load / store offsets that are not a literal list, dynamic
//     window shapes, a load whose valid_shape is not one extent per window dim, `clamp=True`, a
//     store with an explicit window of a tile with a valid shape, a store of a tile without a
//     static 2-D shape, a 2-D tile stored into a 1-D tensor, an atomic mode other than none / add;
//   * element access (`tile.read` / `tile.write`) and `tile.assemble` offsets with other than two
//     indices, a `tile.transpose` without its tmp tile, a `tile.transpose_view` of anything but a
//     whole Mat tile in the NZ or ZN layout; a `tile.slice` window it cannot view (pad_value /
//     clamp; of a Vec tile, a first column not known to be 32-byte aligned; of an Acc / Mat
//     tile, an origin off the NZ fractal grid; any other source);
//   * an equal-shape elementwise op (registry same_shapes: tile.add, tile.and, ...) on tiles of
//     different shapes (broadcasting; the hint names the op's row / col expand form);
//   * a cross-core push / pop / free on a pipe the kernel does not initialise (no peer kernel);
//   * a tile op whose result is unused (an expression statement other than a store or a sync);
//   * a loop / if whose carried tensor changes buffers (form_rules.h);
//   * a kernel parameter that is neither a tensor nor a scalar;
//   * tiles the kernel types cannot spell: a memory space other than Vec / Mat / Left / Right /
//     Acc / Bias, a shape that is not static 2-D; GM tensors a load / store cannot view: rank
//     other than 1..5, a window of another rank, a non-ND layout;
//   * functions no core runs: Group and Spmd functions (InCore ones are AIV / AIC by now), and
//     tiles in a function that is not a kernel (an Opaque `@pl.function` with tile ops: nothing
//     gives its tiles on-chip memory).
// Each is an E501 "not supported yet" error naming the op and the form. The program is not
// changed. Requires MixedKernelExpanded (kernels are AIV / AIC functions).
#include <fmt/format.h>

#include <set>

#include "ir/op_registry.h"
#include "ir/verify_util.h"
#include "passes/divisibility.h"
#include "passes/form_rules.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// Whether the window `shapes` (a literal list) equals `valid`, all of them constants.
bool same_static_extents(const std::vector<ExprPtr>& valid, const ExprPtr& shapes) {
  const auto* t = as<MakeTuple>(shapes);
  if (!t || t->elems.size() != valid.size()) return false;
  for (size_t k = 0; k < valid.size(); ++k) {
    const auto a = const_int_value(valid[k]), b = const_int_value(t->elems[k]);
    if (!a || !b || *a != *b) return false;
  }
  return true;
}

bool literal_list(const ExprPtr& e) { return as<MakeTuple>(e) != nullptr; }

bool static_list(const ExprPtr& e) {
  const auto* t = as<MakeTuple>(e);
  if (!t) return false;
  for (const auto& x : t->elems)
    if (!const_int_value(x)) return false;
  return true;
}

size_t list_size(const ExprPtr& e) {
  const auto* t = as<MakeTuple>(e);
  return t ? t->elems.size() : 0;
}

bool spelled_space(std::optional<MemorySpace> s) {
  if (!s) return true;  // Vec
  switch (*s) {
    case MemorySpace::Vec:
    case MemorySpace::Mat:
    case MemorySpace::Left:
    case MemorySpace::Right:
    case MemorySpace::Acc:
    case MemorySpace::Bias:
    case MemorySpace::LeftScale:
    case MemorySpace::RightScale: return true;
    default: return false;
  }
}

// Whether `l` is the NZ fractal layout (column-major blocks of row-major 16-row fractals: Acc,
// and Mat tiles), and the width of its fractal in elements of `dt` (16 FP32 in Acc, 32 bytes in Mat).
bool nz_layout(const TileLayouts& l) { return l.blayout == TileLayout::col_major && l.slayout == TileLayout::row_major; }
int64_t nz_fractal_cols(const TileLayouts& l, DataType dt) { return l.fractal / (16 * std::max(1, dtype_bits(dt) / 8)); }

class FormChecker : public FormRules {
 public:
  explicit FormChecker(const Function& f) : div_(f) {}

  [[noreturn]] void reject(const Span& sp, const std::string& what, const std::string& hint = {}) override {
    throw CompileError("E501", sp, what + " is not supported yet in a kernel", hint);
  }

  // The symbols of tile valid shapes (the kernel declares each tile with them), once every
  // binding is known.
  void check_valid_shapes() {
    for (const auto& [t, sp] : valid_shaped_) {
      stmt_span_ = sp;
      for (const auto& e : t->view->valid_shape) visit(e);
    }
  }

 protected:
  bool carries(const TypePtr& t) const override { return as_tile(t) || FormRules::carries(t); }

  void check_binding(const Var& v, const Span& sp) override {
    FormRules::check_binding(v, sp);
    const auto* t = as_tile(v.type);
    if (!t) return;
    if (!spelled_space(t->space)) reject(sp, fmt::format("a tile in memory space {} ('{}')", to_string(*t->space), v.name));
    const auto shape = static_shape(t->shape);
    if (!shape || shape->size() != 2) reject(sp, fmt::format("a tile that is not 2-D with a static shape ('{}')", v.name));
    if (t->view && !t->view->valid_shape.empty()) valid_shaped_.emplace_back(t, sp);
  }

  // The GM tensor of a load / store, viewed with a window of `window_rank` extents.
  void check_gm_tensor(const Call& c, const ExprPtr& tensor, size_t window_rank) {
    const auto* t = as_tensor(tensor->type);
    if (!t) return;
    const std::string& n = c.op->name;
    const size_t rank = t->shape.size();
    if (rank == 0 || rank > 5) reject(c.span, fmt::format("pl.{} on a tensor of rank {} (GM views have rank 1..5)", n, rank));
    if (window_rank != rank)
      reject(c.span, fmt::format("pl.{} with a {}-D window into a {}-D tensor", n, window_rank, rank));
    const bool mx = t->view && (t->view->layout == TensorLayout::MX_A_ZZ || t->view->layout == TensorLayout::MX_B_NN);
    if (mx && n != "tile.load") reject(c.span, fmt::format("pl.{} on an MX scale tensor (only loads of its scales)", n));
    if (t->view && t->view->layout != TensorLayout::ND && !mx)
      reject(c.span, fmt::format("pl.{} on a non-ND tensor layout", n));
  }

  // A tile.slice is a view into its source's buffer. Of a Vec tile: a Tile as wide as the source,
  // at an element offset, with the valid extents its valid_shape gives — 2-D offsets, no pad /
  // clamp, and a first column the 32-byte alignment of Vec tiles allows (a constant, or a runtime
  // offset known to be a multiple of it). Of a tile in the NZ
  // fractal layout (Acc, a Mat tile): the source's Tile at the offset of the window's origin in
  // that layout, which needs the origin on the fractal grid: rows a multiple of 16 and columns a
  // multiple of the fractal's width (16 elements of Acc, 32 bytes of Mat), constants or runtime
  // offsets known to be such multiples (Divisibility).
  void check_window(const Call& c) {
    const Span& sp = c.span;
    const auto* src = as_tile(c.args[0]->type);
    if (list_size(c.args[2]) != 2) reject(sp, "pl.tile.slice with other than 2 offsets");
    const AttrValue* pad = c.kwarg("pad_value");
    if (pad && std::get_if<PadValue>(pad) && *std::get_if<PadValue>(pad) != PadValue::null)
      reject(sp, "pl.tile.slice with a pad_value");
    if (kw_true(c, "clamp")) reject(sp, "pl.tile.slice(clamp=True)");
    const auto* offs = as<MakeTuple>(c.args[2]);
    if (src && src->space.value_or(MemorySpace::Vec) != MemorySpace::Vec) return check_fractal_window(c, *src, *offs);
    if (!src) reject(sp, "pl.tile.slice of a value that is not a tile");
    const auto col = const_int_value(offs->elems[1]);
    const int64_t bits = dtype_bits(src->dtype);
    if (col && (*col * bits / 8) % 32 != 0)
      reject(sp, fmt::format("pl.tile.slice at column {} ({} bytes into a row; Vec tiles start on 32-byte boundaries)", *col,
                             *col * bits / 8));
    // A runtime first column: one known to be a multiple of 32 bytes of elements.
    if (!col && (bits <= 0 || 256 % bits != 0 || !div_.multiple_of(offs->elems[1], 256 / bits)))
      reject(sp, fmt::format("pl.tile.slice at a runtime column offset not known to be a multiple of {} (32 bytes of {})",
                             bits > 0 ? 256 / bits : 0, dtype_name(src->dtype)),
             "slice at a constant first column, or at a loop index stepping by a multiple of 32 bytes");
  }

  void check_fractal_window(const Call& c, const TileType& src, const MakeTuple& offs) {
    const Span& sp = c.span;
    const std::string space = fmt::format("{} {}", *src.space == MemorySpace::Acc ? "an" : "a", to_string(*src.space));
    const TileLayouts l = effective_layouts(src, false);
    const bool nz = nz_layout(l);
    if ((src.space != MemorySpace::Acc && src.space != MemorySpace::Mat) || !nz)
      reject(sp, fmt::format("pl.tile.slice of {} tile{}", space, nz ? "" : " outside the NZ layout"),
             "slice the tile in Vec memory, or load the window from GM");
    const int64_t inner_cols = nz_fractal_cols(l, src.dtype);
    if (!div_.multiple_of(offs.elems[0], 16))
      reject(sp, fmt::format("pl.tile.slice of {} tile at a first row not known to be a multiple of 16", space),
             "start the window on the 16-row fractal grid (a constant, or a loop index stepping by a multiple of 16)");
    if (inner_cols <= 0 || !div_.multiple_of(offs.elems[1], inner_cols))
      reject(sp, fmt::format("pl.tile.slice of {} tile at a first column not known to be a multiple of {} (the fractal's "
                             "width in {} elements)", space, inner_cols, dtype_name(src.dtype)),
             fmt::format("start the window on a multiple of {} columns", inner_cols));
  }

  // tile.gather_row TLOADs GM rows into a window of its destination, placed as a tile.slice
  // window is: a Vec or NZ Mat destination, its first column on the 32-byte / fractal grid (any
  // row: the rows of both layouts start 32 bytes apart), constant extents, a 2-D GM source.
  void check_gather_row(const Call& c) {
    const Span& sp = c.span;
    if (kw_true(c, "transpose")) reject(sp, "pl.tile.gather_row(transpose=True)");
    const auto* dst = as_tile(c.args[0]->type);
    const auto* src = as_tensor(c.args[1]->type);
    if (!src || src->shape.size() != 2) reject(sp, "pl.tile.gather_row from a GM tensor that is not 2-D");
    if (!static_list(c.args[4])) reject(sp, "pl.tile.gather_row with a runtime shape", "gather a constant [rows, cols] block");
    const auto* offs = as<MakeTuple>(c.args[2]);
    const MemorySpace space = dst && dst->space ? *dst->space : MemorySpace::Vec;
    const TileLayouts l = dst ? effective_layouts(*dst, false) : TileLayouts{};
    if (!dst || !offs || (space != MemorySpace::Vec && !(space == MemorySpace::Mat && nz_layout(l))))
      reject(sp, fmt::format("pl.tile.gather_row into a {} tile", to_string(space)), "gather into a Mat (pl.create_l1) or Vec tile");
    const int64_t cols = space == MemorySpace::Mat ? nz_fractal_cols(l, dst->dtype) : 32 / std::max(1, dtype_bits(dst->dtype) / 8);
    if (cols <= 0 || !div_.multiple_of(offs->elems[1], cols))
      reject(sp, fmt::format("pl.tile.gather_row at a first column not known to be a multiple of {}", cols),
             fmt::format("write the rows from a column that is a multiple of {}", cols));
  }

  // An equal-shape elementwise instruction (registry same_shapes: TADD, TAND, ...) on tiles of
  // different shapes: the type rule's numpy broadcasting, which the instruction does not compute.
  void check_same_shapes(const Call& c) {
    const ShapedType* first = nullptr;
    for (size_t i = 0; i < c.args.size() && i < c.op->args.size(); ++i) {
      const auto* t = c.args[i] ? as_tile(c.args[i]->type) : nullptr;
      if (!t || c.op->args[i].scratch) continue;
      if (!first) {
        first = t;
        continue;
      }
      const auto s0 = static_shape(first->shape), s1 = static_shape(t->shape);
      if (!s0 || !s1 || *s0 == *s1) continue;
      std::string hint = "give both operands one shape";
      if (c.op->row_broadcast && c.op->col_broadcast)
        hint = fmt::format("use {}(t, row) to apply a [1, C] row to every row of t, or {}(t, col) to apply an "
                           "[R, 1] column to every column (the vector second)",
                           op_spelling(c.op->col_broadcast->name), op_spelling(c.op->row_broadcast->name));
      reject(c.span, fmt::format("pl.{} of tiles of shapes {} and {} (broadcasting; its instruction needs equal shapes)",
                                 c.op->name, shape_text(*s0), shape_text(*s1)), hint);
    }
  }

  static std::string shape_text(const std::vector<int64_t>& s) {
    std::string out;
    for (auto d : s) out += (out.empty() ? "" : ", ") + std::to_string(d);
    return "[" + out + "]";
  }

  void visit_eval(const EvalStmt& s) override {
    const auto* c = as<Call>(s.expr);
    const auto* no_value = c ? as_tuple(c->type) : nullptr;
    const bool effect = c && c->op &&
                        (c->op->pipe_rule == PipeRule::Store || c->op->family() == "system" ||
                         c->op->family() == "prefetch" ||  // issued for its effect on L2; the event may go unused
                         (no_value && no_value->elems.empty()));
    if (c && c->op && !effect) reject(s.span, fmt::format("pl.{} with an unused result", c->op->name),
                                      "assign the result to a variable and use it");
    FormRules::visit_eval(s);
  }

  // The cross-core pipes the kernel initialises (system.aic / aiv_initialize_pipe, by id).
 public:
  void note_pipes(const Function& f) {
    struct Inits : IRVisitor {
      std::set<int64_t>* ids;
      void visit_call(const Call& c) override {
        if (c.op && (c.op->name == "system.aic_initialize_pipe" || c.op->name == "system.aiv_initialize_pipe"))
          ids->insert(kw_int(c, "id", 0));
        IRVisitor::visit_call(c);
      }
    } v;
    v.ids = &pipes_;
    v.visit(f.body);
  }

 protected:
  void visit_call(const Call& c) override {
    FormRules::visit_call(c);
    const Span& sp = c.span;
    if (!c.op)
      reject(sp, fmt::format("a call to function '{}'", c.callee),
             "make it an @pl.inline function, or call it from the orchestration function");
    // A push / pop / free has a peer only on a pipe the kernel set up (ExpandMixedKernel does so
    // for the halves of a mixed kernel).
    if (c.op->cross_core && !pipes_.count(kw_int(c, "id", 0)))
      reject(sp, fmt::format("pl.{} on pipe {}, which this kernel does not initialise,", c.op->name, kw_int(c, "id", 0)),
             "put the cube and the vector work in one pl.at scope: the compiler splits it into AIC and AIV halves and "
             "connects them");
    if (!c.op->kernel_deferred.empty()) reject(sp, fmt::format("pl.{}", c.op->name));
    if (c.op->kernel_gm_scalar) check_gm_tensor(c, c.args[0], list_size(c.args[1]));  // a scalar load from GM
    if (c.op->family() != "tile") return;
    const std::string& n = c.op->name;
    if (c.op->same_shapes) check_same_shapes(c);
    if (n == "tile.load") {
      if (!literal_list(c.args[1])) reject(sp, "pl.tile.load with non-literal offsets");
      if (!static_list(c.args[2])) reject(sp, "pl.tile.load with a dynamic window shape", "use static window shapes");
      if (c.args.size() > 3 && c.args[3]) {
        const auto* shape = as<MakeTuple>(c.args[2]);
        const auto* valid = as<MakeTuple>(c.args[3]);
        if (!valid || !shape || valid->elems.size() != shape->elems.size())
          reject(sp, "pl.tile.load with a valid_shape that is not a list of one extent per window dim");
      }
      if (kw_true(c, "clamp")) reject(sp, "pl.tile.load(clamp=True)");
      check_gm_tensor(c, c.args[0], list_size(c.args[2]));
    } else if (c.op->pipe_rule == PipeRule::Store) {
      if (!literal_list(c.args[1])) reject(sp, fmt::format("pl.{} with non-literal offsets", n));
      const auto* tt = as_tile(c.args[0]->type);
      const auto* gt = as_tensor(c.args[2]->type);
      if (c.args.size() > 3 && c.args[3]) {
        if (!static_list(c.args[3])) reject(sp, fmt::format("pl.{} with a dynamic window shape", n));
        check_gm_tensor(c, c.args[2], list_size(c.args[3]));
      } else {
        const auto ts = tt ? static_shape(tt->shape) : std::nullopt;
        if (!ts || ts->size() != 2) reject(sp, fmt::format("pl.{} of a tile without a static 2-D shape", n));
        if (gt && gt->shape.size() == 1 && (*ts)[0] != 1) reject(sp, fmt::format("pl.{} of a 2-D tile into a 1-D tensor", n));
        if (gt) check_gm_tensor(c, c.args[2], gt->shape.size());
      }
      // A window other than the tile's valid region: TSTORE writes exactly the valid region (a
      // window equal to a static valid shape says the same thing).
      if (tt && tt->view && !tt->view->valid_shape.empty() && c.args.size() > 3 && c.args[3] &&
          !same_static_extents(tt->view->valid_shape, c.args[3]))
        reject(sp, fmt::format("pl.{} with an explicit window of a tile with a valid shape", n),
               "store the tile without a window: TSTORE writes its valid region");
      if (atomic_mode(c) == AtomicMode::Other)
        reject(sp, fmt::format("pl.{} with atomic mode {}", n, std::get<EnumLit>(*c.kwarg("atomic")).member),
               "atomic= takes pl.AtomicType.None_ or pl.AtomicType.Add");
    } else if (n == "tile.ci") {
      // pto-isa's TCI fills a 1-row tile (static_assert Rows == 1).
      const auto* tt = as_tile(c.type);
      const auto rows = tt && !tt->shape.empty() ? const_int_value(tt->shape[0]) : std::nullopt;
      if (rows != 1)
        reject(sp, "pl.tile.ci of a tile with more than one row",
               "TCI fills one row: write pl.tile.ci(start, [1, R * C]) and pl.reshape it to [R, C] (the same row-major ramp)");
    } else if (n == "tile.read" || n == "tile.write") {
      if (list_size(c.args[1]) != 2 || !static_shape(as_tile(c.args[0]->type)->shape))
        reject(sp, fmt::format("pl.{} with other than 2 indices into a static tile", n));
    } else if (n == "tile.assemble") {
      if (list_size(c.args[2]) != 2) reject(sp, "pl.tile.assemble with other than 2 offsets");
    } else if (n == "tile.slice") {
      check_window(c);
    } else if (n == "tile.gather_row") {
      check_gather_row(c);
    } else if (n == "tile.transpose_view") {
      // The CPU runtime and the NPU agree on one dual pair: a Mat tile's NZ and ZN layouts.
      const auto* src = as_tile(c.args[0]->type);
      const TileLayouts l = src ? effective_layouts(*src, false) : TileLayouts{};
      const bool nz = nz_layout(l);
      const bool zn = l.blayout == TileLayout::row_major && l.slayout == TileLayout::col_major;
      if (!src || src->space != MemorySpace::Mat || !(nz || zn) || (src->view && !src->view->stride.empty()))
        reject(sp, "pl.tile.transpose_view of a tile other than a whole Mat tile",
               "load the operand with pl.load(..., target_memory=pl.Mem.Mat) and view that tile");
    } else if (n == "tile.transpose") {
      if (c.args.size() < 4 || !c.args[3])
        reject(sp, "pl.tile.transpose without a tmp tile", "pass a scratch tile shaped like the input");
    }
  }

 private:
  std::vector<std::pair<const TileType*, Span>> valid_shaped_;
  std::set<int64_t> pipes_;
  const Divisibility div_;  // of the function being checked (window origins)
};

void check_function(const Program& p, const Function& f) {
  FormChecker checker(f);
  checker.note_pipes(f);
  checker.check_function(p, f, "kernel parameter");
  checker.check_valid_shapes();
}

}  // namespace

Pass check_kernel_forms_pass() {
  return Pass{"CheckKernelForms",
              "Rejects, at their source line, the kernel forms the C++ tile backend cannot write yet (while / "
              "break / continue / early return, tuple values, float floor division, ops without a "
              "kernel form, function calls, non-literal or dynamic GM windows, load valid_shape or clamp, "
              "stores of dynamically valid tiles, equal-shape elementwise ops on broadcasting tiles, element access and assemble offsets other than 2-D, transpose "
              "without tmp, unused tile-op results, parameters other than tensors and scalars, tiles outside the spelled "
              "memory spaces or not static 2-D, GM views of rank above 5 or with a non-ND layout or dynamic strides, "
              "element types without a C++ spelling, dynamic dimensions no parameter carries, Spmd functions and "
              "Group functions other than one AIC + one AIV half, tiles outside kernels); changes nothing.",
              {{Property::MixedKernelExpanded}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions) {
                  if (f->type == FunctionType::AIV || f->type == FunctionType::AIC) {
                    check_function(*p, *f);
                    continue;
                  }
                  // Only kernels get on-chip memory (InitMemRef, AllocateMemoryAddr).
                  verify_detail::for_each_binding(*f, [&](const Var& v, const Span& sp) {
                    if (as_tile(v.type))
                      throw CompileError(
                          "E501", sp.valid() ? sp : f->span,
                          fmt::format("a tile ('{}') in function '{}' of type {}, which is not a kernel", v.name,
                                      f->name, to_string(f->type)),
                          "tiles live in kernels: declare the function @pl.function(type=pl.FunctionType.InCore), "
                          "or write the work in a pl.at scope");
                  });
                  if (f->type == FunctionType::Group && mixed_group_members(*p, *f)) continue;
                  if (f->type == FunctionType::Group || f->type == FunctionType::Spmd)
                    throw CompileError("E501", f->span,
                                       fmt::format("a {} function ('{}') is not supported yet", to_string(f->type), f->name),
                                       "write kernels as InCore functions or pl.at scopes");
                }
                return p;
              }};
}

}  // namespace pypto::passes
