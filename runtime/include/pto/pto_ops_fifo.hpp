// pypto CPU runtime: cross-core FIFOs between the AIC and AIV kernels of one mixed task — TPipe,
// TPUSH, TPOP, TFREE (names, enums and template parameters as pto-isa spells them).
//
//   using P = TPipe<FlagID, DirType, SlotSize, SlotNum [, LocalSlotNum, IsNoSplit, EN_UNIT_FLAG]>;
//   P pipe(gm_slot_buffer_or_nullptr, c2v_consumer_buf /*UB offset*/, v2c_consumer_buf /*L1 offset*/);
//   TPUSH<P, TileT, TileSplitAxis::TILE_NO_SPLIT>(pipe, tile);   // producer
//   TPOP<P, TileT, TileSplitAxis::TILE_NO_SPLIT>(pipe, tile);    // consumer: TASSIGNs and fills tile
//   TFREE<P, TileSplitAxis::TILE_NO_SPLIT>(pipe);                // consumer: releases the oldest pop
// (TPUSH / TPOP also take pto-isa's trailing int32_t subBlockId, which must be the calling lane's.)
//
// The direction of a call follows the calling core: TPUSH on the AIC and TPOP on an AIV use the
// C2V ring, TPUSH on an AIV and TPOP on the AIC the V2C ring (DIR_BOTH: both rings exist). The
// rings live in the runtime (the GM slot buffer is ignored), one per (gang = SPMD block of the
// mixed task, FlagID, direction), SlotNum slots of SlotSize bytes: TPUSH blocks while SlotNum
// slots are pushed and not yet freed, TPOP blocks until the next slot is pushed. A slot carries
// the valid region's elements in logical row-major order with dtype and shape; TPOP checks both
// against its tile and places the tile at consumer_buf + (pop index % LocalSlotNum) * SlotSize of
// UB (C2V, Vec tile) or L1 (V2C, Mat tile), as pto-isa a2a3 does. Split modes: TILE_NO_SPLIT is
// served by AIV lane 0; TILE_UP_DOWN / TILE_LEFT_RIGHT need both AIV lanes (C2V: each lane pops its
// half of the pushed tile, the slot is free once both freed it; V2C: each lane pushes its half,
// the AIC pops the whole). The *_ODD modes and DIR_V2C_CTRL fail as unsupported. Deadlocks, a pop
// whose push never comes and tiles left in a ring at the end of the task stop the run with a
// message naming both kernels (runtime/src/executor_gang.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "pto_cpu_stub.hpp"
#include "pto_instr_hooks.hpp"
#include "pto_sim_fifo.hpp"
#include "pto_tile.hpp"

namespace pto {

enum TileSplitAxis : uint8_t {
    TILE_NO_SPLIT = 0,
    TILE_UP_DOWN = 1,
    TILE_LEFT_RIGHT = 2,
    TILE_UP_DOWN_ODD = 3,
    TILE_LEFT_RIGHT_ODD = 4,
};

enum Direction : uint8_t {
    UNDEFINED = 0,
    DIR_C2V = 1,
    DIR_V2C = 2,
    DIR_BOTH = 3,
    DIR_V2C_CTRL = 4,
};

template <uint8_t FlagID, uint8_t DirType, uint32_t SlotSize, uint32_t SlotNum, uint32_t LocalSlotNum = 2,
          bool IsNoSplit = false, bool EN_UNIT_FLAG = false>
struct TPipe {
    static constexpr uint8_t kFlag = FlagID;
    static constexpr uint8_t kDirType = DirType;
    static constexpr uint32_t kSlotSize = SlotSize;
    static constexpr uint32_t kSlotNum = SlotNum;
    static constexpr uint32_t kLocalSlotNum = LocalSlotNum;
    static_assert(DirType >= DIR_C2V && DirType <= DIR_V2C_CTRL, "TPipe: DirType must be DIR_C2V, DIR_V2C, DIR_BOTH or DIR_V2C_CTRL");
    static_assert(SlotNum >= 1, "TPipe: SlotNum must be >= 1");
    static_assert(LocalSlotNum >= 1, "TPipe: LocalSlotNum must be >= 1");
    static_assert(SlotSize >= 1, "TPipe: SlotSize must be >= 1");

    explicit TPipe(__gm__ void* gm_slot_buffer, uint32_t c2v_consumer_buf, uint32_t v2c_consumer_buf)
        : gm_slot_buffer_(gm_slot_buffer), c2v_consumer_buf_(c2v_consumer_buf), v2c_consumer_buf_(v2c_consumer_buf) {}

    __gm__ void* gm_slot_buffer_;
    uint32_t c2v_consumer_buf_;
    uint32_t v2c_consumer_buf_;
    uint64_t pops_[2] = {0, 0};  // this object's pops per direction (C2V, V2C): the local slot index
};

template <typename T>
struct is_tpipe : std::false_type {};
template <uint8_t F, uint8_t D, uint32_t S, uint32_t N, uint32_t L, bool NS, bool U>
struct is_tpipe<TPipe<F, D, S, N, L, NS, U>> : std::true_type {};

namespace detail {

template <typename T>
constexpr const char* fifo_dtype_name() {
    if constexpr (std::is_same_v<T, float>) return "float32";
    else if constexpr (std::is_same_v<T, half>) return "float16";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16";
    else if constexpr (std::is_same_v<T, float8_e4m3_t>) return "float8_e4m3";
    else if constexpr (std::is_same_v<T, float8_e8m0_t>) return "float8_e8m0";
    else if constexpr (std::is_same_v<T, double>) return "float64";
    else if constexpr (std::is_same_v<T, int8_t>) return "int8";
    else if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16";
    else if constexpr (std::is_same_v<T, uint16_t>) return "uint16";
    else if constexpr (std::is_same_v<T, int32_t>) return "int32";
    else if constexpr (std::is_same_v<T, uint32_t>) return "uint32";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64";
    else if constexpr (std::is_same_v<T, uint64_t>) return "uint64";
    else if constexpr (std::is_same_v<T, bool>) return "bool";
    else return "an unnamed element type";
}

template <typename Pipe>
sim::FifoCall fifo_call(const char* instr, uint8_t split) {
    sim::FifoCall c;
    c.instr = instr;
    c.flag = Pipe::kFlag;
    c.dir_type = Pipe::kDirType;
    c.slot_size = Pipe::kSlotSize;
    c.slot_num = Pipe::kSlotNum;
    c.split = split;
    return c;
}
template <typename Pipe, typename TileT>
sim::FifoCall fifo_call(const char* instr, uint8_t split, const TileT& tile) {
    sim::FifoCall c = fifo_call<Pipe>(instr, split);
    c.tile_type = sim::tile_type_name(TileT::Loc);
    c.dtype = fifo_dtype_name<typename TileT::DType>();
    c.elem_size = static_cast<uint32_t>(sizeof(typename TileT::DType));
    c.rows = tile.GetValidRow();
    c.cols = tile.GetValidCol();
    return c;
}

inline void fifo_announce(const char* instr) {
    sim::KernelContext& k = sim::current_kernel();
    k.instr = instr;
    k.line = 0;
}

// The explicit-subBlockId forms: the lane is the calling AIV core's, so the id must name it.
inline void fifo_check_sub_block(const char* instr, int32_t sub_block_id) {
    const sim::KernelContext& k = sim::current_kernel();
    if (k.gang && k.gang_member > 0 && sub_block_id != k.gang_member - 1)
        sim::fail(std::string(instr) + " with subBlockId " + std::to_string(sub_block_id) + " on AIV lane " +
                  std::to_string(k.gang_member - 1) + ": the CPU runtime serves a lane's pipe calls on that lane only");
}

}  // namespace detail

// Producer: copies the tile's valid region into the next slot of the ring (blocking while it is full).
template <typename Pipe, typename TileProd, TileSplitAxis Split, typename... WaitEvents>
    requires(is_tpipe<Pipe>::value && is_tile_v<TileProd> && all_events_v<WaitEvents...>)
RecordEvent TPUSH(Pipe& pipe, TileProd& tile, WaitEvents&...) {
    (void)pipe;
    detail::fifo_announce("TPUSH");
    using T = typename TileProd::DType;
    const sim::FifoCall c = detail::fifo_call<Pipe>("TPUSH", Split, tile);
    std::vector<T> v(static_cast<std::size_t>(c.rows) * c.cols);
    for (unsigned r = 0; r < c.rows; ++r)
        for (unsigned col = 0; col < c.cols; ++col) v[static_cast<std::size_t>(r) * c.cols + col] = tile.at(r, col);
    sim::fifo_push(c, v.data());
    return {};
}

// Consumer: waits for the next slot, places `tile` in the consumer buffer and fills its valid region.
template <typename Pipe, typename TileCons, TileSplitAxis Split, typename... WaitEvents>
    requires(is_tpipe<Pipe>::value && is_tile_v<TileCons> && all_events_v<WaitEvents...>)
RecordEvent TPOP(Pipe& pipe, TileCons& tile, WaitEvents&...) {
    detail::fifo_announce("TPOP");
    using T = typename TileCons::DType;
    static_assert(TileCons::Loc == TileType::Vec || TileCons::Loc == TileType::Mat,
                  "TPOP: the consumer tile must be a Vec tile (C2V, on an AIV) or a Mat tile (V2C, on the AIC)");
    constexpr bool c2v = TileCons::Loc == TileType::Vec;
    const sim::FifoCall c = detail::fifo_call<Pipe>("TPOP", Split, tile);
    std::vector<T> v(static_cast<std::size_t>(c.rows) * c.cols);
    sim::fifo_pop(c, v.data());
    uint64_t& pops = pipe.pops_[c2v ? 0 : 1];
    const uint64_t base = c2v ? pipe.c2v_consumer_buf_ : pipe.v2c_consumer_buf_;
    TASSIGN(tile, base + (pops % Pipe::kLocalSlotNum) * static_cast<uint64_t>(Pipe::kSlotSize));
    ++pops;
    for (unsigned r = 0; r < c.rows; ++r)
        for (unsigned col = 0; col < c.cols; ++col) tile.at(r, col) = v[static_cast<std::size_t>(r) * c.cols + col];
    return {};
}

// Consumer: releases the oldest popped, not yet freed slot back to the producer.
template <typename Pipe, TileSplitAxis Split, typename... WaitEvents>
    requires(is_tpipe<Pipe>::value && all_events_v<WaitEvents...>)
RecordEvent TFREE(Pipe& pipe, WaitEvents&...) {
    (void)pipe;
    detail::fifo_announce("TFREE");
    const sim::FifoCall c = detail::fifo_call<Pipe>("TFREE", Split);
    sim::fifo_free(c);
    return {};
}

template <typename Pipe, typename TileProd, TileSplitAxis Split, typename... WaitEvents>
    requires(is_tpipe<Pipe>::value && is_tile_v<TileProd> && all_events_v<WaitEvents...>)
RecordEvent TPUSH(Pipe& pipe, TileProd& tile, int32_t sub_block_id, WaitEvents&... e) {
    detail::fifo_check_sub_block("TPUSH", sub_block_id);
    return TPUSH<Pipe, TileProd, Split>(pipe, tile, e...);
}
template <typename Pipe, typename TileCons, TileSplitAxis Split, typename... WaitEvents>
    requires(is_tpipe<Pipe>::value && is_tile_v<TileCons> && all_events_v<WaitEvents...>)
RecordEvent TPOP(Pipe& pipe, TileCons& tile, int32_t sub_block_id, WaitEvents&... e) {
    detail::fifo_check_sub_block("TPOP", sub_block_id);
    return TPOP<Pipe, TileCons, Split>(pipe, tile, e...);
}

}  // namespace pto
