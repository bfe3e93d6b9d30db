// pypto CPU runtime: the simulated on-chip memories of one core and the error channel of the
// tile API.
//
// Each thread that runs kernel code (one executor worker = one simulated core) owns its own set of
// buffers with the real capacities; a tile lives at its TASSIGN byte address inside the buffer of
// its TileType, so two tiles assigned overlapping ranges really alias (a wrong memory plan shows
// up as wrong numbers). Capacities (bytes):
//                 UB      L1      L0A    L0B    L0C     Bias   FB    ScaleL ScaleR
//   910B (default) 192Ki  512Ki   64Ki   64Ki   128Ki   1Ki    4Ki   4Ki    4Ki
//   950 (-DPYPTO_SOC_950) 248Ki, L0C 256Ki, Bias 4Ki; the rest as 910B.
// Buffers are allocated on first use and filled with 0xFF bytes (NaN for float types) so that
// reading a never-written element is visible; they keep their contents between tasks, like the
// hardware.
//
// Space (the buffer names) lives in pto_sim_check.hpp, which the SoC-independent runtime library
// shares. Errors (address out of range, tile used before TASSIGN, GM shape mismatch, ...) go through
// pto::sim::fail(), which names the running kernel (set by the executor through
// pto::sim::KernelScope) and calls an optional handler (tests install one that throws) before
// printing the message and aborting.
#pragma once

// The SoC capacities below make this header SoC-specific; the prebuilt runtime library serves
// every SoC, so it must not include it (CMakeLists.txt defines PYPTO_RUNTIME_LIBRARY there).
#if defined(PYPTO_RUNTIME_LIBRARY)
#error "pto_sim_memory.hpp depends on PYPTO_SOC_950 and must not be compiled into libpypto_runtime"
#endif

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "pto_sim_check.hpp"
#include "pto_sim_context.hpp"
#include "pto_types.hpp"

namespace pto::sim {

constexpr std::size_t KiB = 1024;
#if defined(PYPTO_SOC_950)
constexpr std::size_t kUbBytes = 248 * KiB;
constexpr std::size_t kL0cBytes = 256 * KiB;
constexpr std::size_t kBiasBytes = 4 * KiB;
#else
constexpr std::size_t kUbBytes = 192 * KiB;
constexpr std::size_t kL0cBytes = 128 * KiB;
constexpr std::size_t kBiasBytes = 1 * KiB;
#endif

constexpr std::size_t capacity(Space s) {
    switch (s) {
        case Space::UB: return kUbBytes;
        case Space::L1: return 512 * KiB;
        case Space::L0A: return 64 * KiB;
        case Space::L0B: return 64 * KiB;
        case Space::L0C: return kL0cBytes;
        case Space::BIAS: return kBiasBytes;
        case Space::FB: return 4 * KiB;
        case Space::SCALE_L: return 4 * KiB;
        case Space::SCALE_R: return 4 * KiB;
        case Space::COUNT: break;
    }
    return 0;
}

constexpr const char* tile_type_name(TileType t) {
    switch (t) {
        case TileType::Vec: return "Vec";
        case TileType::Mat: return "Mat";
        case TileType::Left: return "Left";
        case TileType::Right: return "Right";
        case TileType::Acc: return "Acc";
        case TileType::Bias: return "Bias";
        case TileType::Scaling: return "Scaling";
        case TileType::ScaleLeft: return "ScaleLeft";
        case TileType::ScaleRight: return "ScaleRight";
        case TileType::Ctrl: return "Ctrl";
    }
    return "?";
}

constexpr Space space_of(TileType t) {
    switch (t) {
        case TileType::Vec: return Space::UB;
        case TileType::Mat: return Space::L1;
        case TileType::Left: return Space::L0A;
        case TileType::Right: return Space::L0B;
        case TileType::Acc: return Space::L0C;
        case TileType::Bias: return Space::BIAS;
        case TileType::Scaling: return Space::FB;
        case TileType::ScaleLeft: return Space::SCALE_L;
        case TileType::ScaleRight: return Space::SCALE_R;
        case TileType::Ctrl: break;
    }
    return Space::COUNT;
}

// ---- the per-thread buffers ----
class CoreMemory {
public:
    uint8_t* base(Space s) {
        auto& b = bufs_[static_cast<int>(s)];
        if (!b) {
            b = std::make_unique<uint8_t[]>(capacity(s));
            std::memset(b.get(), 0xFF, capacity(s));
        }
        return b.get();
    }
    // Refill every allocated buffer with the 0xFF poison pattern.
    void poison() {
        for (int i = 0; i < static_cast<int>(Space::COUNT); ++i)
            if (bufs_[i]) std::memset(bufs_[i].get(), 0xFF, capacity(static_cast<Space>(i)));
    }

private:
    std::unique_ptr<uint8_t[]> bufs_[static_cast<int>(Space::COUNT)];
};
inline CoreMemory& core_memory() {
    thread_local CoreMemory mem;
    return mem;
}

// Checked address of [addr, addr+bytes) in the buffer of `type` on this thread.
inline uint8_t* resolve(TileType type, uint64_t addr, std::size_t bytes, std::size_t align) {
    const Space s = space_of(type);
    if (s == Space::COUNT) fail(std::string("TASSIGN: tile type ") + tile_type_name(type) + " has no simulated buffer");
    const std::size_t cap = capacity(s);
    if (addr > cap || bytes > cap - addr) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "TASSIGN: %s tile of %zu bytes at address %llu (0x%llx) exceeds the %s buffer (%zu bytes)",
                      tile_type_name(type), bytes, static_cast<unsigned long long>(addr),
                      static_cast<unsigned long long>(addr), space_name(s), cap);
        fail(buf);
    }
    if (align > 1 && addr % align != 0) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "TASSIGN: %s tile address %llu is not a multiple of its element size %zu",
                      tile_type_name(type), static_cast<unsigned long long>(addr), align);
        fail(buf);
    }
    return core_memory().base(s) + addr;
}

}  // namespace pto::sim
