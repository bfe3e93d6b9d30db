// C++ spellings of the kernel-side types (output-format.md §2.2, §2.3): the pto-isa `Tile<...>`
// of an IR tile type (layouts per memory space and SoC, TileView overrides) and the
// `GlobalTensor<...>` of a GM window (5-D shape/stride, leading 1s) with the strides used for
// its element offset. Pure functions of the IR types; a type CheckKernelForms rejects is an InternalError.
#pragma once

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
// valid extent.
TypeSpelling tile_type_spelling(const ir::TileType& t, const ir::SocInfo& soc, const ir::Span& sp);

// Elements between two rows of `t` in its buffer: the TileView's row stride, else its columns.
int64_t tile_row_pitch(const ir::TileType& t, const ir::Span& sp);

struct GmViewSpelling {
  TypeSpelling type;
  std::vector<int64_t> strides;  // element strides of the tensor's dimensions
};

// The view of `window` (one extent per tensor dimension, rank 1..5) into a tensor of type `t`.
GmViewSpelling gm_view_spelling(const ir::TensorType& t, const std::vector<int64_t>& window, const ir::Span& sp);

}  // namespace pypto::emit
