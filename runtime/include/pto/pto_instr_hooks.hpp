// pypto CPU runtime: what an instruction tells the checkers (pto_sim_check.hpp) before it runs —
// its name and kernel source line (for every error message), and, with --check-syncs, its pipe
// and the bytes it touches, derived from its arguments:
//   * the first tile argument is the destination (written), every other tile argument is read —
//     except for TSTORE, which only reads its tile; a trailing scratch tile (Scratch > 0: the
//     instruction's tile count without it) is read and written;
//   * a GlobalTensor argument is GM read (TLOAD) or written (TSTORE), as its bounding byte range;
//   * the pipe (README "Pipes", as the compiler's op registry states it): TLOAD MTE2; TSTORE MTE3,
//     FIX from an Acc tile; TMOV / TEXTRACT / TINSERT by the source and destination buffers (from
//     L0C: FIX; L1 to L0A / L0B / Bias / scale: MTE1; UB to L1: FIX; L1 to L1: MTE1; else V);
//     matmuls M; everything else V; GetValue / SetValue and scalar GM reads S.
// The wrappers of pto_instr_sites.hpp call instr_enter(); instructions kernels call with explicit
// template arguments (which the wrappers cannot catch) call instr_unwrapped() themselves. Per call
// site this is two thread-local stores and a test; with --check-syncs each argument is reduced to
// an InstrArg and the rest happens out of line (sync_instruction, runtime/src/sim_checks.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "pto_sim_check.hpp"
#include "pto_sim_memory.hpp"
#include "pto_tile.hpp"

namespace pto::sim {

// The GM elements a GlobalTensor view describes.
template <typename GT>
GmAccess gm_access_of(const GT& g, bool write) {
    GmAccess a;
    a.addr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(g.data()));
    a.elem_size = static_cast<uint32_t>(sizeof(typename GT::RawDType));
    for (int k = 0; k < 5; ++k) {
        a.shape[k] = g.GetShape(k);
        a.stride[k] = g.GetStride(k);
    }
    a.write = write;
    return a;
}

namespace detail {
template <typename T>
inline constexpr bool tile_arg_v = is_tile_v<std::remove_cvref_t<T>>;
template <typename T>
inline constexpr bool global_arg_v = is_global_v<std::remove_cvref_t<T>>;
}  // namespace detail

// What the sync model needs of one instruction argument (InstrArg, pto_sim_check.hpp).
template <typename T>
inline InstrArg instr_arg(const T& a) {
    if constexpr (detail::tile_arg_v<T>) {
        using Tile = std::remove_cvref_t<T>;
        const Space sp = space_of(Tile::Loc);
        if (sp == Space::COUNT || !a.assigned()) return InstrArg{InstrArg::kTileWithoutBytes, 0, 0};
        // The bytes of its valid region: a window of a wider tile (a Tile as wide as its source
        // at an offset, valid over its own columns) ends with its last valid element, not with
        // its last row's full pitch. (A Mat tile stored column by column: its whole buffer.)
        uint64_t bytes = Tile::Bytes;
        if constexpr (!Tile::ColumnStored) {
            const uint64_t vr = a.GetValidRow(), vc = a.GetValidCol();
            if (vr > 0 && vc > 0)
                bytes = std::min<uint64_t>(bytes, ((vr - 1) * Tile::Cols + vc) * sizeof(typename Tile::DType));
        }
        return InstrArg{static_cast<int>(sp), a.address(), a.address() + bytes};
    } else if constexpr (detail::global_arg_v<T>) {
        const GmAccess g = gm_access_of(a, false);
        return InstrArg{kGmSpace, g.lo(), g.empty() ? g.lo() : g.hi()};
    } else {
        return InstrArg{InstrArg::kNotMemory, 0, 0};
    }
}

// The sync-model record of one instruction (--check-syncs only).
template <InstrKind Kind, int Scratch, typename... A>
inline void instr_sync(const char* name, uint32_t line, const A&... a) {
    const InstrArg args[] = {instr_arg(a)..., InstrArg{InstrArg::kNotMemory, 0, 0}};
    sync_instruction(Kind, Scratch, name, line, args, static_cast<int>(sizeof...(A)));
}

// Entry of an instruction through its wrapper (pto_instr_sites.hpp): `line` is the call's line.
template <InstrKind Kind, int Scratch, typename... A>
inline void instr_enter(const char* name, uint32_t line, const A&... a) {
    KernelContext& k = current_kernel();
    k.instr = name;
    k.line = line;
    if (k.check_syncs) [[unlikely]]
        instr_sync<Kind, Scratch>(name, line, a...);
}

// Entry of an instruction called with explicit template arguments (no wrapper, line unknown);
// quiet when a wrapper already announced it.
template <InstrKind Kind, int Scratch, typename... A>
inline void instr_unwrapped(const char* name, const A&... a) {
    KernelContext& k = current_kernel();
    if (k.wrapped) return;
    k.instr = name;
    k.line = 0;
    if (k.check_syncs) [[unlikely]]
        instr_sync<Kind, Scratch>(name, 0, a...);
}


}  // namespace pto::sim
