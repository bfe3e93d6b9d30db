// C++ spellings of the kernel-side types (output-format.md §2.2, §2.3): the pto-isa `Tile<...>`
// of an IR tile type (layouts per memory space and SoC, TileView overrides) and the
// `GlobalTensor<...>` of a GM window (5-D shape/stride, leading 1s) with the strides used for
// its element offset. Pure functions of the IR types; a type CheckKernelForms rejects is an InternalError.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/soc.h"
#include "ir/type.h"
#include "ir/span.h"

namespace pypto::emit {

struct TypeSpelling {
  std::string alias_base;  // readable alias name stem: "Vec_float_64x128"
  std::string text;        // the full template type
};

// The Tile<...> of `t`: its Cols is the row pitch, so a window of a wider tile (tile.slice, whose
// TileView stride InitMemRef sets) is a Tile as wide as its source holding its own shape as the
// valid extent. A window of an Acc / Mat tile (TileView buffer_shape) is its source's Tile.
TypeSpelling tile_type_spelling(const ir::TileType& t, const ir::SocInfo& soc, const ir::Span& sp);

// Elements between two rows of `t` in its buffer: the TileView's row stride, else its columns.
int64_t tile_row_pitch(const ir::TileType& t, const ir::Span& sp);

struct GmViewSpelling {
  TypeSpelling type;                 // GlobalTensor<...>; a dynamic extent or stride is -1 in it
  std::vector<std::string> strides;  // element strides of the tensor's dimensions, as C++ ("128", "(L)")
  // With a dynamic extent or stride: the constructor arguments, "pto::Shape<...>(d0, ..., d4)" and
  // "pto::Stride<...>(s0, ..., s4)" (all five values, as pto-isa's five-argument constructors take
  // them); empty when the type is static.
  std::string shape_arg, stride_arg;
};

// The view of `window` (one extent per tensor dimension, rank 1..5; a non-constant extent is a
// dynamic one, a valid region) into a tensor of type `t`; `expr` prints an index expression. The
// tensor's strides are its TensorView's, else packed row-major from its shape (dynamic dims
// included).
GmViewSpelling gm_view_spelling(const ir::TensorType& t, const std::vector<ir::ExprPtr>& window,
                                const std::function<std::string(const ir::ExprPtr&)>& expr, const ir::Span& sp);

}  // namespace pypto::emit
