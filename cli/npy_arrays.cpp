// .npy ↔ interpreter arrays through the CPU runtime's reader / writer and input generator (see
// npy_arrays.h). The runtime's headers name their own DataType; this file maps the IR's onto it.
#include "cli/npy_arrays.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "cli/driver.h"
#include "pypto_rt/npy.h"
#include "pypto_rt/random_fill.h"
#include "pto/pto_float.hpp"

namespace pypto::cli {

using ir::interp::Array;

namespace {

::DataType runtime_dtype(ir::DataType dt) {
  switch (dt) {
    case ir::DataType::FP32: return ::DataType::FLOAT32;
    case ir::DataType::FP16: return ::DataType::FLOAT16;
    case ir::DataType::BF16: return ::DataType::BFLOAT16;
    case ir::DataType::INT8: return ::DataType::INT8;
    case ir::DataType::INT16: return ::DataType::INT16;
    case ir::DataType::INT32: return ::DataType::INT32;
    case ir::DataType::INT64: return ::DataType::INT64;
    case ir::DataType::UINT8: return ::DataType::UINT8;
    case ir::DataType::UINT16: return ::DataType::UINT16;
    case ir::DataType::UINT32: return ::DataType::UINT32;
    case ir::DataType::UINT64: return ::DataType::UINT64;
    case ir::DataType::BOOL: return ::DataType::BOOL;
    case ir::DataType::FP8E4M3FN: return ::DataType::FP8E4M3FN;
    case ir::DataType::FP8E8M0: return ::DataType::FP8E8M0;
    default: throw UsageError(fmt::format("tensors of dtype {} cannot travel as .npy", ir::dtype_name(dt)));
  }
}

double half_bits(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double s = (h & 0x8000) ? -1 : 1;
  if (e == 0) return s * std::ldexp(m, -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(1024 + m, e - 25);
}

// One element of raw little-endian storage in the layout `descr` names.
double element(const std::string& descr, const uint8_t* p) {
  auto get = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  if (descr == "<f4") return get(float{});
  if (descr == "<f8") return get(double{});
  if (descr == "<f2") {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return half_bits(h);
  }
  if (descr == "|i1") return get(int8_t{});
  if (descr == "<i2") return get(int16_t{});
  if (descr == "<i4") return get(int32_t{});
  if (descr == "<i8") return get(int64_t{});
  if (descr == "|u1" || descr == "|b1") return get(uint8_t{});
  if (descr == "<u2") return get(uint16_t{});
  if (descr == "<u4") return get(uint32_t{});
  if (descr == "<u8") return get(uint64_t{});
  return NAN;
}

// float → IEEE half bits, round to nearest even (values are already FP16-representable).
uint16_t to_half_bits(double v) {
  const float f = static_cast<float>(v);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const double a = std::fabs(v);
  if (std::isnan(v)) return 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(std::nearbyint(a * std::ldexp(1.0, 24)));
  int ex = 0;
  const double m = std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
  uint32_t mant = static_cast<uint32_t>(std::nearbyint((m * 2 - 1) * 1024));
  int e = ex - 1 + 15;
  if (mant == 1024) mant = 0, ++e;
  return sign | static_cast<uint16_t>(e << 10) | static_cast<uint16_t>(mant);
}

}  // namespace

Array read_npy_array(const std::string& path, ir::DataType dt) {
  pypto_rt::NpyArray a;
  try {
    a = pypto_rt::read_npy(path);
  } catch (const pypto_rt::NpyError& e) {
    throw UsageError(e.what());
  }
  const std::string want = pypto_rt::npy_descr_for(runtime_dtype(dt));
  if (a.descr != want)
    throw UsageError(fmt::format("{}: dtype {} does not match the parameter's {} (expected {})", path, a.descr,
                                 ir::dtype_name(dt), want));
  Array out = Array::zeros(dt, a.shape);
  const uint64_t w = pypto_rt::npy_item_size(a.descr);
  for (int64_t i = 0; i < out.numel(); ++i) out.set(i, element(a.descr, a.data.data() + static_cast<uint64_t>(i) * w));
  return out;
}

void write_npy_array(const std::string& path, const Array& a) {
  const std::string descr = pypto_rt::npy_descr_for(runtime_dtype(a.dtype));
  const uint64_t w = pypto_rt::npy_item_size(descr);
  std::vector<uint8_t> bytes(static_cast<size_t>(a.numel()) * w);
  for (int64_t i = 0; i < a.numel(); ++i) {
    uint8_t* p = bytes.data() + static_cast<uint64_t>(i) * w;
    const double v = a.at(i);
    auto put = [&](auto x) { std::memcpy(p, &x, sizeof x); };
    if (descr == "<f4") put(static_cast<float>(v));
    else if (descr == "<f2") put(to_half_bits(v));
    else if (descr == "|i1") put(static_cast<int8_t>(v));
    else if (descr == "<i2") put(static_cast<int16_t>(v));
    else if (descr == "<i4") put(static_cast<int32_t>(v));
    else if (descr == "<i8") put(static_cast<int64_t>(v));
    else if (descr == "|u1" || descr == "|b1") put(static_cast<uint8_t>(v));
    else if (descr == "<u2") put(static_cast<uint16_t>(v));
    else if (descr == "<u4") put(static_cast<uint32_t>(v));
    else if (descr == "<u8") put(static_cast<uint64_t>(v));
  }
  try {
    pypto_rt::write_npy(path, descr, a.shape, bytes.data(), bytes.size());
  } catch (const pypto_rt::NpyError& e) {
    throw UsageError(e.what());
  }
}

Array seeded_array(ir::DataType dt, const std::vector<int64_t>& shape, uint64_t seed, int index) {
  Array out = Array::zeros(dt, shape);
  const ::DataType rt = runtime_dtype(dt);
  const auto raw = pypto_rt::random_fill(rt, static_cast<uint64_t>(out.numel()), seed, index);
  // BF16 arrives as 16-bit bf16 patterns, FP8 as its 8-bit codes, the others in their .npy layout.
  const std::string descr = rt == ::DataType::BFLOAT16 ? "" : pypto_rt::npy_descr_for(rt);
  if (rt == ::DataType::FP8E4M3FN || rt == ::DataType::FP8E8M0) {
    for (int64_t i = 0; i < out.numel(); ++i) {
      const uint8_t b = raw[static_cast<size_t>(i)];
      out.set(i, rt == ::DataType::FP8E4M3FN ? float(float8_e4m3_t::from_bits(b)) : float(float8_e8m0_t::from_bits(b)));
    }
    return out;
  }
  const uint64_t w = raw.size() / std::max<uint64_t>(1, static_cast<uint64_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const uint8_t* p = raw.data() + static_cast<uint64_t>(i) * w;
    if (rt == ::DataType::BFLOAT16) {
      uint16_t b;
      std::memcpy(&b, p, 2);
      const uint32_t bits = uint32_t{b} << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      out.set(i, f);
    } else {
      out.set(i, element(descr, p));
    }
  }
  return out;
}

}  // namespace pypto::cli
