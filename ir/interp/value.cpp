// Interpreter values: element rounding per dtype and strided array access (see value.h).
#include "ir/interp/value.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ir/diagnostic.h"

namespace pypto::ir::interp {
namespace {

// `x` (in units of the last place) to an integer in `mode`.
double round_units(double x, RoundMode mode) {
  switch (mode) {
    case RoundMode::Rint: return std::nearbyint(x);
    case RoundMode::Round: return std::round(x);
    case RoundMode::Floor: return std::floor(x);
    case RoundMode::Ceil: return std::ceil(x);
    case RoundMode::Trunc: return std::trunc(x);
    case RoundMode::Odd: {
      const double t = std::trunc(x);
      return t == x || std::fmod(std::fabs(t), 2.0) == 1.0 ? t : t + std::copysign(1.0, x);
    }
  }
  return x;
}

// Round in a binary float format with `mant` fraction bits, smallest normal exponent `emin` and
// largest finite value `max`; beyond it the result is infinite (to nearest modes) or `max`.
double round_binary(double v, int mant, int emin, double max, RoundMode mode = RoundMode::Rint) {
  if (!std::isfinite(v) || v == 0) return v;
  int ex = 0;
  std::frexp(v, &ex);  // v = m * 2^ex, 0.5 <= |m| < 1
  const int e = std::max(ex - 1, emin);
  const double q = std::ldexp(1.0, e - mant);
  const double r = round_units(v / q, mode) * q;
  if (std::fabs(r) > max) {
    const bool to_inf = mode == RoundMode::Rint || mode == RoundMode::Round ||
                        (mode == RoundMode::Ceil && v > 0) || (mode == RoundMode::Floor && v < 0);
    return std::copysign(to_inf ? std::numeric_limits<double>::infinity() : max, v);
  }
  return r;
}

double wrap_int(double v, int bits, bool is_signed) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  if (bits >= 64) {
    const double lim = 9.2233720368547758e18;
    return std::fmax(-lim, std::fmin(lim, t));
  }
  const double m = std::ldexp(1.0, bits);
  double w = std::fmod(t, m);
  if (w < 0) w += m;
  if (is_signed && w >= m / 2) w -= m;
  return w;
}

}  // namespace

double round_to(DataType dt, double v) {
  switch (dt) {
    case DataType::FP32: return round_binary(v, 23, -126, 3.4028234663852886e38);
    case DataType::FP16: return round_binary(v, 10, -14, 65504.0);
    case DataType::BF16: return round_binary(v, 7, -126, 3.3895313892515355e38);
    case DataType::FP8E4M3FN: {  // no infinities: beyond the largest finite value (448) is NaN
      const double r = round_binary(v, 3, -6, 448.0);
      return std::isinf(r) ? NAN : r;
    }
    case DataType::FP8E8M0: {  // a power of two 2^-127 .. 2^127: the binary exponent of v (truncated)
      if (!(v > 0) || std::isinf(v)) return NAN;
      int ex = 0;
      std::frexp(v, &ex);
      return std::ldexp(1.0, std::clamp(ex - 1, -127, 127));
    }
    case DataType::BOOL: return v != 0 ? 1 : 0;
    case DataType::INT8: return wrap_int(v, 8, true);
    case DataType::INT16: return wrap_int(v, 16, true);
    case DataType::INT32: return wrap_int(v, 32, true);
    case DataType::INT64:
    case DataType::INDEX:
    case DataType::TASK_ID: return wrap_int(v, 64, true);
    case DataType::UINT8: return wrap_int(v, 8, false);
    case DataType::UINT16: return wrap_int(v, 16, false);
    case DataType::UINT32: return wrap_int(v, 32, false);
    case DataType::UINT64: return wrap_int(v, 64, false);
    default:
      throw CompileError("E601", {}, fmt::format("the interpreter does not model dtype {}", dtype_name(dt)),
                         "pypto eval covers BOOL, the integer types, FP8E4M3FN, FP8E8M0, FP16, BF16 and FP32");
  }
}

double round_to(DataType dt, double v, RoundMode mode) {
  switch (dt) {
    case DataType::FP32: return round_binary(v, 23, -126, 3.4028234663852886e38, mode);
    case DataType::FP16: return round_binary(v, 10, -14, 65504.0, mode);
    case DataType::BF16: return round_binary(v, 7, -126, 3.3895313892515355e38, mode);
    default: return round_to(dt, dtype_is_int(dt) ? round_units(v, mode) : v);
  }
}

Array Array::zeros(DataType dt, std::vector<int64_t> shape) {
  Array a;
  a.dtype = dt;
  a.shape = std::move(shape);
  a.strides.assign(a.shape.size(), 1);
  for (size_t i = a.shape.size(); i-- > 1;) a.strides[i - 1] = a.strides[i] * a.shape[i];
  a.data = std::make_shared<std::vector<double>>(static_cast<size_t>(a.numel()), 0.0);
  return a;
}

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Array::flat_to_storage(int64_t i) const {
  int64_t at = offset;
  for (size_t d = shape.size(); d-- > 0;) {
    at += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return at;
}

// The storage position of a multi-index; an index of another rank or outside the shape is an
// interpreter bug (the semantics check their windows first), reported instead of read.
static size_t storage_at(const Array& a, const std::vector<int64_t>& idx) {
  if (idx.size() != a.shape.size())
    throw InternalError("interpreter", fmt::format("index of rank {} into an array of rank {}", idx.size(), a.shape.size()));
  int64_t p = a.offset;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (idx[d] < 0 || idx[d] >= a.shape[d])
      throw InternalError("interpreter", fmt::format("index {} outside dim {} of extent {}", idx[d], d, a.shape[d]));
    p += idx[d] * a.strides[d];
  }
  if (p < 0 || static_cast<size_t>(p) >= a.data->size()) throw InternalError("interpreter", "index outside the array's storage");
  return static_cast<size_t>(p);
}

double Array::at(const std::vector<int64_t>& idx) const { return (*data)[storage_at(*this, idx)]; }

void Array::set(const std::vector<int64_t>& idx, double v) const { (*data)[storage_at(*this, idx)] = round_to(dtype, v); }

Array Array::copy() const {
  Array c = zeros(dtype, shape);
  const int64_t n = numel();
  for (int64_t i = 0; i < n; ++i) (*c.data)[static_cast<size_t>(i)] = at(i);
  return c;
}

Array Array::view(const std::vector<int64_t>& offsets, const std::vector<int64_t>& new_shape) const {
  Array v = *this;
  for (size_t d = 0; d < offsets.size() && d < strides.size(); ++d) v.offset += offsets[d] * strides[d];
  v.shape = new_shape;
  return v;
}

bool Array::contiguous() const {
  int64_t want = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != want) return false;
    want *= shape[d];
  }
  return true;
}

Value Value::scalar(DataType dt, double v) {
  Value x;
  x.kind = Kind::Scalar;
  x.dtype = dt;
  x.num = v;
  return x;
}
Value Value::array(Array a) {
  Value x;
  x.kind = Kind::Array;
  x.arr = std::move(a);
  return x;
}
Value Value::tuple(std::vector<Value> v) {
  Value x;
  x.kind = Kind::Tuple;
  x.elems = std::move(v);
  return x;
}

std::string shape_text(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace pypto::ir::interp
