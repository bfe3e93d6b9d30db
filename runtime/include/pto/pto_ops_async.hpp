// pypto CPU runtime: pto-isa's asynchronous GM -> L2 prefetch (SDMA) as generated kernels use it —
// PrefetchAsyncContext(workspace), TPREFETCH_ASYNC(global, ctx) -> comm::AsyncEvent, ctx.session,
// event.Wait(session). There is no L2 to warm on the CPU and a prefetch changes no value: the
// instruction checks its GM region against the task's tensors, as TLOAD does, and has completed
// when it returns (Wait and Test are true at once).
#pragma once

#include <cstdint>

#include "pto_instr_hooks.hpp"
#include "pto_tile.hpp"

#ifndef __gm__
#define __gm__
#endif

namespace pto {
namespace comm {

struct AsyncSession {};

class AsyncEvent {
public:
    bool Wait(const AsyncSession&) const { return true; }
    bool Test(const AsyncSession&) const { return true; }
};

}  // namespace comm

struct PrefetchAsyncContext {
    explicit PrefetchAsyncContext(__gm__ uint8_t* ws) : workspace(ws) {}
    __gm__ uint8_t* workspace;
    comm::AsyncSession session;
};

template <typename GlobalData>
    requires(is_global_v<GlobalData>)
comm::AsyncEvent TPREFETCH_ASYNC(GlobalData& src, PrefetchAsyncContext&) {
    sim::gm_access(sim::gm_access_of(src, false), "TPREFETCH_ASYNC");
    return {};
}

}  // namespace pto
