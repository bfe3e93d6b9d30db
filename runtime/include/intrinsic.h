// pypto CPU runtime: per-dispatch context a kernel reads from the tail of its args[] (slots 48 and
// 49, as in simpler's intrinsic.h): SPMD block index / count and the AIV lane (sub-block) id.
// The executor fills a LocalContext and a GlobalContext for every dispatch.
#pragma once

#include <cstdint>

#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#define __aicore__
#endif

static constexpr int32_t PTO2_EXT_PARAMS_COUNT = 2;
static constexpr int32_t SPMD_LOCAL_CONTEXT_INDEX = 48;
static constexpr int32_t SPMD_GLOBAL_CONTEXT_INDEX = 49;
static constexpr int32_t PAYLOAD_LOCAL_CONTEXT_INDEX = SPMD_LOCAL_CONTEXT_INDEX;
static constexpr int32_t PAYLOAD_GLOBAL_CONTEXT_INDEX = SPMD_GLOBAL_CONTEXT_INDEX;
static constexpr int DMA_WORKSPACE_KIND_COUNT = 4;
// The DMA workspace kinds (simpler's dma_workspace.h): SDMA for pto-isa's async prefetch / get / put.
static constexpr int DMA_WORKSPACE_SDMA = 0;
static constexpr int DMA_WORKSPACE_URMA = 1;

// Per core: which AIV lane of the cluster (0 or 1) and DMA workspaces (always 0 on the CPU).
struct GlobalContext {
    int32_t sub_block_id;
    uint64_t dma_workspace[DMA_WORKSPACE_KIND_COUNT];
};

// Per dispatch: logical block index within the task and the task's block count.
struct LocalContext {
    int32_t block_idx;
    int32_t block_num;
};

static __aicore__ inline int32_t get_block_idx(__gm__ int64_t* args) {
    return reinterpret_cast<__gm__ LocalContext*>(static_cast<uint64_t>(args[SPMD_LOCAL_CONTEXT_INDEX]))->block_idx;
}
static __aicore__ inline int32_t get_block_num(__gm__ int64_t* args) {
    return reinterpret_cast<__gm__ LocalContext*>(static_cast<uint64_t>(args[SPMD_LOCAL_CONTEXT_INDEX]))->block_num;
}
static __aicore__ inline int32_t get_sub_block_id(__gm__ int64_t* args) {
    return reinterpret_cast<__gm__ GlobalContext*>(static_cast<uint64_t>(args[SPMD_GLOBAL_CONTEXT_INDEX]))
        ->sub_block_id;
}
static __aicore__ inline __gm__ uint8_t* get_dma_workspace(__gm__ int64_t* args, int kind) {
    if (kind < 0 || kind >= DMA_WORKSPACE_KIND_COUNT) return nullptr;
    auto* ctx = reinterpret_cast<__gm__ GlobalContext*>(static_cast<uint64_t>(args[SPMD_GLOBAL_CONTEXT_INDEX]));
    return reinterpret_cast<__gm__ uint8_t*>(ctx->dma_workspace[kind]);
}
