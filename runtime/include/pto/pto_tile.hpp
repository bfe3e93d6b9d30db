// pypto CPU runtime: Tile, TASSIGN, and the global-memory views Shape / Stride / GlobalTensor.
//
// Storage convention (ours, not the NPU's): every tile is stored DENSE ROW-MAJOR
// `[Rows][Cols]` at its TASSIGN byte address, whatever its BLayout / SLayout (same byte
// footprint, Rows*Cols*sizeof(T)). Element (r, c) is at flat index r*Cols + c; GetValue /
// SetValue take that flat index. One exception keeps the NPU's byte identity of transposed
// views: a Mat tile in the ZN layout (BLayout::RowMajor, SLayout::ColMajor — the transpose dual
// of Mat's natural NZ) is stored column-major, element (r, c) at c*Rows + r, so a ZN [C, R] tile
// TRESHAPEd over an NZ [R, C] tile's bytes (tile.transpose_view, the b_trans operand) reads that
// tile's transpose, as the NPU's fractal layouts do. A column vector [R,1] (BLayout::ColMajor) is therefore just R
// consecutive elements, and a sub-tile view declared with the parent's Cols and TASSIGNed at
// parent + (r0*Cols + c0)*sizeof(T) addresses the parent's elements. Instructions act on the
// valid region (GetValidRow() x GetValidCol()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "pto_sim_check.hpp"
#include "pto_sim_memory.hpp"
#include "pto_types.hpp"

namespace pto {

template <TileType Loc_, typename Element_, int Rows_, int Cols_, BLayout BFractal_ = BLayout::RowMajor,
          int RowValid_ = Rows_, int ColValid_ = Cols_, SLayout SFractal_ = SLayout::NoneBox, int SFractalSize_ = 512,
          PadValue PadVal_ = PadValue::Null, CompactMode Compact_ = CompactMode::Null>
struct Tile {
    using DType = Element_;
    static constexpr TileType Loc = Loc_;
    static constexpr int Rows = Rows_;
    static constexpr int Cols = Cols_;
    static constexpr int ValidRow = RowValid_;
    static constexpr int ValidCol = ColValid_;
    static constexpr BLayout BFractal = BFractal_;
    static constexpr SLayout SFractal = SFractal_;
    static constexpr int SFractalSize = SFractalSize_;
    static constexpr PadValue PadVal = PadVal_;
    static constexpr CompactMode Compact = Compact_;
    static constexpr int Numel = Rows * Cols;
    static constexpr bool isRowMajor = BFractal_ == BLayout::RowMajor;
    static constexpr bool ColumnStored =
        Loc_ == TileType::Mat && BFractal_ == BLayout::RowMajor && SFractal_ == SLayout::ColMajor;
    static constexpr std::size_t Bytes = static_cast<std::size_t>(Numel) * sizeof(DType);

    static_assert(Rows > 0 && Cols > 0, "Tile: Rows and Cols must be positive");
    static_assert((ValidRow == DYNAMIC || (ValidRow >= 0 && ValidRow <= Rows)) &&
                      (ValidCol == DYNAMIC || (ValidCol >= 0 && ValidCol <= Cols)),
                  "Tile: valid dims must be -1 (dynamic) or within [0, Rows] x [0, Cols]");
    static_assert(SFractalSize_ == 512 || SFractalSize_ == 1024 || SFractalSize_ == 32,
                  "Tile: SFractalSize must be 512, 1024 or 32");
    // Fractal size 32 (MX scale tiles, one byte per element): the box is 16x2 for SLayout::RowMajor
    // and 2x16 for SLayout::ColMajor; as in pto-isa, Rows need not be a multiple of the box rows.
    static_assert(SFractalSize_ != 32 || SFractal_ == SLayout::NoneBox ||
                      Cols % (SFractal_ == SLayout::RowMajor ? 2 : 16) == 0,
                  "Tile: a fractal-32 (MX scale) tile needs Cols to be a multiple of its box's columns "
                  "(2 for SLayout::RowMajor, 16 for SLayout::ColMajor)");
    static_assert(SFractal_ != SLayout::NoneBox || !isRowMajor || (Cols * sizeof(DType)) % 32 == 0,
                  "Tile: RowMajor non-boxed tile needs Cols * sizeof(T) to be a multiple of 32 bytes");
    static_assert(SFractal_ != SLayout::NoneBox || isRowMajor || (Rows * sizeof(DType)) % 32 == 0,
                  "Tile: ColMajor non-boxed tile needs Rows * sizeof(T) to be a multiple of 32 bytes");

    Tile() = default;
    Tile(unsigned vr, unsigned vc)
        requires(ValidRow == DYNAMIC && ValidCol == DYNAMIC)
        : vr_(vr), vc_(vc) {
        check_valid();
    }
    explicit Tile(unsigned v)
        requires((ValidRow == DYNAMIC) != (ValidCol == DYNAMIC))
    {
        if constexpr (ValidRow == DYNAMIC) vr_ = v;
        else vc_ = v;
        check_valid();
    }

    unsigned GetValidRow() const { return ValidRow == DYNAMIC ? vr_ : static_cast<unsigned>(ValidRow); }
    unsigned GetValidCol() const { return ValidCol == DYNAMIC ? vc_ : static_cast<unsigned>(ValidCol); }
    void SetValidRow(unsigned v)
        requires(ValidRow == DYNAMIC)
    {
        vr_ = v;
        check_valid();
    }
    void SetValidCol(unsigned v)
        requires(ValidCol == DYNAMIC)
    {
        vc_ = v;
        check_valid();
    }
    void SetValidShape(unsigned r, unsigned c)
        requires(ValidRow == DYNAMIC && ValidCol == DYNAMIC)
    {
        vr_ = r;
        vc_ = c;
        check_valid();
    }

    // Element pointer; aborts if the tile has not been TASSIGNed.
    DType* data() const {
        if (!data_) sim::fail(std::string(sim::tile_type_name(Loc)) + " tile used before TASSIGN");
        return data_;
    }
    bool assigned() const { return data_ != nullptr; }
    uint64_t address() const { return addr_; }

    DType& at(unsigned r, unsigned c) const {
        if constexpr (ColumnStored) return data()[static_cast<std::size_t>(c) * Rows + r];
        else return data()[static_cast<std::size_t>(r) * Cols + c];
    }

    // Scalar element access (PIPE_S). The defaulted __builtin_LINE() records the caller's line
    // for the checkers (pto_sim_check.hpp); kernels call these with the pto-isa arguments.
    DType GetValue(uint32_t flat, uint32_t line = __builtin_LINE()) const {
        scalar_access("GetValue", false, line);
        check_flat(flat);
        return data()[flat];
    }
    void SetValue(uint32_t flat, DType v, uint32_t line = __builtin_LINE()) {
        scalar_access("SetValue", true, line);
        check_flat(flat);
        data()[flat] = v;
    }

    // Used by TASSIGN / TRESHAPE.
    void bind_(uint64_t addr, DType* p) {
        addr_ = addr;
        data_ = p;
    }

private:
    void scalar_access(const char* what, bool write, uint32_t line) const {
        sim::KernelContext& k = sim::current_kernel();
        k.instr = what;
        k.line = line;
        if (!k.check_syncs || !data_ || sim::space_of(Loc) == sim::Space::COUNT) return;
        const sim::SyncAccess a{static_cast<int>(sim::space_of(Loc)), addr_, addr_ + Bytes, write};
        sim::sync_instr(sim::kPipeS, what, line, &a, 1);
    }
    void check_valid() const {
        if (GetValidRow() > static_cast<unsigned>(Rows) || GetValidCol() > static_cast<unsigned>(Cols))
            sim::fail("tile valid shape " + std::to_string(GetValidRow()) + "x" + std::to_string(GetValidCol()) +
                      " exceeds its static shape " + std::to_string(Rows) + "x" + std::to_string(Cols));
    }
    static void check_flat(uint32_t flat) {
        if (flat >= static_cast<uint32_t>(Numel))
            sim::fail("GetValue/SetValue index " + std::to_string(flat) + " outside the tile's " +
                      std::to_string(Numel) + " elements");
    }

    DType* data_ = nullptr;
    uint64_t addr_ = 0;
    unsigned vr_ = ValidRow == DYNAMIC ? static_cast<unsigned>(Rows) : static_cast<unsigned>(ValidRow);
    unsigned vc_ = ValidCol == DYNAMIC ? static_cast<unsigned>(Cols) : static_cast<unsigned>(ValidCol);
};

template <typename T>
struct is_tile : std::false_type {};
template <TileType L, typename E, int R, int C, BLayout B, int VR, int VC, SLayout S, int F, PadValue P, CompactMode M>
struct is_tile<Tile<L, E, R, C, B, VR, VC, S, F, P, M>> : std::true_type {};
template <typename T>
inline constexpr bool is_tile_v = is_tile<std::remove_cv_t<T>>::value;

// Aliases of pto-isa (under __CPU_SIM TileLeft is the ColMajor form).
template <typename T, int R, int C, int RV = R, int CV = C>
using TileLeft = Tile<TileType::Left, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor, 512>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileRight = Tile<TileType::Right, T, R, C, BLayout::RowMajor, RV, CV, SLayout::ColMajor, 512>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileAcc = Tile<TileType::Acc, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor, 1024>;
// The MX scale tiles (float8_e8m0_t [M, K/32] for a Left tile, [K/32, N] for a Right tile).
template <typename T, int R, int C, int RV = R, int CV = C>
using TileLeftScale = Tile<TileType::ScaleLeft, T, R, C, BLayout::RowMajor, RV, CV, SLayout::RowMajor, 32>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileRightScale = Tile<TileType::ScaleRight, T, R, C, BLayout::ColMajor, RV, CV, SLayout::ColMajor, 32>;

// The storage offset (in elements) of element (row, col) of a TileT, in this runtime's storage
// convention (above); pto-isa's function of the same name gives the NPU's fractal layouts. A
// window of a fractal-layout tile is declared with its source's Tile type at
// source + GetTileOffset<Source>(r0, c0) * sizeof(T), which addresses the same elements on both.
template <typename TileT>
    requires is_tile_v<TileT>
inline std::size_t GetTileOffset(int row, int col) {
    if constexpr (TileT::ColumnStored) return static_cast<std::size_t>(col) * TileT::Rows + row;
    else return static_cast<std::size_t>(row) * TileT::Cols + col;
}

// Place `tile` at byte offset `addr` of its memory space on the calling core. The bytes its valid
// region reaches must lie inside the space: a window declared with its source's Tile type (see
// GetTileOffset) may have a static extent past the end of the buffer it views.
template <typename TileT, typename AddrT>
    requires is_tile_v<TileT>
inline void TASSIGN(TileT& tile, AddrT addr) {
    const uint64_t a = static_cast<uint64_t>(addr);
    const int vr = static_cast<int>(tile.GetValidRow()), vc = static_cast<int>(tile.GetValidCol());
    const std::size_t reach =
        vr == 0 || vc == 0 ? 0 : (GetTileOffset<TileT>(vr - 1, vc - 1) + 1) * sizeof(typename TileT::DType);
    uint8_t* p = sim::resolve(TileT::Loc, a, reach, alignof(typename TileT::DType));
    tile.bind_(a, reinterpret_cast<typename TileT::DType*>(p));
}

// ---- global memory views ----

namespace detail {
template <int64_t... N>
inline constexpr int count_dynamic_v = ((N == DYNAMIC ? 1 : 0) + ...);

// Fill the dynamic entries of `out` (static ones from N...): from 5 values (dynamic positions
// only are taken) or from exactly as many values as there are dynamic entries.
template <int64_t... N, typename... A>
inline void fill_dims(int64_t (&out)[5], A... a) {
    constexpr int64_t stat[5] = {N...};
    const int64_t vals[] = {static_cast<int64_t>(a)..., 0};
    constexpr int nvals = static_cast<int>(sizeof...(A));
    int k = 0;
    for (int i = 0; i < 5; ++i) {
        if (stat[i] != DYNAMIC) {
            out[i] = stat[i];
        } else if (nvals == 5) {
            out[i] = vals[i];
        } else {
            out[i] = k < nvals ? vals[k++] : 1;
        }
    }
}
}  // namespace detail

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Shape {
    static constexpr int64_t staticShape[5] = {N1, N2, N3, N4, N5};
    static constexpr int kDynamic = detail::count_dynamic_v<N1, N2, N3, N4, N5>;
    int64_t shape[5];
    Shape() { detail::fill_dims<N1, N2, N3, N4, N5>(shape); }
    template <typename... A>
        requires((sizeof...(A) == 5 || (sizeof...(A) == kDynamic && sizeof...(A) > 0)) &&
                 (std::is_integral_v<A> && ...))
    Shape(A... a) {
        detail::fill_dims<N1, N2, N3, N4, N5>(shape, a...);
    }
};

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Stride {
    static constexpr int64_t staticStride[5] = {N1, N2, N3, N4, N5};
    static constexpr int kDynamic = detail::count_dynamic_v<N1, N2, N3, N4, N5>;
    int64_t stride[5];
    Stride() { detail::fill_dims<N1, N2, N3, N4, N5>(stride); }
    template <typename... A>
        requires((sizeof...(A) == 5 || (sizeof...(A) == kDynamic && sizeof...(A) > 0)) &&
                 (std::is_integral_v<A> && ...))
    Stride(A... a) {
        detail::fill_dims<N1, N2, N3, N4, N5>(stride, a...);
    }
};

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
    using DType = Element_;
    using RawDType = std::remove_cv_t<Element_>;
    using ShapeType = Shape_;
    using StrideType = Stride_;
    static constexpr Layout layout = Layout_;

    GlobalTensor() = default;
    GlobalTensor(DType* data, const Shape_& shape = Shape_(), const Stride_& stride = Stride_())
        : data_(data), shape_(shape), stride_(stride) {}

    DType* data() const { return data_; }
    int64_t GetShape(int dim) const { return shape_.shape[dim]; }
    int64_t GetStride(int dim) const { return stride_.stride[dim]; }

private:
    DType* data_ = nullptr;
    Shape_ shape_{};
    Stride_ stride_{};
};

template <typename T>
struct is_global : std::false_type {};
template <typename E, typename S, typename St, Layout L>
struct is_global<GlobalTensor<E, S, St, L>> : std::true_type {};
template <typename T>
inline constexpr bool is_global_v = is_global<std::remove_cv_t<T>>::value;

}  // namespace pto
