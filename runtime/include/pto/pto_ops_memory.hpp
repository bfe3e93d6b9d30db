// pypto CPU runtime: data-movement instructions — TLOAD, TSTORE (plain and atomic-add, with dtype
// conversion), TMOV, TEXTRACT, TINSERT, TRESHAPE.
//
// GM <-> tile mapping (as pto-isa defines it for each GlobalTensor layout, dims d0..d4):
//   ND: tile row r spans dims 0..3 (d3 fastest), tile col c = dim 4;  requires rows = d0*d1*d2*d3,
//       cols = d4 (for a ColMajor tile also accepted: rows = d3, cols = d0*d1*d2*d4)
//   DN: tile row r = dim 3, tile col c spans dims 4, 2, 1, 0 (d4 fastest); rows = d3, cols = d0*d1*d2*d4
//   NZ: r = i2*d3 + i3, c = (i0*d1 + i1)*d4 + i4;                rows = d2*d3, cols = d0*d1*d4
// The tile's valid region must match the view's shape; a mismatch fails with a message.
// The MX scale layouts (TLOAD only, into a float8_e8m0_t / uint8_t Mat tile of fractal size 32)
// pack [16, 2] boxes, shape <d0, d1, d2, 16, 2>:
//   MX_A_ZZ ([M, K/32] scales of a Left operand): r = (i0*d1 + i1)*16 + i3, c = i2*2 + i4
//   MX_B_NN ([K/32, N] scales of a Right operand): r = i2*2 + i4,            c = (i0*d1 + i1)*16 + i3
// The view may be larger than the valid region (whole boxes; only the valid region is loaded)
// but must cover it, and must fit in the tile's static shape.
// TLOAD writes only the valid region, unless the tile has a PadValue other than Null, in which
// case the rest of the tile is filled with it first. Both check the GM bytes they touch against
// the kernel's tensor arguments first (pto_sim_check.hpp: gm_access).
#pragma once

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "pto_instr_hooks.hpp"
#include "pto_tile.hpp"

namespace pto {
namespace detail {

inline std::string dims_str(const int64_t (&d)[5]) {
    return "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + "," +
           std::to_string(d[3]) + "," + std::to_string(d[4]) + "]";
}

inline const char* layout_name(Layout l) {
    switch (l) {
        case Layout::ND: return "ND";
        case Layout::DN: return "DN";
        case Layout::NZ: return "NZ";
        case Layout::MX_A_ZZ: return "MX_A_ZZ";
        case Layout::MX_B_NN: return "MX_B_NN";
    }
    return "?";
}

template <Layout L>
inline constexpr bool is_mx_layout_v = L == Layout::MX_A_ZZ || L == Layout::MX_B_NN;

// Element offsets of the valid region of an MX scale view (the layouts in the header comment).
template <typename TileT, typename GT>
std::vector<int64_t> mx_gm_offsets(const TileT& t, const GT& g, const char* op) {
    int64_t d[5], s[5];
    for (int i = 0; i < 5; ++i) {
        d[i] = g.GetShape(i);
        s[i] = g.GetStride(i);
    }
    const bool a_side = GT::layout == Layout::MX_A_ZZ;
    const std::string what = std::string(op) + ": " + layout_name(GT::layout) + " GlobalTensor shape " + dims_str(d);
    if (d[3] != 16 || d[4] != 2) sim::fail(what + ": the MX scale layouts pack [16, 2] boxes (dims 3 and 4)");
    const int64_t boxes = d[0] * d[1];
    const int64_t gm_rows = a_side ? boxes * 16 : d[2] * 2, gm_cols = a_side ? d[2] * 2 : boxes * 16;
    const int64_t rows = t.GetValidRow(), cols = t.GetValidCol();
    if (gm_rows > TileT::Rows || gm_cols > TileT::Cols)
        sim::fail(what + " spans " + std::to_string(gm_rows) + "x" + std::to_string(gm_cols) +
                  " scales, more than the " + sim::tile_type_name(TileT::Loc) + " tile " +
                  std::to_string(TileT::Rows) + "x" + std::to_string(TileT::Cols));
    if (gm_rows < rows || gm_cols < cols)
        sim::fail(what + " spans " + std::to_string(gm_rows) + "x" + std::to_string(gm_cols) +
                  " scales, less than the tile's valid shape " + std::to_string(rows) + "x" + std::to_string(cols));
    std::vector<int64_t> off(static_cast<std::size_t>(rows * cols));
    std::size_t k = 0;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            const int64_t in_box = a_side ? r : c;  // along the 16 of the box
            const int64_t along_k = a_side ? c : r;  // along the 2 of the box
            const int64_t box = in_box / 16;
            off[k++] = (box / d[1]) * s[0] + (box % d[1]) * s[1] + (along_k / 2) * s[2] + (in_box % 16) * s[3] +
                       (along_k % 2) * s[4];
        }
    }
    return off;
}

// Element offsets (relative to gt.data()) of the valid region, row-major over (r, c).
template <typename TileT, typename GT>
std::vector<int64_t> gm_offsets(const TileT& t, const GT& g, const char* op) {
    if constexpr (is_mx_layout_v<GT::layout>) return mx_gm_offsets(t, g, op);
    int64_t d[5], s[5];
    for (int i = 0; i < 5; ++i) {
        d[i] = g.GetShape(i);
        s[i] = g.GetStride(i);
    }
    const int64_t rows = t.GetValidRow(), cols = t.GetValidCol();
    bool ok = false;
    if constexpr (GT::layout == Layout::ND) {
        ok = (d[0] * d[1] * d[2] * d[3] == rows && d[4] == cols) ||
             (!TileT::isRowMajor && d[3] == rows && d[0] * d[1] * d[2] * d[4] == cols);
    } else if constexpr (GT::layout == Layout::DN) {
        ok = d[3] == rows && d[0] * d[1] * d[2] * d[4] == cols;
    } else {
        ok = d[2] * d[3] == rows && d[0] * d[1] * d[4] == cols;
    }
    if (!ok)
        sim::fail(std::string(op) + ": " + sim::tile_type_name(TileT::Loc) + " tile valid shape " +
                  std::to_string(rows) + "x" + std::to_string(cols) + " does not match GlobalTensor shape " +
                  dims_str(d) + " (" + layout_name(GT::layout) + ")");
    std::vector<int64_t> off(static_cast<std::size_t>(rows * cols));
    std::size_t k = 0;
    const bool nd_colmajor_form = GT::layout == Layout::ND && !(d[0] * d[1] * d[2] * d[3] == rows && d[4] == cols);
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            int64_t i[5];
            if (GT::layout == Layout::ND && !nd_colmajor_form) {
                i[4] = c;
                i[3] = r % d[3];
                i[2] = (r / d[3]) % d[2];
                i[1] = (r / (d[3] * d[2])) % d[1];
                i[0] = r / (d[1] * d[2] * d[3]);
            } else if (GT::layout == Layout::NZ) {
                const int64_t oc = c / d[4];
                i[0] = oc / d[1];
                i[1] = oc % d[1];
                i[2] = r / d[3];
                i[3] = r % d[3];
                i[4] = c % d[4];
            } else {  // DN, or the column-major reading of ND
                i[3] = r;
                i[4] = c % d[4];
                i[2] = (c / d[4]) % d[2];
                i[1] = (c / (d[4] * d[2])) % d[1];
                i[0] = c / (d[1] * d[2] * d[4]);
            }
            off[k++] = i[0] * s[0] + i[1] * s[1] + i[2] * s[2] + i[3] * s[3] + i[4] * s[4];
        }
    }
    return off;
}

// The common case, ND in its row form with a unit innermost stride: tile row r is `cols`
// consecutive GM elements starting at the returned offset of row r. Empty when the view is in
// another form (gm_offsets then maps, or reports, element by element).
template <typename TileT, typename GT>
std::vector<int64_t> gm_row_starts(const TileT& t, const GT& g) {
    if constexpr (GT::layout != Layout::ND || TileT::ColumnStored) {
        return {};
    } else {
        int64_t d[5], s[5];
        for (int i = 0; i < 5; ++i) {
            d[i] = g.GetShape(i);
            s[i] = g.GetStride(i);
        }
        const int64_t rows = t.GetValidRow(), cols = t.GetValidCol();
        if (d[0] * d[1] * d[2] * d[3] != rows || d[4] != cols || (s[4] != 1 && cols > 1) || rows == 0) return {};
        std::vector<int64_t> off(static_cast<std::size_t>(rows));
        int64_t i0 = 0, i1 = 0, i2 = 0, i3 = 0;  // row r = ((i0 * d1 + i1) * d2 + i2) * d3 + i3
        for (int64_t r = 0; r < rows; ++r) {
            off[r] = i0 * s[0] + i1 * s[1] + i2 * s[2] + i3 * s[3];
            if (++i3 == d[3]) {
                i3 = 0;
                if (++i2 == d[2]) {
                    i2 = 0;
                    if (++i1 == d[1]) {
                        i1 = 0;
                        ++i0;
                    }
                }
            }
        }
        return off;
    }
}

inline std::mutex& atomic_store_mutex() {
    static std::mutex m;
    return m;
}

// Copy the rows x cols region of `t` starting at (row0, col0) into a row-major buffer (so
// overlapping src/dst is safe).
template <typename TileT>
std::vector<typename TileT::DType> snapshot(const TileT& t, unsigned rows, unsigned cols, unsigned row0 = 0,
                                            unsigned col0 = 0) {
    std::vector<typename TileT::DType> v(static_cast<std::size_t>(rows) * cols);
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) v[static_cast<std::size_t>(r) * cols + c] = t.at(row0 + r, col0 + c);
    return v;
}

// dst(dr0 + r, dc0 + c) = src(sr0 + r, sc0 + c) for r < rows, c < cols, as row copies when both
// tiles are row-stored with one element type and their bytes do not overlap; returns false
// (nothing done) otherwise, and the caller copies element by element through a snapshot.
template <typename DstT, typename SrcT>
bool copy_rows(DstT& dst, const SrcT& src, unsigned rows, unsigned cols, unsigned dr0 = 0, unsigned dc0 = 0,
               unsigned sr0 = 0, unsigned sc0 = 0) {
    using T = typename DstT::DType;
    if constexpr (!std::is_same_v<T, typename SrcT::DType> || DstT::ColumnStored || SrcT::ColumnStored) {
        return false;
    } else {
        if (rows == 0 || cols == 0) return true;
        const auto* s0 = reinterpret_cast<const uint8_t*>(src.data());
        const auto* d0 = reinterpret_cast<const uint8_t*>(dst.data());
        if (s0 < d0 + DstT::Bytes && d0 < s0 + SrcT::Bytes) return false;  // overlapping views
        for (unsigned r = 0; r < rows; ++r) std::memcpy(&dst.at(dr0 + r, dc0), &src.at(sr0 + r, sc0), cols * sizeof(T));
        return true;
    }
}

template <typename DstT, typename SrcT>
void check_in_src(const SrcT&, unsigned row_end, unsigned col_end, const char* op) {
    if (row_end > static_cast<unsigned>(SrcT::Rows) || col_end > static_cast<unsigned>(SrcT::Cols))
        sim::fail(std::string(op) + ": source region up to (" + std::to_string(row_end) + ", " +
                  std::to_string(col_end) + ") exceeds the source tile " + std::to_string(SrcT::Rows) + "x" +
                  std::to_string(SrcT::Cols));
}

}  // namespace detail

template <typename TileData, typename GlobalData, typename... WaitEvents>
    requires(is_tile_v<TileData> && is_global_v<GlobalData> && all_events_v<WaitEvents...>)
RecordEvent TLOAD(TileData& dst, GlobalData& src, WaitEvents&...) {
    using T = typename TileData::DType;
    static_assert(sizeof(T) == sizeof(typename GlobalData::RawDType), "TLOAD: tile and GM element sizes differ");
    if constexpr (detail::is_mx_layout_v<GlobalData::layout>) {
        using G = typename GlobalData::RawDType;
        constexpr bool a_side = GlobalData::layout == Layout::MX_A_ZZ;
        static_assert((std::is_same_v<T, float8_e8m0_t> || std::is_same_v<T, uint8_t>) &&
                          (std::is_same_v<G, float8_e8m0_t> || std::is_same_v<G, uint8_t>),
                      "TLOAD: an MX_A_ZZ / MX_B_NN view holds float8_e8m0_t (or uint8_t) scales");
        static_assert(TileData::Loc == TileType::Mat && TileData::SFractalSize == 32,
                      "TLOAD: MX scales load into a Mat tile of fractal size 32");
        static_assert(!a_side || (TileData::isRowMajor && TileData::SFractal == SLayout::RowMajor),
                      "TLOAD: MX_A_ZZ loads into a BLayout::RowMajor, SLayout::RowMajor (ZZ) Mat tile");
        static_assert(a_side || (!TileData::isRowMajor && TileData::SFractal == SLayout::ColMajor),
                      "TLOAD: MX_B_NN loads into a BLayout::ColMajor, SLayout::ColMajor (NN) Mat tile");
        constexpr int64_t box_rows = GlobalData::ShapeType::staticShape[3];
        constexpr int64_t box_cols = GlobalData::ShapeType::staticShape[4];
        static_assert((box_rows == 16 || box_rows == DYNAMIC) && (box_cols == 2 || box_cols == DYNAMIC),
                      "TLOAD: an MX_A_ZZ / MX_B_NN view has the [16, 2] box as its dims 3 and 4");
    }
    const auto rows_at = detail::gm_row_starts(dst, src);
    const auto off = rows_at.empty() ? detail::gm_offsets(dst, src, "TLOAD") : std::vector<int64_t>{};
    sim::gm_access(sim::gm_access_of(src, false), "TLOAD");
    if constexpr (TileData::PadVal != PadValue::Null) {
        const T pad = pad_value<T>(TileData::PadVal);
        for (int i = 0; i < TileData::Numel; ++i) dst.data()[i] = pad;
    }
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    const auto* g = src.data();
    if (!rows_at.empty()) {  // row by row
        for (unsigned r = 0; r < rows; ++r) std::memcpy(&dst.at(r, 0), g + rows_at[r], cols * sizeof(T));
        return {};
    }
    std::size_t k = 0;
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) std::memcpy(&dst.at(r, c), g + off[k++], sizeof(T));
    return {};
}

namespace detail {
template <AtomicType Atomic, typename TileData, typename GlobalData>
void tstore_impl(GlobalData& dst, TileData& src) {
    using TT = typename TileData::DType;
    using GT = typename GlobalData::RawDType;
    static_assert(!is_mx_layout_v<GlobalData::layout>, "TSTORE: the MX scale layouts are load-only (TLOAD)");
    const auto rows_at = Atomic == AtomicType::AtomicNone ? gm_row_starts(src, dst) : std::vector<int64_t>{};
    const auto off = rows_at.empty() ? gm_offsets(src, dst, "TSTORE") : std::vector<int64_t>{};
    sim::gm_access(sim::gm_access_of(dst, true), Atomic == AtomicType::AtomicAdd ? "TSTORE (atomic add)" : "TSTORE");
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    GT* g = const_cast<GT*>(dst.data());
    if (!rows_at.empty()) {  // row by row
        for (unsigned r = 0; r < rows; ++r) {
            const TT* row = &src.at(r, 0);
            GT* out = g + rows_at[r];
            if constexpr (std::is_same_v<TT, GT>) std::memcpy(out, row, cols * sizeof(TT));
            else
                for (unsigned c = 0; c < cols; ++c) out[c] = cvt::to<GT, TT>(row[c]);
        }
        return;
    }
    std::size_t k = 0;
    if constexpr (Atomic == AtomicType::AtomicAdd) {
        std::lock_guard<std::mutex> lock(atomic_store_mutex());
        for (unsigned r = 0; r < rows; ++r)
            for (unsigned c = 0; c < cols; ++c, ++k) {
                GT& cell = g[off[k]];
                if constexpr (is_float_like_v<GT>) cell = GT(static_cast<float>(cell) + cvt::to_f32(src.at(r, c)));
                else cell = static_cast<GT>(cell + cvt::to<GT>(src.at(r, c)));
            }
    } else {
        for (unsigned r = 0; r < rows; ++r)
            for (unsigned c = 0; c < cols; ++c) g[off[k++]] = cvt::to<GT, TT>(src.at(r, c));
    }
}
}  // namespace detail

template <typename TileData, typename GlobalData, typename... WaitEvents>
    requires(is_tile_v<TileData> && is_global_v<GlobalData> && all_events_v<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
    detail::tstore_impl<AtomicType::AtomicNone>(dst, src);
    return {};
}

template <typename TileData, typename GlobalData, AtomicType Atomic, typename... WaitEvents>
    requires(is_tile_v<TileData> && is_global_v<GlobalData> && all_events_v<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
    sim::instr_unwrapped<sim::InstrKind::Store, 0>("TSTORE", dst, src);  // called with template arguments
    detail::tstore_impl<Atomic>(dst, src);
    return {};
}

// TMOV: element copy (with dtype conversion, e.g. Acc float -> Vec/Mat half) of the region
// min(dst valid, src valid). Into a ScaleLeft / ScaleRight tile only from a Mat tile of the same
// static shape and element type (float8_e8m0_t or uint8_t), as pto-isa requires.
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
    requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && all_events_v<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
    if constexpr (DstTileData::Loc == TileType::ScaleLeft || DstTileData::Loc == TileType::ScaleRight) {
        using T = typename DstTileData::DType;
        static_assert(SrcTileData::Loc == TileType::Mat,
                      "TMOV: a ScaleLeft / ScaleRight tile is filled from a Mat tile");
        static_assert(std::is_same_v<T, typename SrcTileData::DType> &&
                          (std::is_same_v<T, float8_e8m0_t> || std::is_same_v<T, uint8_t>),
                      "TMOV: Mat -> ScaleLeft / ScaleRight moves float8_e8m0_t (or uint8_t) scales of one type");
        static_assert(SrcTileData::Rows == DstTileData::Rows && SrcTileData::Cols == DstTileData::Cols,
                      "TMOV: Mat -> ScaleLeft / ScaleRight needs equal static shapes");
    }
    const unsigned rows = std::min(dst.GetValidRow(), src.GetValidRow());
    const unsigned cols = std::min(dst.GetValidCol(), src.GetValidCol());
    if (detail::copy_rows(dst, src, rows, cols)) return {};
    const auto v = detail::snapshot(src, rows, cols);
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(r, c) = cvt::to<typename DstTileData::DType>(v[static_cast<std::size_t>(r) * cols + c]);
    return {};
}

// TEXTRACT: dst(r, c) = src(indexRow + r, indexCol + c) over dst's valid region.
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
    requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && all_events_v<WaitEvents...>)
RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src, uint16_t indexRow = 0, uint16_t indexCol = 0,
                     WaitEvents&...) {
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    detail::check_in_src<DstTileData>(src, indexRow + rows, indexCol + cols, "TEXTRACT");
    if (detail::copy_rows(dst, src, rows, cols, 0, 0, indexRow, indexCol)) return {};
    const auto v = detail::snapshot(src, rows, cols, indexRow, indexCol);
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(r, c) = cvt::to<typename DstTileData::DType>(v[static_cast<std::size_t>(r) * cols + c]);
    return {};
}

// TINSERT: dst(indexRow + r, indexCol + c) = src(r, c) over src's valid region.
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
    requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && all_events_v<WaitEvents...>)
RecordEvent TINSERT(DstTileData& dst, SrcTileData& src, uint16_t indexRow = 0, uint16_t indexCol = 0,
                    WaitEvents&...) {
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    if (indexRow + rows > static_cast<unsigned>(DstTileData::Rows) ||
        indexCol + cols > static_cast<unsigned>(DstTileData::Cols))
        sim::fail("TINSERT: region exceeds the destination tile");
    if (detail::copy_rows(dst, src, rows, cols, indexRow, indexCol)) return {};
    const auto v = detail::snapshot(src, rows, cols);
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(indexRow + r, indexCol + c) =
                cvt::to<typename DstTileData::DType>(v[static_cast<std::size_t>(r) * cols + c]);
    return {};
}

// TRESHAPE: reinterpret the same bytes with another tile type (same TileType, same byte size).
// An unassigned dst is bound to src's address (pto-isa CPU behaviour); a dst assigned elsewhere
// receives a byte copy (the NPU behaviour); the same address is a no-op.
template <typename TileDataOut, typename TileDataIn, typename... WaitEvents>
    requires(is_tile_v<TileDataOut> && is_tile_v<TileDataIn> && all_events_v<WaitEvents...>)
RecordEvent TRESHAPE(TileDataOut& dst, TileDataIn& src, WaitEvents&...) {
    static_assert(TileDataOut::Loc == TileDataIn::Loc, "TRESHAPE: source and target TileType must be the same");
    static_assert(TileDataOut::Bytes == TileDataIn::Bytes, "TRESHAPE: total byte size must match");
    if (!dst.assigned()) {
        dst.bind_(src.address(), reinterpret_cast<typename TileDataOut::DType*>(src.data()));
    } else if (static_cast<void*>(dst.data()) != static_cast<void*>(src.data())) {
        std::memmove(dst.data(), src.data(), TileDataIn::Bytes);
    }
    return {};
}

}  // namespace pto
