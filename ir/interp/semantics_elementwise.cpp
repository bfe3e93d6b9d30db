// Reference semantics of the elementwise ops, tensor and tile forms alike: binary (with numpy
// broadcasting, which covers row_expand_* / col_expand_*: their vector operand has extent 1 on the
// broadcast axis), tensor-scalar, unary, cast with its rounding modes, compare / select (a tile
// compare packs one bit per column, least significant bit first, into UINT8 bytes), creation
// (full, create, ci, expands, tri). Casts round in their mode= for float and integer targets
// alike. Scratch operands (tmp tiles) are ignored.
#include <cmath>

#include <fmt/format.h>

#include "ir/interp/op_semantics.h"

namespace pypto::ir::interp {
namespace {

using Fn2 = double (*)(double, double);
using Fn1 = double (*)(double);

int64_t as_int(double v) { return static_cast<int64_t>(v); }

// Integer-valued operations in double: exact for the integer dtypes the DSL has (≤ 2^53).
double bit_and(double a, double b) { return double(as_int(a) & as_int(b)); }
double bit_or(double a, double b) { return double(as_int(a) | as_int(b)); }
double bit_xor(double a, double b) { return double(as_int(a) ^ as_int(b)); }
double shift_left(double a, double b) { return double(static_cast<int64_t>(static_cast<uint64_t>(as_int(a)) << (as_int(b) & 63))); }
double shift_right(double a, double b) { return double(as_int(a) >> (as_int(b) & 63)); }
// TREM: the remainder takes the sign of the divisor; TFMOD: that of the dividend.
double remainder_floor(double a, double b) { return a - std::floor(a / b) * b; }

struct Bin {
  const char* name;
  Fn2 f;
};
const Bin kBinary[] = {
    {"add", [](double a, double b) { return a + b; }},
    {"sub", [](double a, double b) { return a - b; }},
    {"mul", [](double a, double b) { return a * b; }},
    {"div", [](double a, double b) { return a / b; }},
    {"maximum", [](double a, double b) { return std::fmax(a, b); }},
    {"minimum", [](double a, double b) { return std::fmin(a, b); }},
    {"fmod", [](double a, double b) { return std::fmod(a, b); }},
    {"rem", remainder_floor},
    {"and", bit_and},
    {"or", bit_or},
    {"xor", bit_xor},
    {"shl", shift_left},
    {"shr", shift_right},
};

// The _expand suffixes: row_expand_add(t, v) = t + v broadcast, ...; expdif = exp(t - v).
const Bin kExpand[] = {
    {"add", [](double a, double b) { return a + b; }},
    {"sub", [](double a, double b) { return a - b; }},
    {"mul", [](double a, double b) { return a * b; }},
    {"div", [](double a, double b) { return a / b; }},
    {"max", [](double a, double b) { return std::fmax(a, b); }},
    {"min", [](double a, double b) { return std::fmin(a, b); }},
    {"expdif", [](double a, double b) { return std::exp(a - b); }},
};

struct Un {
  const char* name;
  Fn1 f;
};
const Un kUnary[] = {
    {"exp", [](double x) { return std::exp(x); }},
    {"sqrt", [](double x) { return std::sqrt(x); }},
    {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
    {"neg", [](double x) { return -x; }},
    {"abs", [](double x) { return std::fabs(x); }},
    {"relu", [](double x) { return x > 0 ? x : 0.0; }},
    {"log", [](double x) { return std::log(x); }},
    {"recip", [](double x) { return 1.0 / x; }},
    {"cos", [](double x) { return std::cos(x); }},
    {"sin", [](double x) { return std::sin(x); }},
    {"not", [](double x) { return double(~as_int(x)); }},
};

Value binary(const OpEval& e, Fn2 f) {
  Array out = e.result();
  const Array& a = e.arr(0);
  const Array& b = e.arr(1);
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) out.set(i, f(broadcast_at(a, out.shape, i), broadcast_at(b, out.shape, i)));
  return Value::array(out);
}

Value binary_scalar(const OpEval& e, Fn2 f) {
  Array out = e.result();
  const Array& a = e.arr(0);
  const double s = e.num(1);
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) out.set(i, f(broadcast_at(a, out.shape, i), s));
  return Value::array(out);
}

Value unary(const OpEval& e, Fn1 f) {
  Array out = e.result();
  const Array& a = e.arr(0);
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) out.set(i, f(broadcast_at(a, out.shape, i)));
  return Value::array(out);
}

// pl.cast's mode= (a name, or its number 0..6 in the order none, rint, round, floor, ceil,
// trunc, odd); the default is "round".
RoundMode cast_mode(const OpEval& e) {
  static const char* kModes[] = {"none", "rint", "round", "floor", "ceil", "trunc", "odd"};
  static const RoundMode kRound[] = {RoundMode::Rint,  RoundMode::Rint,  RoundMode::Round, RoundMode::Floor,
                                     RoundMode::Ceil,  RoundMode::Trunc, RoundMode::Odd};
  const AttrValue* m = e.kw("mode");
  if (m)
    if (const auto* i = std::get_if<int64_t>(m); i && *i >= 0 && *i <= 6) return kRound[*i];
  const std::string name = e.kw_str("mode", "round");
  for (int k = 0; k < 7; ++k)
    if (name == kModes[k]) return kRound[k];
  return RoundMode::Round;
}

bool compare(int64_t mode, double a, double b) {
  switch (mode) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

// tile.cmp / cmps: bit j % 8 of byte j / 8 in row i is the predicate of element (i, j).
Value compare_mask(const OpEval& e, bool scalar_rhs) {
  Array out = e.result();
  const Array& a = e.arr(0);
  const int64_t mode = e.kw_int("cmp_type", 0);
  const int64_t rows = a.shape[0], cols = a.shape[1];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const double rhs = scalar_rhs ? e.num(1) : e.arr(1).at({i, j});
      if (!compare(mode, a.at({i, j}), rhs)) continue;
      const std::vector<int64_t> at{i, j / 8};
      out.set(at, double(as_int(out.at(at)) | (int64_t{1} << (j % 8))));
    }
  return Value::array(out);
}

bool mask_bit(const Array& mask, int64_t i, int64_t j) {
  return (as_int(mask.at({i, j / 8})) >> (j % 8)) & 1;
}

// tensor.cmp: 1 / 0 values of the operand's dtype.
Value compare_values(const OpEval& e) {
  Array out = e.result();
  const Array& a = e.arr(0);
  const int64_t mode = e.kw_int("cmp_type", 0);
  const bool scalar_rhs = e.args.size() > 1 && e.args[1].is_scalar();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double rhs = scalar_rhs ? e.num(1) : broadcast_at(e.arr(1), out.shape, i);
    out.set(i, compare(mode, broadcast_at(a, out.shape, i), rhs) ? 1.0 : 0.0);
  }
  return Value::array(out);
}

Value fill(const OpEval& e, double v) {
  Array out = e.result();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) out.set(i, v);
  return Value::array(out);
}

double kw_number(const OpEval& e, std::string_view name, double dflt) {
  const AttrValue* a = e.kw(name);
  if (!a) return dflt;
  if (const auto* d = std::get_if<double>(a)) return *d;
  if (const auto* i = std::get_if<int64_t>(a)) return double(*i);
  if (const auto* b = std::get_if<bool>(a)) return *b;
  return dflt;
}

}  // namespace

void define_elementwise(OpRegistry& r) {
  for (const char* fam : {"tensor.", "tile."}) {
    const std::string f = fam;
    const bool tile = f == "tile.";
    for (const auto& b : kBinary) {
      Fn2 fn = b.f;
      if (r.find(f + b.name)) define(r, f + b.name, [fn](const OpEval& e) { return binary(e, fn); });
      if (r.find(f + b.name + "s"))
        define(r, f + b.name + "s", [fn](const OpEval& e) { return binary_scalar(e, fn); });
    }
    for (const auto& u : kUnary) {
      Fn1 fn = u.f;
      if (r.find(f + u.name)) define(r, f + u.name, [fn](const OpEval& e) { return unary(e, fn); });
    }
    for (const char* axis : {"row_expand", "col_expand"}) {
      // row_expand(t, v) / col_expand(t, v): v broadcast to t's shape.
      define(r, f + axis, [](const OpEval& e) {
        Array out = e.result();
        const Array& v = e.arr(1);
        for (int64_t i = 0; i < out.numel(); ++i) out.set(i, broadcast_at(v, out.shape, i));
        return Value::array(out);
      });
      for (const auto& x : kExpand) {
        Fn2 fn = x.f;
        define(r, f + axis + "_" + x.name, [fn](const OpEval& e) { return binary(e, fn); });
      }
    }
    define(r, f + "cast", [](const OpEval& e) {
      Array out = e.result();
      const Array& a = e.arr(0);
      const RoundMode mode = cast_mode(e);
      for (int64_t i = 0; i < out.numel(); ++i) out.set(i, round_to(out.dtype, a.at(i), mode));
      return Value::array(out);
    });
    define(r, f + "full", [](const OpEval& e) { return fill(e, kw_number(e, "value", 0)); });
    define(r, f + "expands", [](const OpEval& e) { return fill(e, e.num(1)); });
    // pl.arange: start, start + 1, ... in row-major order (descending: start, start - 1, ...).
    define(r, f + "ci", [](const OpEval& e) {
      Array out = e.result();
      const double start = e.num(0);
      const double step = e.kw_bool("descending", false) ? -1 : 1;
      for (int64_t i = 0; i < out.numel(); ++i) out.set(i, start + step * double(i));
      return Value::array(out);
    });
    define(r, f + "part_add", [](const OpEval& e) { return binary(e, [](double a, double b) { return a + b; }); });
    define(r, f + "part_mul", [](const OpEval& e) { return binary(e, [](double a, double b) { return a * b; }); });
    define(r, f + "part_max", [](const OpEval& e) { return binary(e, [](double a, double b) { return std::fmax(a, b); }); });
    define(r, f + "part_min", [](const OpEval& e) { return binary(e, [](double a, double b) { return std::fmin(a, b); }); });
    if (!tile) {
      define(r, "tensor.cmp", compare_values);
      // A fresh tensor: zeros, or init_value= when given (hardware leaves it uninitialised; a
      // program that reads it before writing is wrong either way).
      define(r, "tensor.create", [](const OpEval& e) { return fill(e, kw_number(e, "init_value", 0)); });
    }
  }
  define(r, "tile.create", [](const OpEval& e) { return fill(e, 0); });
  // An L1 staging tensor (uninitialised on the hardware, as tile.create is): zeros.
  define(r, "tensor.create_l1", [](const OpEval& e) {
    if (e.kw_bool("transpose", false)) e.fail("pl.create_l1(transpose=True) has no reference semantics yet");
    return fill(e, 0);
  });
  define(r, "tile.cmp", [](const OpEval& e) { return compare_mask(e, false); });
  define(r, "tile.cmps", [](const OpEval& e) { return compare_mask(e, true); });
  define(r, "tile.sel", [](const OpEval& e) {
    Array out = e.result();
    const Array& m = e.arr(0);
    for (int64_t i = 0; i < out.shape[0]; ++i)
      for (int64_t j = 0; j < out.shape[1]; ++j)
        out.set({i, j}, mask_bit(m, i, j) ? e.arr(1).at({i, j}) : e.arr(2).at({i, j}));
    return Value::array(out);
  });
  define(r, "tile.sels", [](const OpEval& e) {
    Array out = e.result();
    const Array& m = e.arr(0);
    for (int64_t i = 0; i < out.shape[0]; ++i)
      for (int64_t j = 0; j < out.shape[1]; ++j) out.set({i, j}, mask_bit(m, i, j) ? e.arr(1).at({i, j}) : e.num(3));
    return Value::array(out);
  });
  define(r, "tile.addc", [](const OpEval& e) {
    Array out = e.result();
    for (int64_t i = 0; i < out.numel(); ++i) out.set(i, e.arr(0).at(i) + e.arr(1).at(i) + e.arr(2).at(i));
    return Value::array(out);
  });
  define(r, "tile.subc", [](const OpEval& e) {
    Array out = e.result();
    for (int64_t i = 0; i < out.numel(); ++i) out.set(i, e.arr(0).at(i) - e.arr(1).at(i) + e.arr(2).at(i));
    return Value::array(out);
  });
  define(r, "tile.addsc", [](const OpEval& e) {
    Array out = e.result();
    for (int64_t i = 0; i < out.numel(); ++i) out.set(i, e.arr(0).at(i) + e.num(1) + e.arr(2).at(i));
    return Value::array(out);
  });
  define(r, "tile.subsc", [](const OpEval& e) {
    Array out = e.result();
    for (int64_t i = 0; i < out.numel(); ++i) out.set(i, e.arr(0).at(i) - e.num(1) + e.arr(2).at(i));
    return Value::array(out);
  });
  define(r, "tile.lrelu", [](const OpEval& e) {
    Array out = e.result();
    const double s = e.num(1);
    for (int64_t i = 0; i < out.numel(); ++i) {
      const double x = e.arr(0).at(i);
      out.set(i, x > 0 ? x : x * s);
    }
    return Value::array(out);
  });
  define(r, "tile.prelu", [](const OpEval& e) {
    Array out = e.result();
    for (int64_t i = 0; i < out.numel(); ++i) {
      const double x = e.arr(0).at(i);
      out.set(i, x > 0 ? x : x * broadcast_at(e.arr(1), out.shape, i));
    }
    return Value::array(out);
  });
  // tile.tri: ones on and below (upper=False) / above the diagonal `diagonal`, zeros elsewhere.
  define(r, "tile.tri", [](const OpEval& e) {
    Array out = e.result();
    const int64_t k = static_cast<int64_t>(e.num(0));
    const bool upper = e.kw_bool("upper", false);
    for (int64_t i = 0; i < out.shape[0]; ++i)
      for (int64_t j = 0; j < out.shape[1]; ++j) out.set({i, j}, upper ? (j - i >= k) : (j - i <= k));
    return Value::array(out);
  });
}

}  // namespace pypto::ir::interp
