// Values of the reference interpreter (`pypto eval`, the oracle): scalars, arrays (tensors and
// tiles alike: a dtype, a shape and strided storage of doubles, each element already rounded to
// the dtype) and tuples. A tensor value is a handle: slices are views of the same storage, and a
// store writes through to every view, as GM behaves. Tile values are copied by the ops that
// produce them. Nothing here is shared with the CPU runtime's tile instructions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace pypto::ir::interp {

// Rounds `v` once to what an element of `dt` can hold: FP32 / FP16 / BF16 to nearest even,
// integers wrap to their width (after truncation toward zero), BOOL to 0 / 1. INDEX and TASK_ID
// are 64-bit integers; FP8E4M3FN rounds to nearest even (beyond 448: NaN), FP8E8M0 to the power
// of two at or below. FP8E5M2, FP4 and HF* are not modelled: they raise.
double round_to(DataType dt, double v);
// pl.cast's rounding modes: to nearest even (none / rint), half away from zero (round), floor,
// ceil, toward zero (trunc), to odd (odd: an inexact result gets an odd last bit).
enum class RoundMode : uint8_t { Rint, Round, Floor, Ceil, Trunc, Odd };
// `v` rounded to `dt` in `mode` (float and integer targets alike).
double round_to(DataType dt, double v, RoundMode mode);

struct Array {
  DataType dtype = DataType::FP32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  int64_t offset = 0;
  std::shared_ptr<std::vector<double>> data;

  // A fresh contiguous array of zeros.
  static Array zeros(DataType dt, std::vector<int64_t> shape);
  int64_t numel() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  // Row-major element i (0 <= i < numel) of the logical array.
  int64_t flat_to_storage(int64_t i) const;
  double at(int64_t i) const { return (*data)[static_cast<size_t>(flat_to_storage(i))]; }
  // Writes element i, rounded to the array's dtype.
  void set(int64_t i, double v) const { (*data)[static_cast<size_t>(flat_to_storage(i))] = round_to(dtype, v); }
  // Element at a multi-index (rank must match).
  double at(const std::vector<int64_t>& idx) const;
  void set(const std::vector<int64_t>& idx, double v) const;
  // A contiguous copy (own storage) with the same dtype and shape.
  Array copy() const;
  // A view sharing storage: `shape` at `offsets` (no bounds check; callers check).
  Array view(const std::vector<int64_t>& offsets, const std::vector<int64_t>& shape) const;
  bool contiguous() const;
};

struct Value {
  enum class Kind : uint8_t { None, Scalar, Array, Tuple };
  Kind kind = Kind::None;
  DataType dtype = DataType::INDEX;  // scalars
  double num = 0;                    // scalars (integers are exact up to 2^53)
  Array arr;
  std::vector<Value> elems;

  static Value scalar(DataType dt, double v);
  static Value array(Array a);
  static Value tuple(std::vector<Value> v);
  bool is_array() const { return kind == Kind::Array; }
  bool is_scalar() const { return kind == Kind::Scalar; }
};

std::string shape_text(const std::vector<int64_t>& shape);  // "[64, 128]"

}  // namespace pypto::ir::interp
