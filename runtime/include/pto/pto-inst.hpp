// pypto CPU runtime: the single header kernels include (`#include <pto/pto-inst.hpp>`), a
// clean-room CPU implementation of the pto-isa tile API subset that pypto generates.
//
//   pto_cpu_stub.hpp    pipes, event ids, set_flag / wait_flag / pipe_barrier (ordering nothing;
//                       fed to the --check-syncs pipe model)
//   pto_float.hpp       half, bfloat16_t, float8_e4m3_t, float8_e8m0_t
//   pto_types.hpp       enums (TileType, BLayout, ..., RoundMode), element conversion rules
//   pto_sim_context.hpp the running kernel as the executor describes it, the error channel
//   pto_sim_check.hpp   the checkers: GM bounds of every TLOAD / TSTORE / scalar GM read, the
//                       --check-syncs pipe model
//   pto_sim_memory.hpp  per-core simulated UB / L1 / L0A / L0B / L0C / Bias
//   pto_tile.hpp        Tile, TASSIGN, Shape, Stride, GlobalTensor (storage convention here)
//   pto_ops_memory.hpp  TLOAD TSTORE TMOV TEXTRACT TINSERT TRESHAPE (TLOAD also of the MX scale
//                       layouts MX_A_ZZ / MX_B_NN)
//   pto_ops_vector.hpp  elementwise / scalar / unary / bitwise / remainder ops, TCVT, TEXPANDS, TCI,
//                       reductions (incl. arg-max / arg-min), expands, TTRANS
//   pto_ops_select.hpp  TCMP TCMPS TSEL TSELS (packed predicate masks)
//   pto_ops_layout.hpp  TCONCAT TGATHER TGATHERB TSCATTER TTRI TFILLPAD* TPART* TSUBVIEW TRANDOM
//   pto_ops_sort.hpp    TSORT32 TMRGSORT
//   pto_ops_cube.hpp    TMATMUL, TMATMUL_ACC, TMATMUL_BIAS, TGEMV
//   pto_ops_cube_mx.hpp TMATMUL_MX (the 950's MX matmul: FP8 operands with e8m0 scales)
//   pto_ops_fifo.hpp    TPipe, TPUSH TPOP TFREE (cross-core FIFOs of a mixed task; the runtime side
//                       is pto_sim_fifo.hpp)
//   pto_ops_syncall.hpp SYNCALL (the all-core barrier of one launch; the runtime side is
//                       runtime/src/executor_syncall.cpp)
//   pto_ops_async.hpp   PrefetchAsyncContext, TPREFETCH_ASYNC (an L2 prefetch: a checked no-op here)
//   pto_instr_hooks.hpp what an instruction tells the checkers (name, line, pipe, bytes touched)
//   pto_instr_sites.hpp call-site wrappers + macros giving each instruction its kernel line;
//                       PYPTO_GM_LOAD (checked scalar GM reads)
//
// Everything runs synchronously in program order on the calling thread (TPUSH / TPOP may block
// on the peer core of the same mixed task, SYNCALL on the other kernels of the launch).
#pragma once

#include "pto_cpu_stub.hpp"
#include "pto_float.hpp"
#include "pto_ops_async.hpp"
#include "pto_ops_cube.hpp"
#include "pto_ops_cube_mx.hpp"
#include "pto_ops_fifo.hpp"
#include "pto_ops_memory.hpp"
#include "pto_ops_layout.hpp"
#include "pto_ops_select.hpp"
#include "pto_ops_sort.hpp"
#include "pto_ops_syncall.hpp"
#include "pto_ops_vector.hpp"
#include "pto_sim_memory.hpp"
#include "pto_tile.hpp"
#include "pto_types.hpp"

// Last: turns instruction calls into calls of their wrappers (must follow every declaration).
#include "pto_instr_sites.hpp"
