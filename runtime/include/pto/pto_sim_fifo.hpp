// pypto CPU runtime: the SoC-independent half of the cross-core FIFOs (TPUSH / TPOP / TFREE over a
// TPipe, pto_ops_fifo.hpp): the calls the tile templates make into the runtime library, which keeps
// the rings of the running mixed task's gang (runtime/src/executor_gang.cpp). A call names the
// pipe (FlagID, DirType, SlotSize, SlotNum), the split mode and the tile's valid region; elements
// travel as a dense row-major byte image of that region. Outside an executor's mixed task every
// call fails ("... outside a mixed task").
#pragma once

#include <cstdint>

namespace pto::sim {

struct FifoCall {
    const char* instr = "";     // "TPUSH", "TPOP", "TFREE"
    uint8_t flag = 0;           // TPipe FlagID
    uint8_t dir_type = 0;       // TPipe DirType (Direction)
    uint32_t slot_size = 0;     // bytes per ring slot
    uint32_t slot_num = 0;      // slots per ring
    uint8_t split = 0;          // TileSplitAxis
    const char* tile_type = "";  // the tile's TileType name ("Vec", "Mat", "Acc", ...)
    const char* dtype = "";     // element type name (identity of the element type, with elem_size)
    uint32_t elem_size = 0;
    uint32_t rows = 0, cols = 0;  // the tile's valid region
};

// Blocks while every slot of the ring is outstanding, then copies rows*cols*elem_size bytes
// (row-major) into the next slot and signals the consumer.
void fifo_push(const FifoCall& c, const void* data);
// Blocks until the next slot has been pushed, checks dtype and shape against the push, copies the
// region (this lane's half in a split mode) into `out`. Returns this lane's pop index on the ring.
uint64_t fifo_pop(const FifoCall& c, void* out);
// Releases the oldest popped, not yet freed slot.
void fifo_free(const FifoCall& c);

}  // namespace pto::sim
