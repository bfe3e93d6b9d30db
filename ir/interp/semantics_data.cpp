// Reference semantics of the data-movement ops: GM ↔ tile (load, store), views and windows
// (tensor.slice is a view of the same storage; tile.slice copies), assemble, element access,
// reshape, transpose, concat, move, gather / scatter (by index and by mask pattern), sort32, and
// the shape queries. Every window is checked against its source's extent: an access outside it
// is an error at the op's line, never a read of foreign memory.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "ir/interp/op_semantics.h"

namespace pypto::ir::interp {
namespace {

// Row-major iteration over a shape.
bool next_index(std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

void check_window(const OpEval& e, const Array& a, const std::vector<int64_t>& off, const std::vector<int64_t>& shape,
                  const char* what) {
  bool ok = off.size() <= a.shape.size() && shape.size() <= a.shape.size();
  for (size_t d = 0; ok && d < a.shape.size(); ++d) {
    const int64_t o = d < off.size() ? off[d] : 0;
    const int64_t s = d < shape.size() ? shape[d] : 1;
    ok = o >= 0 && s >= 0 && o + s <= a.shape[d];
  }
  if (!ok)
    e.fail(fmt::format("{} window {} at offset {} is outside the {} of shape {}", what, shape_text(shape), shape_text(off),
                       a.rank() ? "operand" : "scalar", shape_text(a.shape)),
           "offsets and extents must stay inside the tensor (or tile) they address");
}

// Aligns a window's shape with the array's rank: a shorter window covers the trailing dims.
std::vector<int64_t> full_rank(const std::vector<int64_t>& v, size_t rank, int64_t fill) {
  if (v.size() >= rank) return v;
  std::vector<int64_t> out(rank - v.size(), fill);
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

// Copies `src` (row-major over its shape) into `dst` at `off`; `add`: adds it to what is there
// (an atomic-add store), each sum rounded to dst's dtype.
void write_window(const Array& dst, const std::vector<int64_t>& off, const Array& src, const std::vector<int64_t>& extent,
                  bool add = false) {
  if (src.numel() == 0) return;
  std::vector<int64_t> i(extent.size(), 0), at(dst.shape.size());
  const std::vector<int64_t> o = full_rank(off, dst.shape.size(), 0);
  const size_t lead = dst.shape.size() - extent.size();
  do {
    for (size_t d = 0; d < at.size(); ++d) at[d] = o[d] + (d >= lead ? i[d - lead] : 0);
    // src may have another rank than the window (a [1, N] tile stored to a rank-3 tensor): its
    // elements are taken in row-major order.
    int64_t flat = 0;
    for (size_t d = 0; d < i.size(); ++d) flat = flat * extent[d] + i[d];
    dst.set(at, add ? dst.at(at) + src.at(flat) : src.at(flat));
  } while (next_index(i, extent));
}

Array read_window(const Array& src, const std::vector<int64_t>& off, const std::vector<int64_t>& extent, DataType dt,
                  const std::vector<int64_t>& out_shape) {
  Array out = Array::zeros(dt, out_shape);
  if (out.numel() == 0) return out;
  const std::vector<int64_t> o = full_rank(off, src.shape.size(), 0);
  const std::vector<int64_t> ext = full_rank(extent, src.shape.size(), 1);
  std::vector<int64_t> i(ext.size(), 0), at(ext.size());
  int64_t flat = 0;
  do {
    for (size_t d = 0; d < at.size(); ++d) at[d] = o[d] + i[d];
    if (flat < out.numel()) out.set(flat, src.at(at));
    ++flat;
  } while (next_index(i, ext));
  return out;
}

// The value a pad fills with: 0, or the dtype's largest / smallest (infinities for floats).
double pad_number(PadValue p, DataType dt) {
  const bool fl = dtype_is_float(dt);
  const int bits = dtype_bits(dt);
  const bool sgn = dtype_is_signed(dt);
  switch (p) {
    case PadValue::max:
      if (fl) return INFINITY;
      return sgn ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    case PadValue::min:
      if (fl) return -INFINITY;
      return sgn ? -std::ldexp(1.0, bits - 1) : 0.0;
    default: return 0.0;
  }
}

// Gives every element of `a` outside `valid` (a leading region) the value `v`.
void fill_outside(Array& a, const std::vector<int64_t>& valid, double v) {
  if (valid.size() != a.shape.size() || a.numel() == 0) return;
  std::vector<int64_t> i(a.shape.size(), 0);
  do {
    bool in = true;
    for (size_t d = 0; d < valid.size(); ++d) in = in && i[d] < valid[d];
    if (!in) a.set(i, v);
  } while (next_index(i, a.shape));
}

// An element outside a tile's valid region is undefined: NaN (0 for integers) unless the tile's
// type carries a pad value.
double undefined_number(const OpEval& e) {
  const auto* t = as_tile(e.call.type);
  if (t && t->view && t->view->pad && *t->view->pad != PadValue::null) return pad_number(*t->view->pad, t->dtype);
  return dtype_is_float(e.result_dtype()) ? NAN : 0.0;
}

Value load(const OpEval& e) {
  const Array& t = e.arr(0);
  const auto off = e.list(1);
  const auto shape = e.list(2);
  // With a valid_shape, only the valid region is read from the tensor (and must lie inside it).
  std::vector<int64_t> valid = e.has(3) ? e.list(3) : shape;
  if (valid.size() != shape.size()) e.fail("pl.tile.load valid_shape has another rank than its window");
  for (size_t d = 0; d < valid.size(); ++d)
    if (valid[d] < 0 || valid[d] > shape[d])
      e.fail(fmt::format("pl.tile.load valid_shape {} is outside its window {}", shape_text(valid), shape_text(shape)),
             "a valid extent lies between 0 and the window's extent");
  check_window(e, t, full_rank(off, t.shape.size(), 0), full_rank(valid, t.shape.size(), 1), "pl.tile.load");
  Array out = Array::zeros(e.result_dtype(), e.result_shape());
  fill_outside(out, std::vector<int64_t>(out.shape.size(), 0), undefined_number(e));
  if (const auto* tt = as_tensor(e.call.args[0]->type);
      tt && tt->view && (tt->view->layout == TensorLayout::MX_A_ZZ || tt->view->layout == TensorLayout::MX_B_NN)) {
    // An MX scale tensor holds its [M, G] (A) / [G, N] (B) scales in the packed box order: logical
    // (r, c) is element (r/16)*G*16 + (c/2)*32 + (r%16)*2 + c%2 of A's storage, and
    // (c/16)*G*16 + (r/2)*32 + (c%16)*2 + r%2 of B's.
    const bool a = tt->view->layout == TensorLayout::MX_A_ZZ;
    const int64_t G = a ? t.shape[1] : t.shape[0];
    for (int64_t i = 0; i < valid[0]; ++i)
      for (int64_t j = 0; j < valid[1]; ++j) {
        const int64_t r = off[0] + i, c = off[1] + j;
        const int64_t at = a ? (r / 16) * G * 16 + (c / 2) * 32 + (r % 16) * 2 + c % 2
                             : (c / 16) * G * 16 + (r / 2) * 32 + (c % 16) * 2 + r % 2;
        out.set({i, j}, t.at(at));
      }
    return Value::array(out);
  }
  if (out.shape.size() < valid.size()) {
    // A 2-D tile of an N-D window (FlattenTileNdTo2D): the window's rows, stacked. Valid shapes
    // stay on 2-D windows, so the window is read whole.
    Array part = read_window(t, off, valid, e.result_dtype(), valid);
    for (int64_t i = 0; i < part.numel() && i < out.numel(); ++i) out.set(i, part.at(i));
    return Value::array(out);
  }
  const std::vector<int64_t> vout = full_rank(valid, out.shape.size(), 1);
  Array part = read_window(t, off, valid, e.result_dtype(), vout);
  write_window(out, std::vector<int64_t>(out.shape.size(), 0), part, vout);
  return Value::array(out);
}

// atomic=pl.AtomicType.Add on a store / assemble; another mode than None_ / Add is an error.
bool atomic_add(const OpEval& e) {
  switch (atomic_mode(e.call)) {
    case AtomicMode::None: return false;
    case AtomicMode::Add: return true;
    case AtomicMode::Other: e.fail("an atomic mode other than pl.AtomicType.None_ / .Add");
  }
  return false;
}

Value store(const OpEval& e) {
  const Array& tile = e.arr(0);
  const auto off = e.list(1);
  const Array& t = e.arr(2);
  // Without a window, the tile's valid region is stored.
  std::vector<int64_t> extent = e.has(3) ? e.list(3) : e.valid(0);
  check_window(e, t, full_rank(off, t.shape.size(), 0), full_rank(extent, t.shape.size(), 1), "pl.tile.store");
  const bool add = atomic_add(e);
  if (tile.shape.size() < extent.size()) {
    // A 2-D tile of an N-D window (FlattenTileNdTo2D): its rows fill the window's, in order.
    int64_t n = 1;
    for (int64_t d : extent) n *= d;
    if (n != tile.numel())
      e.fail(fmt::format("pl.tile.store of a {} tile into a {} window", shape_text(tile.shape), shape_text(extent)));
    Array rows = Array::zeros(tile.dtype, extent);
    for (int64_t i = 0; i < n; ++i) (*rows.data)[static_cast<size_t>(i)] = tile.at(i);
    write_window(t, off, rows, extent, add);
    return e.args[2];
  }
  if (e.has(3) || extent != tile.shape) {  // store a leading sub-window of the tile (or its valid region)
    Array part = read_window(tile, std::vector<int64_t>(tile.shape.size(), 0), full_rank(extent, tile.shape.size(), 1),
                             tile.dtype, extent);
    write_window(t, off, part, extent, add);
  } else {
    write_window(t, off, tile, extent, add);
  }
  return e.args[2];
}

Value slice(const OpEval& e, bool view) {
  const Array& a = e.arr(0);
  const auto shape = e.list(1);
  const auto off = e.list(2);
  const bool clamp = e.kw_bool("clamp", false);
  std::vector<int64_t> o = full_rank(off, a.shape.size(), 0), s = full_rank(shape, a.shape.size(), 1);
  // A window with a valid_shape may reach past its operand (a padded window: pypto-lib slices a
  // [16, K] window of a 4-row weight, valid over its 4 rows); only the valid region must lie
  // inside, and the rest of the window is undefined.
  bool padded = false;
  if (!clamp && e.has(3)) {
    std::vector<int64_t> v = full_rank(e.list(3), a.shape.size(), 1);
    bool inside = true;
    for (size_t d = 0; d < s.size(); ++d) inside = inside && o[d] + s[d] <= a.shape[d];
    if (!inside) {
      check_window(e, a, o, v, view ? "pl.tensor.slice" : "pl.tile.slice");
      padded = true;
      s = v;
    }
  }
  if (!clamp && !padded) check_window(e, a, o, s, view ? "pl.tensor.slice" : "pl.tile.slice");
  if (view && !clamp && !padded) return Value::array(a.view(o, e.result_shape()));
  if (padded) {
    Array out = Array::zeros(e.result_dtype(), e.result_shape());
    fill_outside(out, std::vector<int64_t>(out.shape.size(), 0), undefined_number(e));
    Array part = read_window(a, o, s, e.result_dtype(), s);
    write_window(out, std::vector<int64_t>(out.shape.size(), 0), part, std::vector<int64_t>(s.end() - long(out.shape.size()), s.end()));
    return Value::array(out);
  }
  // A copy; with clamp=True the part outside the source reads as zero.
  Array out = Array::zeros(e.result_dtype(), e.result_shape());
  std::vector<int64_t> i(s.size(), 0), at(s.size());
  int64_t flat = 0;
  if (out.numel() > 0) do {
      bool in = true;
      for (size_t d = 0; d < s.size(); ++d) {
        at[d] = o[d] + i[d];
        in = in && at[d] >= 0 && at[d] < a.shape[d];
      }
      if (in && flat < out.numel()) out.set(flat, a.at(at));
      ++flat;
    } while (next_index(i, s));
  return Value::array(out);
}

Value assemble(const OpEval& e, bool in_place) {
  const Array& target = e.arr(0);
  Array src = e.arr(1);
  // A source with a valid shape (a window narrowed by valid_shape=) places its valid part only.
  if (const auto v = e.valid(1); v.size() == src.shape.size() && v != src.shape) {
    std::vector<int64_t> ext(v.size());
    for (size_t d = 0; d < v.size(); ++d) ext[d] = std::clamp<int64_t>(v[d], 0, src.shape[d]);
    src = src.view(std::vector<int64_t>(v.size(), 0), ext);
  }
  const auto off = e.list(2);
  check_window(e, target, full_rank(off, target.shape.size(), 0), full_rank(src.shape, target.shape.size(), 1),
               in_place ? "pl.tensor.assemble" : "pl.tile.assemble");
  Array out = in_place ? target : target.copy();
  write_window(out, off, src, src.shape, atomic_add(e));
  return Value::array(out);
}

// gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape]): dst with the block of src
// at src_offset (its valid extents, else shapes) copied to dst_offset.
Value gather_row(const OpEval& e) {
  if (e.kw_bool("transpose", false)) e.fail("pl.gather_row(transpose=True) has no reference semantics yet");
  const Array& dst = e.arr(0);
  const Array& src = e.arr(1);
  const auto doff = e.list(2), soff = e.list(3);
  const auto ext = e.has(5) ? e.list(5) : e.list(4);
  check_window(e, src, full_rank(soff, src.shape.size(), 0), full_rank(ext, src.shape.size(), 1), "the source rows of pl.gather_row");
  check_window(e, dst, full_rank(doff, dst.shape.size(), 0), full_rank(ext, dst.shape.size(), 1),
               "the destination of pl.gather_row");
  Array out = dst.copy();
  write_window(out, doff, read_window(src, soff, ext, dst.dtype, ext), ext);
  return Value::array(out);
}

std::vector<int64_t> checked_index(const OpEval& e, const Array& a, std::vector<int64_t> idx) {
  if (idx.size() == 1 && a.rank() > 1) {  // a flat index
    int64_t f = idx[0];
    if (f < 0 || f >= a.numel())
      e.fail(fmt::format("flat index {} is outside {} ({} elements)", f, shape_text(a.shape), a.numel()));
    idx.assign(a.shape.size(), 0);
    for (size_t d = a.shape.size(); d-- > 0;) idx[d] = f % a.shape[d], f /= a.shape[d];
    return idx;
  }
  bool ok = idx.size() == a.shape.size();
  for (size_t d = 0; ok && d < idx.size(); ++d) ok = idx[d] >= 0 && idx[d] < a.shape[d];
  if (!ok) e.fail(fmt::format("index {} is outside {}", shape_text(idx), shape_text(a.shape)));
  return idx;
}

Value reshape(const OpEval& e, bool view) {
  const Array& a = e.arr(0);
  if (view && a.contiguous()) {
    Array v = Array::zeros(a.dtype, {});
    v = a;
    v.shape = e.result_shape();
    v.strides.assign(v.shape.size(), 1);
    for (size_t i = v.shape.size(); i-- > 1;) v.strides[i - 1] = v.strides[i] * v.shape[i];
    return Value::array(v);
  }
  Array out = e.result();
  for (int64_t i = 0; i < out.numel(); ++i) out.set(i, a.at(i));
  return Value::array(out);
}

Value transpose(const OpEval& e) {
  const Array& a = e.arr(0);
  const int64_t r = a.rank();
  int64_t x = static_cast<int64_t>(e.num(1)), y = static_cast<int64_t>(e.num(2));
  if (x < 0) x += r;
  if (y < 0) y += r;
  Array out = e.result();
  std::vector<int64_t> i(out.shape.size(), 0);
  if (out.numel() > 0) do {
      std::vector<int64_t> src = i;
      std::swap(src[static_cast<size_t>(x)], src[static_cast<size_t>(y)]);
      out.set(i, a.at(src));
    } while (next_index(i, out.shape));
  return Value::array(out);
}

// Columns a mask pattern selects: 1 P0101 even, 2 P1010 odd, 3..6 one of every four, 7 all.
bool pattern_keeps(int64_t pattern, int64_t col) {
  if (pattern == 7) return true;
  if (pattern <= 2) return col % 2 == pattern - 1;
  return col % 4 == pattern - 3;
}

double bits_as_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The 32 bits of an FP32 value read as a 32-bit integer of `dt` (a mask gather's output_dtype
// copies the bits of the lanes it keeps, such as the UINT32 indices sort32 pairs carry).
double float_bits_as(DataType dt, double v) {
  const float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return dt == DataType::INT32 ? double(static_cast<int32_t>(u)) : double(u);
}

}  // namespace

void define_data_movement(OpRegistry& r) {
  define(r, "tile.load", load);
  define(r, "tile.store", store);
  define(r, "tensor.slice", [](const OpEval& e) { return slice(e, true); });
  define(r, "tile.slice", [](const OpEval& e) { return slice(e, false); });
  define(r, "tensor.assemble", [](const OpEval& e) { return assemble(e, true); });
  define(r, "tile.assemble", [](const OpEval& e) { return assemble(e, false); });
  define(r, "tensor.gather_row", gather_row);
  define(r, "tile.gather_row", gather_row);
  define(r, "tensor.reshape", [](const OpEval& e) { return reshape(e, true); });
  define(r, "tile.reshape", [](const OpEval& e) { return reshape(e, false); });
  define(r, "tensor.transpose", transpose);
  define(r, "tile.transpose", transpose);
  for (const char* f : {"tensor.read", "tile.read"})
    define(r, f, [](const OpEval& e) {
      const Array& a = e.arr(0);
      return Value::scalar(e.result_dtype(), a.at(checked_index(e, a, e.list(1))));
    });
  define(r, "tensor.write", [](const OpEval& e) {
    const Array& a = e.arr(0);
    a.set(checked_index(e, a, e.list(1)), e.num(2));
    return e.args[0];
  });
  define(r, "tile.write", [](const OpEval& e) {
    Array a = e.arr(0).copy();
    a.set(checked_index(e, a, e.list(1)), e.num(2));
    return Value::array(a);
  });
  // Moves between memories keep the values (tile.move also re-lays out, invisible here).
  define(r, "tile.move", [](const OpEval& e) {
    // UINT8 scale bytes moved to LeftScale / RightScale are read as FP8E8M0 exponents: 2^(e-127).
    if (e.result_dtype() == DataType::FP8E8M0 && e.arr(0).dtype == DataType::UINT8) {
      Array out = Array::zeros(DataType::FP8E8M0, e.arr(0).shape);
      for (int64_t i = 0; i < out.numel(); ++i) out.set(i, std::ldexp(1.0, static_cast<int>(e.arr(0).at(i)) - 127));
      return Value::array(out);
    }
    return Value::array(e.arr(0).copy());
  });
  for (const char* f : {"tensor.dim"})
    define(r, f, [](const OpEval& e) {
      const Array& a = e.arr(0);
      int64_t axis = static_cast<int64_t>(e.num(1));
      if (axis < 0) axis += a.rank();
      return Value::scalar(DataType::INDEX, double(a.shape[static_cast<size_t>(axis)]));
    });
  // Valid-shape bookkeeping: the values are unchanged.
  for (const char* f : {"tensor.set_validshape", "tile.set_validshape"})
    define(r, f, [](const OpEval& e) { return Value::array(e.arr(0).copy()); });
  // fillpad: the elements outside the operand's valid region take the pad value.
  for (const char* f : {"tensor.fillpad", "tile.fillpad", "tile.fillpad_inplace"})
    define(r, f, [](const OpEval& e) {
      Array out = e.arr(0).copy();
      const AttrValue* a = e.kw("pad_value");
      const PadValue* p = a ? std::get_if<PadValue>(a) : nullptr;
      fill_outside(out, e.valid(0), pad_number(p ? *p : PadValue::zero, out.dtype));
      return Value::array(out);
    });
  for (const char* f : {"tensor.concat", "tile.concat"})
    define(r, f, [](const OpEval& e) {
      Array out = e.result();
      const Array& a = e.arr(0);
      const Array& b = e.arr(1);
      const int64_t ca = a.shape.back();
      for (int64_t i = 0; i < out.shape[0]; ++i)
        for (int64_t j = 0; j < out.shape[1]; ++j) out.set({i, j}, j < ca ? a.at({i, j}) : b.at({i, j - ca}));
      return Value::array(out);
    });
  // tensor.gather(input, index): out[i, j] = input[i, index[i, j]] along the last axis.
  define(r, "tensor.gather", [](const OpEval& e) {
    Array out = e.result();
    const Array& in = e.arr(0);
    const Array& idx = e.arr(1);
    for (int64_t i = 0; i < out.shape[0]; ++i)
      for (int64_t j = 0; j < out.shape[1]; ++j) {
        const int64_t k = static_cast<int64_t>(idx.at({i, j}));
        if (k < 0 || k >= in.shape[1]) e.fail(fmt::format("gather index {} at ({}, {}) is outside {}", k, i, j, shape_text(in.shape)));
        out.set({i, j}, in.at({i, k}));
      }
    return Value::array(out);
  });
  // tile.gather(src, indices, tmp): flat indices into src.
  define(r, "tile.gather", [](const OpEval& e) {
    Array out = e.result();
    const Array& src = e.arr(0);
    const Array& idx = e.arr(1);
    for (int64_t i = 0; i < out.numel(); ++i) {
      const int64_t k = static_cast<int64_t>(idx.at(i));
      if (k < 0 || k >= src.numel()) e.fail(fmt::format("gather index {} is outside the source's {} elements", k, src.numel()));
      out.set(i, src.at(k));
    }
    return Value::array(out);
  });
  // tensor.scatter(input, index, src): input with out[i, index[i, j]] = src[i, j].
  define(r, "tensor.scatter", [](const OpEval& e) {
    Array out = e.arr(0).copy();
    const Array& idx = e.arr(1);
    const Array& src = e.arr(2);
    for (int64_t i = 0; i < idx.shape[0]; ++i)
      for (int64_t j = 0; j < idx.shape[1]; ++j) {
        const int64_t k = static_cast<int64_t>(idx.at({i, j}));
        if (k < 0 || k >= out.shape[1]) e.fail(fmt::format("scatter index {} at ({}, {}) is outside {}", k, i, j, shape_text(out.shape)));
        out.set({i, k}, src.at({i, j}));
      }
    return Value::array(out);
  });
  define(r, "tile.scatter", [](const OpEval& e) {
    Array out = e.arr(0).copy();
    const Array& src = e.arr(1);
    const Array& idx = e.arr(2);
    for (int64_t i = 0; i < idx.numel(); ++i) {
      const int64_t k = static_cast<int64_t>(idx.at(i));
      if (k < 0 || k >= out.numel()) e.fail(fmt::format("scatter index {} is outside the destination's {} elements", k, out.numel()));
      out.set(k, src.at(i));
    }
    return Value::array(out);
  });
  for (const char* f : {"tensor.gather_mask", "tile.gather_mask"})
    define(r, f, [](const OpEval& e) {
      Array out = e.result();
      const Array& src = e.arr(0);
      const int64_t pat = e.kw_int("mask_pattern", 7);
      const bool bits = src.dtype == DataType::FP32 && (out.dtype == DataType::INT32 || out.dtype == DataType::UINT32);
      for (int64_t i = 0; i < src.shape[0]; ++i) {
        int64_t k = 0;
        for (int64_t j = 0; j < src.shape[1]; ++j)
          if (pattern_keeps(pat, j) && k < out.shape[1])
            out.set({i, k++}, bits ? float_bits_as(out.dtype, src.at({i, j})) : src.at({i, j}));
      }
      return Value::array(out);
    });
  // tensor.scatter_mask(input, dst): dst with the pattern's columns replaced by input's columns.
  define(r, "tensor.scatter_mask", [](const OpEval& e) {
    const Array& in = e.arr(0);
    Array out = e.arr(1).copy();
    const int64_t pat = e.kw_int("mask_pattern", 7);
    for (int64_t i = 0; i < out.shape[0]; ++i) {
      int64_t k = 0;
      for (int64_t j = 0; j < out.shape[1]; ++j)
        if (pattern_keeps(pat, j) && k < in.shape[1]) out.set({i, j}, in.at({i, k++}));
    }
    return Value::array(out);
  });
  // tile.scatter_mask(dst, src): src's columns written to dst's pattern columns.
  define(r, "tile.scatter_mask", [](const OpEval& e) {
    Array out = e.arr(0).copy();
    const Array& src = e.arr(1);
    const int64_t pat = e.kw_int("mask_pattern", 7);
    for (int64_t i = 0; i < out.shape[0]; ++i) {
      int64_t k = 0;
      for (int64_t j = 0; j < out.shape[1]; ++j)
        if (pattern_keeps(pat, j) && k < src.shape[1]) out.set({i, j}, src.at({i, k++}));
    }
    return Value::array(out);
  });
  // tile.extract(src, row, col, shape): the window at (row, col), copied.
  define(r, "tile.extract", [](const OpEval& e) {
    const Array& src = e.arr(0);
    const std::vector<int64_t> off{static_cast<int64_t>(e.num(1)), static_cast<int64_t>(e.num(2))};
    const auto shape = e.list(3);
    check_window(e, src, off, shape, "pl.tile.extract");
    return Value::array(read_window(src, off, shape, e.result_dtype(), e.result_shape()));
  });
  // fillpad_expand(t, shape): t's valid region in the top-left corner of a larger tile, the rest
  // the pad value (zero, or the dtype's max / min for pad_value=max / min; infinities for floats).
  for (const char* f : {"tensor.fillpad_expand", "tile.fillpad_expand"})
    define(r, f, [](const OpEval& e) {
      const Array& src = e.arr(0);
      Array out = e.result();
      const AttrValue* a = e.kw("pad_value");
      const PadValue* p = a ? std::get_if<PadValue>(a) : nullptr;
      const double pad = pad_number(p ? *p : PadValue::zero, out.dtype);
      const std::vector<int64_t> valid = e.valid(0);  // the operand's valid region is kept
      std::vector<int64_t> i(out.shape.size(), 0);
      if (out.numel() > 0) do {
          bool in = true;
          for (size_t d = 0; d < i.size(); ++d) in = in && d < valid.size() && i[d] < valid[d];
          out.set(i, in ? src.at(i) : pad);
        } while (next_index(i, out.shape));
      return Value::array(out);
    });
  // transpose_view: the trailing two dims swapped (a layout change on the hardware; values move here).
  define(r, "tile.transpose_view", [](const OpEval& e) {
    const Array& a = e.arr(0);
    Array out = e.result();
    if (out.rank() < 2 || a.rank() != out.rank()) e.fail("pl.tile.transpose_view of a tile of rank below 2");
    std::vector<int64_t> i(out.shape.size(), 0);
    if (out.numel() > 0) do {
        std::vector<int64_t> j = i;
        std::swap(j[j.size() - 1], j[j.size() - 2]);
        out.set(i, a.at(j));
      } while (next_index(i, out.shape));
    return Value::array(out);
  });
  // pl.Array: a small 1-D array of scalars; updates return a new array.
  define(r, "array.create", [](const OpEval& e) {
    const auto* at = as_array(e.call.type);
    return Value::array(Array::zeros(at ? at->dtype : DataType::INDEX, {static_cast<int64_t>(e.num(0))}));
  });
  define(r, "array.get_element", [](const OpEval& e) {
    const Array& a = e.arr(0);
    const int64_t k = static_cast<int64_t>(e.num(1));
    if (k < 0 || k >= a.numel()) e.fail(fmt::format("array index {} is outside its {} elements", k, a.numel()));
    return Value::scalar(a.dtype, a.at(k));
  });
  define(r, "array.update_element", [](const OpEval& e) {
    Array a = e.arr(0).copy();
    const int64_t k = static_cast<int64_t>(e.num(1));
    if (k < 0 || k >= a.numel()) e.fail(fmt::format("array index {} is outside its {} elements", k, a.numel()));
    a.set(k, e.num(2));
    return Value::array(a);
  });
  // sort32(src, idx): each row's 32-element blocks sorted by value, descending (ties keep the
  // lower index first), as (value, index) pairs; the UINT32 index travels as the bits of an FP32.
  for (const char* f : {"tensor.sort32", "tile.sort32"})
    define(r, f, [](const OpEval& e) {
      const Array& src = e.arr(0);
      const Array& idx = e.arr(1);
      if (src.dtype != DataType::FP32) e.fail("sort32 is modelled for FP32 values only");
      Array out = e.result();
      const int64_t cols = src.shape[1];
      for (int64_t i = 0; i < src.shape[0]; ++i)
        for (int64_t b = 0; b < cols; b += 32) {
          std::vector<int64_t> order;
          for (int64_t j = b; j < std::min(cols, b + 32); ++j) order.push_back(j);
          std::stable_sort(order.begin(), order.end(),
                           [&](int64_t x, int64_t y) { return src.at({i, x}) > src.at({i, y}); });
          for (size_t k = 0; k < order.size(); ++k) {
            const int64_t slot = 2 * (b + static_cast<int64_t>(k));
            out.set({i, slot}, src.at({i, order[k]}));
            out.set({i, slot + 1}, bits_as_float(static_cast<uint32_t>(idx.at({i, order[k]}))));
          }
        }
      return Value::array(out);
    });
  // mrgsort: rows of (value, index) pairs (2 FP32 elements each, as sort32 writes them) merged by
  // value, descending; equal values take the lower-numbered run / list first (TMRGSORT).
  // format1(src, block_len): each group of 4 consecutive runs of block_len elements merged in
  // place; columns past the last whole group are undefined (pto-isa leaves them unwritten).
  for (const char* f : {"tensor.mrgsort_format1", "tile.mrgsort_format1"})
    define(r, f, [](const OpEval& e) {
      const Array& src = e.arr(0);
      if (src.dtype != DataType::FP32) e.fail("mrgsort is modelled for FP32 pairs only");
      const int64_t block = static_cast<int64_t>(e.num(1));
      if (block <= 0 || block % 2 != 0) e.fail(fmt::format("block_len {} is not a positive even element count", block));
      Array out = e.result();
      fill_outside(out, std::vector<int64_t>(out.shape.size(), 0), undefined_number(e));
      const int64_t cols = e.valid(0)[1], per = block / 2;
      for (int64_t i = 0; i < src.shape[0]; ++i)
        for (int64_t base = 0; base + 4 * block <= cols; base += 4 * block) {
          int64_t pos[4] = {0, 0, 0, 0};
          for (int64_t k = 0; k < 4 * per; ++k) {
            int pick = -1;
            for (int b = 0; b < 4; ++b)
              if (pos[b] < per && (pick < 0 || src.at({i, base + b * block + 2 * pos[b]}) >
                                                   src.at({i, base + pick * block + 2 * pos[pick]})))
                pick = b;
            const int64_t from = base + pick * block + 2 * pos[pick]++;
            out.set({i, base + 2 * k}, src.at({i, from}));
            out.set({i, base + 2 * k + 1}, src.at({i, from + 1}));
          }
        }
      return Value::array(out);
    });
  // format2(src0, src1[, src2[, src3]]) (the tile form adds its tmp last): the lists merged into
  // the result's width; with exhausted=True the merge stops when a list runs out and the rest of
  // the result is undefined.
  for (const char* f : {"tensor.mrgsort_format2", "tile.mrgsort_format2"})
    define(r, f, [f](const OpEval& e) {
      size_t n = 0;
      while (e.has(n)) ++n;
      if (std::string_view(f) == "tile.mrgsort_format2") --n;  // the tmp tile
      std::vector<const Array*> lists;
      std::vector<int64_t> len;  // a list's valid width
      for (size_t k = 0; k < n; ++k) {
        lists.push_back(&e.arr(k));
        len.push_back(e.valid(k)[1]);
        if (lists.back()->dtype != DataType::FP32) e.fail("mrgsort is modelled for FP32 pairs only");
      }
      const bool exhausted = e.kw_bool("exhausted", false);
      Array out = e.result();
      fill_outside(out, std::vector<int64_t>(out.shape.size(), 0), undefined_number(e));
      const int64_t width = out.shape[1];
      for (int64_t i = 0; i < out.shape[0]; ++i) {
        std::vector<int64_t> pos(n, 0);
        for (int64_t k = 0; 2 * k + 1 < width; ++k) {
          int pick = -1;
          for (size_t l = 0; l < n; ++l) {
            const Array& a = *lists[l];
            if (i >= a.shape[0] || 2 * pos[l] + 1 >= len[l]) continue;
            if (pick < 0 || a.at({i, 2 * pos[l]}) > lists[size_t(pick)]->at({i, 2 * pos[size_t(pick)]})) pick = int(l);
          }
          if (pick < 0) break;
          const Array& a = *lists[size_t(pick)];
          const int64_t from = 2 * pos[size_t(pick)]++;
          out.set({i, 2 * k}, a.at({i, from}));
          out.set({i, 2 * k + 1}, a.at({i, from + 1}));
          bool done = false;
          for (size_t l = 0; l < n; ++l) done = done || 2 * pos[l] + 1 >= len[l];
          if (exhausted && done) break;
        }
      }
      return Value::array(out);
    });
}

}  // namespace pypto::ir::interp
