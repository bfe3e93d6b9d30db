// pypto CPU runtime: the global-namespace names a kernel uses for pipes and synchronisation,
// spelled as in pto-isa's CPU stub (pipe_t, PIPE_*, EVENT_ID*, set_flag, wait_flag,
// pipe_barrier, set_mask_norm, set_vector_mask) plus set_atomic_none. Every instruction runs
// synchronously in program order on the CPU, so these order nothing; with --check-syncs the flag
// functions feed the pipe model of pto_sim_check.hpp (which reports a missing or unbalanced flag),
// otherwise they cost one test of a thread-local flag. The defaulted __builtin_LINE() parameter
// records the caller's line for the checker's messages (kernels call them with three arguments).
#pragma once

#include <cstdint>

#include "pto_sim_check.hpp"

#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef AICORE
#define AICORE
#endif

typedef int pipe_t;
using event_t = int;
inline constexpr pipe_t PIPE_S = 0;
inline constexpr pipe_t PIPE_V = 1;
inline constexpr pipe_t PIPE_MTE1 = 2;
inline constexpr pipe_t PIPE_MTE2 = 3;
inline constexpr pipe_t PIPE_MTE3 = 4;
inline constexpr pipe_t PIPE_M = 5;
inline constexpr pipe_t PIPE_ALL = 6;
inline constexpr pipe_t PIPE_FIX = 7;

#define EVENT_ID0 0
#define EVENT_ID1 1
#define EVENT_ID2 2
#define EVENT_ID3 3
#define EVENT_ID4 4
#define EVENT_ID5 5
#define EVENT_ID6 6
#define EVENT_ID7 7

inline void set_flag(pipe_t src, pipe_t dst, int event, uint32_t line = __builtin_LINE()) {
    if (pto::sim::current_kernel().check_syncs) pto::sim::sync_set_flag(src, dst, event, line);
}
inline void wait_flag(pipe_t src, pipe_t dst, int event, uint32_t line = __builtin_LINE()) {
    if (pto::sim::current_kernel().check_syncs) pto::sim::sync_wait_flag(src, dst, event, line);
}
inline void pipe_barrier(pipe_t pipe) {
    if (pto::sim::current_kernel().check_syncs) pto::sim::sync_barrier(pipe);
}
inline void set_atomic_none() {}
inline void set_atomic_add() {}

// Vector masks: the CPU always processes a tile's valid region, so these expand to nothing.
#define set_mask_norm(...)
#define set_vector_mask(...)
