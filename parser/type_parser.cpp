// Type annotations → ir::Type: pl.Tensor / pld.DistributedTensor / pl.Tile / pl.Scalar / pl.Out /
// pl.InOut / pl.Tuple / tuple[...] / pl.Ptr / pl.Array / pld.CommCtx, dtypes (also module
// constants holding one), shapes with symbolic dims, pl.TensorView / pl.TileView / pl.MemRef
// slots (language.md §3, ir/TEXT_FORMAT.md).
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

namespace {

std::string last_component(const std::string& dotted) {
  auto p = dotted.rfind('.');
  return p == std::string::npos ? dotted : dotted.substr(p + 1);
}

// Slots of `X[a, b, c]` (subscript) or `X(a, b, c)` (legacy call form).
std::vector<TSNode> slots_of(TSNode n) {
  if (is(n, "subscript")) return field_children(n, "subscript");
  if (is(n, "call")) {
    std::vector<TSNode> out;
    for (TSNode a : children(field(n, "arguments")))
      if (!is(a, "keyword_argument")) out.push_back(a);
    return out;
  }
  return {};
}

}  // namespace

std::optional<ir::DataType> FunctionBuilder::parse_dtype(TSNode n, bool required) {
  n = unparen(n);
  std::string d = dotted_name(n, *file_);
  std::string last = last_component(d);
  if (!d.empty() && (d.rfind("pl.", 0) == 0 || d.find('.') == std::string::npos)) {
    if (auto dt = ir::dtype_from_name(last)) return dt;
    if (last == "TaskId") return ir::DataType::TASK_ID;
  }
  if (auto dt = dtype_of_local(n)) return dt;  // a.dtype of a local tensor / tile / scalar
  // A dtype held by a constant: DTYPE = pl.BF16 in this module or a config module.
  if (d.rfind("pl.", 0) != 0)
    if (auto v = try_const(n); v && v->is_dtype()) return std::get<ir::DataType>(v->v);
  if (!d.empty() && (d.rfind("pl.", 0) == 0 || d.find('.') == std::string::npos)) {
    if (required && d.rfind("pl.", 0) == 0 && std::count(d.begin(), d.end(), '.') == 1)
      fail(n, "E105", fmt::format("Unknown dtype: {}", last),
           "dtypes are INT4..INT64, UINT4..UINT64, FP4, FP8E4M3FN, FP8E5M2, FP8E8M0, HF4, HF8, FP16, BF16, FP32, BOOL, INDEX");
  }
  // A module constant (or imported name) bound to a dtype: `dtype = pl.FP32` ... `pl.Tensor[s, dtype]`.
  if (!d.empty() && d.rfind("pl.", 0) != 0 && !names_.count(d)) {
    std::optional<ConstValue> v;
    try {
      v = try_const(n);
    } catch (const ir::CompileError&) {
      if (required) throw;
    }
    if (v && v->is_dtype()) return std::get<ir::DataType>(v->v);
  }
  if (required) fail(n, "E105", fmt::format("Unknown dtype: {}", txt(n)), "write a dtype such as pl.FP32");
  return std::nullopt;
}

static std::vector<ir::ExprPtr> parse_shape(FunctionBuilder& b, TSNode n) {
  n = unparen(n);
  std::vector<ir::ExprPtr> dims;
  if (is(n, "list") || is(n, "tuple")) {
    for (TSNode d : children(n)) dims.push_back(b.index_expr(d, "a dimension"));
    return dims;
  }
  auto v = b.try_const(n);
  if (v && v->is_list()) {
    for (const auto& d : v->as_list()) {
      if (d.is_int()) dims.push_back(ir::make_int(d.as_int(), b.sp(n)));
      else if (d.is_dyn()) dims.push_back(std::get<ir::VarPtr>(d.v));
      else b.fail(n, "E101", fmt::format("shape element {} is not an integer", d.repr()));
    }
    return dims;
  }
  b.fail(n, "E101", fmt::format("expected a shape list like [64, 128], got '{}'", b.txt(n)));
}

static std::vector<ir::ExprPtr> expr_list(FunctionBuilder& b, TSNode n, const char* what) {
  n = unparen(n);
  std::vector<ir::ExprPtr> out;
  if (!is(n, "list") && !is(n, "tuple")) return parse_shape(b, n);
  for (TSNode d : children(n)) out.push_back(b.index_expr(d, what));
  return out;
}

static ir::MemRef parse_memref(FunctionBuilder& b, TSNode call) {
  std::vector<TSNode> pos;
  std::map<std::string, TSNode> kw;
  for (TSNode a : children(field(call, "arguments"))) {
    if (is(a, "keyword_argument")) kw[b.txt(field(a, "name"))] = field(a, "value");
    else pos.push_back(a);
  }
  const char* names[] = {"base", "offset", "size"};
  TSNode slot[3] = {};
  for (size_t i = 0; i < pos.size(); ++i) {
    if (i >= 3) b.fail(pos[i], "E101", "pl.MemRef() takes (base, offset, size)");
    slot[i] = pos[i];
  }
  for (auto& [k, v] : kw) {
    int idx = k == "base" ? 0 : k == "offset" ? 1 : k == "size" ? 2 : -1;
    if (idx < 0) b.fail(v, "E101", fmt::format("Unknown keyword argument '{}' in pl.MemRef()", k));
    slot[idx] = v;
  }
  for (int i = 0; i < 3; ++i)
    if (is_null(slot[i])) b.fail(call, "E101", fmt::format("pl.MemRef() is missing '{}'", names[i]));
  ir::MemRef m;
  std::string base_name;
  TSNode base = unparen(slot[0]);
  if (string_value(base, *b.file_, base_name)) {
    auto it = b.ddr_bases_.find(base_name);
    if (it == b.ddr_bases_.end())
      it = b.ddr_bases_.emplace(base_name, ir::make_var(base_name, ir::ptr_type(), b.sp(base))).first;
    m.base = it->second;
  } else {
    auto e = b.expr(base);
    auto v = ir::as_ptr<ir::Var>(e);
    if (!v || !e->type || e->type->kind != ir::TypeKind::Ptr)
      b.fail(base, "E101", "pl.MemRef() base must be a pl.Ptr variable or a string naming a DDR base");
    m.base = v;
  }
  m.offset = b.expr(slot[1]);
  // A byte offset is INT64 (what the printer writes as pl.const(v, pl.INT64)); a bare literal says
  // the same value.
  if (const auto* c = ir::as<ir::ConstInt>(m.offset); c && c->dtype() == ir::DataType::INDEX)
    m.offset = ir::make_int(c->value, m.offset->span, ir::DataType::INT64);
  auto size = b.try_const(slot[2]);
  if (!size || !size->is_int()) b.fail(slot[2], "E101", "pl.MemRef() size must be a constant integer");
  m.size = size->as_int();
  return m;
}

static std::map<std::string, TSNode> view_kwargs(FunctionBuilder& b, TSNode call, const char* ctor,
                                                 std::initializer_list<const char*> allowed) {
  std::map<std::string, TSNode> kw;
  for (TSNode a : children(field(call, "arguments"))) {
    if (!is(a, "keyword_argument"))
      b.fail(a, "E101", fmt::format("{}() takes keyword arguments only", ctor));
    std::string k = b.txt(field(a, "name"));
    bool ok = false;
    for (const char* x : allowed) ok = ok || k == x;
    if (!ok) b.fail(a, "E101", fmt::format("Unknown keyword argument '{}' in {}()", k, ctor));
    kw[k] = field(a, "value");
  }
  return kw;
}

template <class E>
static E enum_arg(FunctionBuilder& b, TSNode n, const char* enum_name, std::optional<E> (*from)(std::string_view)) {
  std::string d = dotted_name(unparen(n), *b.file_);
  auto v = from(last_component(d));
  if (!v || d.find(enum_name) == std::string::npos)
    b.fail(n, "E101", fmt::format("expected a pl.{}.<member>, got '{}'", enum_name, b.txt(n)));
  return *v;
}

static ir::TensorView parse_tensor_view(FunctionBuilder& b, TSNode call) {
  ir::TensorView v;
  auto kw = view_kwargs(b, call, "pl.TensorView", {"stride", "layout", "valid_shape", "pad"});
  if (kw.count("stride")) v.stride = expr_list(b, kw["stride"], "a stride");
  if (kw.count("valid_shape")) v.valid_shape = expr_list(b, kw["valid_shape"], "a valid_shape entry");
  if (kw.count("layout")) v.layout = enum_arg<ir::TensorLayout>(b, kw["layout"], "TensorLayout", ir::tensor_layout_from_name);
  if (kw.count("pad")) v.pad = enum_arg<ir::PadValue>(b, kw["pad"], "PadValue", ir::pad_value_from_name);
  return v;
}

static ir::TileView parse_tile_view(FunctionBuilder& b, TSNode call) {
  ir::TileView v;
  auto kw = view_kwargs(b, call, "pl.TileView",
                        {"valid_shape", "stride", "start_offset", "buffer_shape", "blayout", "slayout", "fractal", "pad",
                         "compact"});
  if (kw.count("valid_shape")) v.valid_shape = expr_list(b, kw["valid_shape"], "a valid_shape entry");
  if (kw.count("stride")) v.stride = expr_list(b, kw["stride"], "a stride");
  if (kw.count("start_offset")) v.start_offset = b.index_expr(kw["start_offset"], "start_offset");
  if (kw.count("buffer_shape")) v.buffer_shape = expr_list(b, kw["buffer_shape"], "a buffer_shape entry");
  if (kw.count("blayout")) v.blayout = enum_arg<ir::TileLayout>(b, kw["blayout"], "TileLayout", ir::tile_layout_from_name);
  if (kw.count("slayout")) v.slayout = enum_arg<ir::TileLayout>(b, kw["slayout"], "TileLayout", ir::tile_layout_from_name);
  if (kw.count("pad")) v.pad = enum_arg<ir::PadValue>(b, kw["pad"], "PadValue", ir::pad_value_from_name);
  if (kw.count("compact")) v.compact = enum_arg<ir::CompactMode>(b, kw["compact"], "CompactMode", ir::compact_mode_from_name);
  if (kw.count("fractal")) {
    auto f = b.try_const(kw["fractal"]);
    if (!f || !f->is_int()) b.fail(kw["fractal"], "E101", "pl.TileView(fractal=) must be a constant integer");
    v.fractal = f->as_int();
  }
  return v;
}

ir::TypePtr FunctionBuilder::parse_type(TSNode ann, ir::ParamDirection* dir, const std::string& pname) {
  TSNode n = ann;
  if (is(n, "type")) {
    auto c = children(n);
    if (c.size() != 1) fail(n, "E101", fmt::format("Unsupported type annotation '{}'", txt(n)));
    n = c[0];
  }
  n = unparen(n);
  const auto& f = *file_;
  if (is(n, "generic_type")) {  // tuple[T1, T2]
    auto c = children(n);
    std::string base = c.empty() ? "" : txt(c[0]);
    if (base != "tuple" || c.size() != 2)
      fail(n, "E101", fmt::format("Unsupported type annotation '{}'", txt(n)));
    // A parameter's type is one value (pl.Tuple[...] spells a tuple parameter); a return type and a
    // local annotation (`res: tuple[A, B] = self.k(...)`) may use the builtin spelling.
    if (dir) fail(n, "E101", "tuple[...] is not allowed on a parameter; use pl.Tuple[...]");
    std::vector<ir::TypePtr> elems;
    for (TSNode t : children(c[1])) elems.push_back(parse_type(t, nullptr, pname));
    return std::make_shared<ir::TupleType>(std::move(elems));
  }
  std::string head = is(n, "subscript") ? dotted_name(field(n, "value"), f)
                     : is(n, "call")    ? dotted_name(field(n, "function"), f)
                                        : dotted_name(n, f);
  std::string kind_name = last_component(head);
  const bool generic = is(n, "subscript") || is(n, "call");
  const bool jit = ctx_.is_jit;
  if (head.empty()) fail(n, "E101", fmt::format("Unsupported type annotation '{}'", txt(n)));
  if (!generic) {
    if (kind_name == "Tensor" || kind_name == "Tile") {
      if (jit && kind_name == "Tensor" && !pname.empty())
        fail(n, "E103",
             fmt::format("cannot specialize from the signature because parameter '{}' has a bare 'pl.Tensor' "
                         "annotation with no shape",
                         pname),
             fmt::format("annotate the shape (pl.Tensor[[d0, d1], pl.FP32]) or give it: --arg {}=FP32[d0,d1]", pname));
      fail(n, "E103", fmt::format("Incomplete type annotation: {}", head),
           fmt::format("write {}[[d0, d1], pl.FP32]", head));
    }
    if (kind_name == "Scalar") fail(n, "E103", "Incomplete type annotation: " + head, "write pl.Scalar[pl.FP32]");
    if (kind_name == "Ptr") return ir::ptr_type();
    if (head == "pld.CommCtx" || head == "pld.CommCtxType") return ir::comm_ctx_type();
    if (kind_name == "DistributedTensor")
      fail(n, "E103", fmt::format("Incomplete type annotation: {}", head), "write pld.DistributedTensor[[d0, d1], pl.FP32]");
    if (kind_name == "Array")
      fail(n, "E103", fmt::format("Incomplete type annotation: {}", head), "write pl.Array[8, pl.TASK_ID]");
    if (kind_name == "TaskId") return ir::scalar_type(ir::DataType::TASK_ID);
    if (auto dt = ir::dtype_from_name(kind_name)) {
      if (jit) return ir::scalar_type(*dt);
      fail(n, "E103", "Incomplete type annotation: " + head, fmt::format("write pl.Scalar[{}]", head));
    }
    if (head.rfind("pl.", 0) == 0 && std::count(head.begin(), head.end(), '.') == 1 &&
        kind_name.size() >= 2 && std::isupper(static_cast<unsigned char>(kind_name[0])) &&
        std::isdigit(static_cast<unsigned char>(kind_name.back())))
      fail(n, "E105", "Unknown dtype: " + kind_name);
    fail(n, "E101", fmt::format("Unsupported type annotation '{}'", txt(n)),
         "use pl.Tensor[[...], dtype], pl.Tile[[...], dtype], pl.Scalar[dtype]");
  }
  auto slots = slots_of(n);
  if (kind_name == "Out" || kind_name == "InOut") {
    if (!dir) fail(n, "E101", fmt::format("pl.{}[...] is only allowed on a parameter", kind_name));
    if (slots.size() != 1) fail(n, "E101", fmt::format("pl.{}[...] takes exactly one type", kind_name));
    auto inner = parse_type(slots[0], nullptr, pname);
    if (kind_name == "InOut" && inner->kind == ir::TypeKind::Scalar)
      fail(n, "E101", "Scalar parameters cannot have InOut direction");
    *dir = kind_name == "Out" ? ir::ParamDirection::Out : ir::ParamDirection::InOut;
    return inner;
  }
  if (kind_name == "Scalar") {
    if (slots.size() != 1) fail(n, "E101", "pl.Scalar[...] takes exactly one dtype");
    return ir::scalar_type(*parse_dtype(slots[0], true));
  }
  if (kind_name == "Tuple") {
    std::vector<ir::TypePtr> elems;
    for (TSNode t : slots) elems.push_back(parse_type(t, nullptr, pname));
    return std::make_shared<ir::TupleType>(std::move(elems));
  }
  if (kind_name == "Array") {
    if (slots.size() != 2) fail(n, "E101", "pl.Array[...] takes (extent, dtype): pl.Array[8, pl.TASK_ID]");
    auto ext = try_const(slots[0]);
    if (!ext || !ext->is_int() || ext->as_int() <= 0)
      fail(slots[0], "E101", "the extent of a pl.Array must be a positive constant integer");
    return ir::array_type(*parse_dtype(slots[1], true), ext->as_int());
  }
  const bool distributed = kind_name == "DistributedTensor";
  if (distributed && head.rfind("pld.", 0) != 0)
    fail(n, "E101", fmt::format("'{}' is spelled pld.DistributedTensor", head),
         "import pypto.language.distributed as pld and write pld.DistributedTensor[[d0], pl.FP32]");
  if (distributed) kind_name = "Tensor";
  if (kind_name == "Tensor" || kind_name == "Tile") {
    if (slots.size() < 2)
      fail(n, "E103", fmt::format("Incomplete type annotation: {}", txt(n)),
           fmt::format("write {}[[d0, d1], pl.FP32]", head));
    auto shape = parse_shape(*this, slots[0]);
    auto dt = *parse_dtype(slots[1], true);
    if (kind_name == "Tensor") {
      std::optional<ir::TensorView> view;
      std::optional<ir::MemRef> memref;
      for (size_t i = 2; i < slots.size(); ++i) {
        TSNode s = unparen(slots[i]);
        std::string sd = is(s, "call") ? dotted_name(field(s, "function"), f) : dotted_name(s, f);
        std::string last = last_component(sd);
        std::string ignored;
        if (distributed && string_value(s, *file_, ignored)) {
          continue;  // a window-buffer marker string: the window comes from pld.window, not the annotation
        } else if (is(s, "call") && last == "MemRef" && !memref) {
          memref = parse_memref(*this, s);
        } else if (i == 2 && is(s, "call") && last == "TensorView") {
          if (jit) fail(s, "E101", "pl.TensorView is not allowed in a @pl.jit tensor annotation; only a layout");
          view = parse_tensor_view(*this, s);
        } else if (i == 2 && !is(s, "call")) {
          auto lay = ir::tensor_layout_from_name(last);
          if (!lay) fail(s, "E105", fmt::format("Unknown layout: {}", txt(s)), "layouts are pl.ND, pl.NZ, pl.MX_A_ZZ, pl.MX_B_NN");
          if (*lay == ir::TensorLayout::DN)
            fail(s, "E105",
                 "pl.Tensor[..., pl.DN] is not supported: the DN layout-only shorthand is ambiguous",
                 "use pl.transpose(x, -2, -1) or pl.TensorView(..., layout=pl.TensorLayout.DN)");
          if (*lay != ir::TensorLayout::ND) {
            ir::TensorView tv;
            tv.layout = *lay;
            view = tv;
          }
        } else {
          fail(s, "E101", fmt::format("unexpected slot '{}' in a pl.Tensor annotation", txt(s)),
               "slots after the dtype: a layout or pl.TensorView(...), then pl.MemRef(...)");
        }
      }
      return std::make_shared<ir::TensorType>(dt, std::move(shape), std::move(view), std::move(memref), distributed);
    }
    std::optional<ir::MemorySpace> space;
    std::optional<ir::TileView> view;
    std::optional<ir::MemRef> memref;
    for (size_t i = 2; i < slots.size(); ++i) {
      TSNode s = unparen(slots[i]);
      std::string sd = is(s, "call") ? dotted_name(field(s, "function"), f) : dotted_name(s, f);
      std::string last = last_component(sd);
      if (is(s, "call") && last == "MemRef") {
        if (memref) fail(s, "E101", "duplicate pl.MemRef slot in pl.Tile annotation");
        memref = parse_memref(*this, s);
      } else if (is(s, "call") && last == "TileView") {
        if (view) fail(s, "E101", "duplicate pl.TileView slot in pl.Tile annotation");
        view = parse_tile_view(*this, s);
      } else if (!is(s, "call") && (sd.find(".Mem.") != std::string::npos || sd.find(".MemorySpace.") != std::string::npos)) {
        auto ms = ir::memory_space_from_name(last);
        if (!ms) fail(s, "E101", fmt::format("Unknown memory space: {}", last));
        if (space) fail(s, "E101", "duplicate memory space slot in pl.Tile annotation");
        space = *ms;
      } else if (!is(s, "call") && ir::tensor_layout_from_name(last)) {
        fail(s, "E101", "a layout is not allowed in a pl.Tile annotation", "use pl.TileView(blayout=..., slayout=...)");
      } else {
        fail(s, "E101", fmt::format("unexpected slot '{}' in a pl.Tile annotation", txt(s)),
             "slots after the dtype: pl.Mem.X, pl.MemRef(...), pl.TileView(...)");
      }
    }
    return std::make_shared<ir::TileType>(dt, std::move(shape), space, std::move(view), std::move(memref));
  }
  fail(n, "E101", fmt::format("Unsupported type annotation '{}'", txt(n)));
}

}  // namespace pypto::parser
