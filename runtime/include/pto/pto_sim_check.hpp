// pypto CPU runtime: the checkers the tile API runs inside a kernel (SoC-independent, so the
// executor can include it; everything but the bounds test's fast path is implemented out of line
// in the runtime library, runtime/src/sim_checks.cpp, so that kernels stay small).
//
// GM bounds (always on). gm_access() checks one TLOAD / TSTORE / scalar GM read against the GM
// extents of the running kernel's tensor arguments (KernelContext::views): the bytes it touches
// must lie inside one argument's view, else the run stops (fail()) naming the task, the kernel,
// the source line and the extents. With --check-races it also hands the access to the executor.
// One loop over at most 32 arguments per instruction, never per element.
//
// Pipe synchronisation (--check-syncs, KernelContext::check_syncs). On the NPU each pipe (S, V,
// MTE1, MTE2, MTE3, M, FIX) runs its own queue in order, concurrently with the others; only
// set_flag / wait_flag (and pipe_barrier) order instructions of different pipes. The CPU runs
// everything in program order, so this models the hardware's ordering with vector clocks, the
// same model as the compiler's static checker (passes/pipe_sync_check.cpp):
//   seq              every instruction's number in program order; last[P] = newest on pipe P;
//   vc[X][P]         the newest instruction of pipe P known complete before pipe X's next one;
//   set_flag(P,C,e)  snapshots vc[P] plus last[P]; wait_flag(P,C,e) merges the snapshot into vc[C];
//   pipe_barrier(P)  completes P for P (PIPE_ALL: every pipe for every pipe).
// An instruction on pipe C that touches bytes an earlier instruction on pipe P wrote (RAW, WAW) or
// read (WAR) is ordered after it when P == C (in-order queue; V needs pipe_barrier(PIPE_V), as
// the reference emits and the static checker demands) or vc[C][P] >= that instruction's seq;
// anything else is reported with both instructions and their source lines. Accesses are byte
// ranges of a tile's footprint in its on-chip buffer, or the bounding byte range of a GM access.
// A wait_flag with no pending set_flag (a hang on the NPU), a set_flag of an event still pending
// and a set_flag never waited for by the end of the kernel are reported too.
#pragma once

#include <cstdint>

#include "pto_sim_context.hpp"

namespace pto::sim {

// The on-chip buffers of a core (capacities in pto_sim_memory.hpp) and, for the sync model, GM.
enum class Space { UB, L1, L0A, L0B, L0C, BIAS, FB, SCALE_L, SCALE_R, COUNT };
constexpr int kGmSpace = static_cast<int>(Space::COUNT);

constexpr const char* space_name(Space s) {
    switch (s) {
        case Space::UB: return "UB";
        case Space::L1: return "L1";
        case Space::L0A: return "L0A";
        case Space::L0B: return "L0B";
        case Space::L0C: return "L0C";
        case Space::BIAS: return "BiasTable";
        case Space::FB: return "FixpipeBuffer";
        case Space::SCALE_L: return "L0A-scale";
        case Space::SCALE_R: return "L0B-scale";
        case Space::COUNT: break;
    }
    return "GM";
}

// ---- GM bounds (always on) ----

// Checks `a` against the running kernel's tensor arguments (KernelContext::views) and returns
// the index of the argument whose view holds it; outside an executor dispatch (no views) or for
// an empty access -1. An access outside every view stops the run (fail()). Out of line
// (runtime/src/sim_checks.cpp): one call per instruction.
int gm_access(const GmAccess& a, const char* what);

// ---- pipe synchronisation (--check-syncs) ----

// Pipe numbers are pipe_t values (pto_cpu_stub.hpp): S 0, V 1, MTE1 2, MTE2 3, MTE3 4, M 5,
// ALL 6 (barriers only), FIX 7.
constexpr int kPipes = 8;
constexpr int kPipeS = 0, kPipeV = 1, kPipeMte1 = 2, kPipeMte2 = 3, kPipeMte3 = 4, kPipeM = 5, kPipeAll = 6,
              kPipeFix = 7;
constexpr int kEvents = 8;

inline const char* pipe_label(int p) {
    static const char* const names[kPipes] = {"PIPE_S",    "PIPE_V", "PIPE_MTE1", "PIPE_MTE2",
                                              "PIPE_MTE3", "PIPE_M", "PIPE_ALL",  "PIPE_FIX"};
    return p >= 0 && p < kPipes ? names[p] : "PIPE_?";
}

struct SyncAccess {
    int space = 0;  // Space, or kGmSpace
    uint64_t lo = 0, hi = 0;
    bool write = false;
};

// An instruction as the model sees it: its kind (which decides the pipe, see pto_instr_hooks.hpp)
// and, per argument, the bytes it names: a tile's footprint in its buffer, a GlobalTensor's
// bounding GM range, or nothing (scalars, modes).
enum class InstrKind : uint8_t { Vector, Load, Store, Move, Cube };
struct InstrArg {
    static constexpr int kNotMemory = -1;        // a scalar or mode argument
    static constexpr int kTileWithoutBytes = -2;  // a tile not in a buffer (unassigned)
    int space;                                    // Space, kGmSpace, or one of the above
    uint64_t lo, hi;
};

// The model's entry points (runtime/src/sim_checks.cpp, out of line so that kernels stay small;
// the state is per thread, i.e. per simulated core, and per dispatch).
void sync_begin();  // start of a kernel dispatch: nothing in flight
void sync_end();    // end of a dispatch: every set_flag must have been waited for
// One instruction on `pipe` touching `acc[0..n)`; `instr` must outlive the dispatch (a literal).
void sync_instr(int pipe, const char* instr, uint32_t line, const SyncAccess* acc, int n);
// One tile instruction: pipe and accesses from its kind and arguments (first tile written, the
// others read — TSTORE only reads —, a trailing scratch tile read and written when the
// instruction has `scratch` + 1 tiles; GM read by TLOAD, written by TSTORE).
void sync_instruction(InstrKind kind, int scratch, const char* instr, uint32_t line, const InstrArg* args, int n);
void sync_set_flag(int src, int dst, int event, uint32_t line);
void sync_wait_flag(int src, int dst, int event, uint32_t line);
void sync_barrier(int pipe);

}  // namespace pto::sim
