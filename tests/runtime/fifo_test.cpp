// Tests of the cross-core FIFOs (TPipe, TPUSH / TPOP / TFREE, pto/pto_ops_fifo.hpp) and of the
// executor's gang scheduling of mixed tasks: C2V and V2C transfers with their values, blocking
// pushes on a one-slot ring, split modes over two AIV lanes, deadlock / missing-push / leftover /
// mismatch errors, and mixed tasks among pure ones with several SPMD blocks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <pto/pto-inst.hpp>

#include "intrinsic.h"
#include "pto_orchestration_api.h"
#include "pypto_rt/executor.h"

using namespace pypto_rt;
using namespace pto;

namespace {

float* data_of(int64_t* args, int k) {
    auto* t = reinterpret_cast<ChipTensor*>(args[k]);
    return reinterpret_cast<float*>(t->buffer.addr) + t->start_offset;
}
void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

using AccT = TileAcc<float, 16, 16>;
using VecT = Tile<TileType::Vec, float, 16, 16>;
using HalfVecT = Tile<TileType::Vec, float, 8, 16>;
using NarrowVecT = Tile<TileType::Vec, float, 16, 8>;
using VecHalfT = Tile<TileType::Vec, half, 16, 16>;
using MatT = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;

using PipeC2V = TPipe<0, Direction::DIR_C2V, 1024, 2>;
using PipeC2V1 = TPipe<0, Direction::DIR_C2V, 1024, 1>;
using PipeBoth = TPipe<0, Direction::DIR_BOTH, 1024, 2>;
using PipeSmall = TPipe<0, Direction::DIR_C2V, 512, 2>;

constexpr uint32_t kUbBase = 0x1000, kL1Base = 0x2000;
float value(int tile, int r, int c, int block = 0) { return static_cast<float>(block * 10000 + tile * 1000 + r * 16 + c); }

// AIC side: fill an Acc tile with value(i, r, c, block) (the "compute") and push it.
void fill_acc(AccT& acc, int i, int block) {
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) acc.at(r, c) = value(i, r, c, block);
}

std::mutex g_mu;
std::vector<uint64_t> g_addrs;      // addresses TPOP gave its tiles
std::vector<std::string> g_events;  // ordering log

// ---- (1) C2V: AIC pushes 4 tiles, AIV pops, adds 0.5, stores out[i] ----
void k_c2v_aic(int64_t* args) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    for (int i = 0; i < 4; ++i) {
        fill_acc(acc, i, get_block_idx(args));
        TPUSH<PipeC2V, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
    }
}
void k_c2v_aiv(int64_t* args) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    float* out = data_of(args, 0) + get_block_idx(args) * 4 * 256;
    for (int i = 0; i < 4; ++i) {
        VecT t;  // not TASSIGNed: TPOP places it
        TPOP<PipeC2V, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
        {
            std::lock_guard<std::mutex> lk(g_mu);
            g_addrs.push_back(t.address());
        }
        TADDS(t, t, 0.5f);
        for (int k = 0; k < 256; ++k) out[i * 256 + k] = t.GetValue(k);
        TFREE<PipeC2V, TileSplitAxis::TILE_NO_SPLIT>(pipe);
    }
}

// ---- (2) V2C round trip over a DIR_BOTH pipe: AIC -> AIV (x2) -> AIC (+1) -> GM ----
void k_rt_aic(int64_t* args) {
    PipeBoth pipe(nullptr, kUbBase, kL1Base);
    float* out = data_of(args, 0);
    AccT acc;
    TASSIGN(acc, 0);
    for (int i = 0; i < 3; ++i) {
        fill_acc(acc, i, 0);
        TPUSH<PipeBoth, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
        MatT m;
        TPOP<PipeBoth, MatT, TileSplitAxis::TILE_NO_SPLIT>(pipe, m);
        {
            std::lock_guard<std::mutex> lk(g_mu);
            g_addrs.push_back(m.address());
        }
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) out[i * 256 + r * 16 + c] = m.at(r, c) + 1.0f;
        TFREE<PipeBoth, TileSplitAxis::TILE_NO_SPLIT>(pipe);
    }
}
void k_rt_aiv(int64_t*) {
    PipeBoth pipe(nullptr, kUbBase, kL1Base);
    for (int i = 0; i < 3; ++i) {
        VecT t;
        TPOP<PipeBoth, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
        VecT d;
        TASSIGN(d, 0x8000);
        TMULS(d, t, 2.0f);
        TFREE<PipeBoth, TileSplitAxis::TILE_NO_SPLIT>(pipe);
        TPUSH<PipeBoth, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, d);
    }
}

// ---- (3) SlotNum 1: three pushes before the (late) first pop ----
void k_one_aic(int64_t*) {
    PipeC2V1 pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    for (int i = 0; i < 3; ++i) {
        fill_acc(acc, i, 0);
        TPUSH<PipeC2V1, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
        std::lock_guard<std::mutex> lk(g_mu);
        g_events.push_back("pushed " + std::to_string(i));
    }
}
void k_one_aiv(int64_t* args) {
    PipeC2V1 pipe(nullptr, kUbBase, 0);
    float* out = data_of(args, 0);
    sleep_ms(50);  // the AIC's second push must wait for the first TFREE
    for (int i = 0; i < 3; ++i) {
        VecT t;
        TPOP<PipeC2V1, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
        for (int k = 0; k < 256; ++k) out[i * 256 + k] = t.GetValue(k);
        sleep_ms(10);
        {
            std::lock_guard<std::mutex> lk(g_mu);
            g_events.push_back("freeing " + std::to_string(i));
        }
        TFREE<PipeC2V1, TileSplitAxis::TILE_NO_SPLIT>(pipe);
    }
}

// ---- (4) both sides pop first ----
void k_dead_aic(int64_t*) {
    PipeBoth pipe(nullptr, kUbBase, kL1Base);
    MatT m;
    TPOP<PipeBoth, MatT, TileSplitAxis::TILE_NO_SPLIT>(pipe, m);
    AccT acc;
    TASSIGN(acc, 0);
    TPUSH<PipeBoth, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
}
void k_dead_aiv(int64_t*) {
    PipeBoth pipe(nullptr, kUbBase, kL1Base);
    VecT t;
    TPOP<PipeBoth, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
    TPUSH<PipeBoth, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
}

// ---- (5) a pop whose push never comes; the fallback timeout ----
void k_idle_aic(int64_t*) {}
void k_pop_one_aiv(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    VecT t;
    TPOP<PipeC2V, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
    TFREE<PipeC2V, TileSplitAxis::TILE_NO_SPLIT>(pipe);
}
void k_late_push_aic(int64_t*) {
    sleep_ms(1200);  // busy elsewhere, not in a pipe: only the timeout can tell
    PipeC2V pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    TPUSH<PipeC2V, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
}

// ---- (6) leftovers and mismatches ----
void k_push_two_aic(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    fill_acc(acc, 0, 0);
    TPUSH<PipeC2V, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
    TPUSH<PipeC2V, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
}
void k_push_one_aic(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    fill_acc(acc, 0, 0);
    TPUSH<PipeC2V, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
}
void k_pop_no_free_aiv(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    VecT t;
    TPOP<PipeC2V, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
}
void k_pop_half_aiv(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    VecHalfT t;
    TPOP<PipeC2V, VecHalfT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
    TFREE<PipeC2V, TileSplitAxis::TILE_NO_SPLIT>(pipe);
}
void k_pop_short_aiv(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    HalfVecT t;
    TPOP<PipeC2V, HalfVecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
    TFREE<PipeC2V, TileSplitAxis::TILE_NO_SPLIT>(pipe);
}
void k_free_first_aiv(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    TFREE<PipeC2V, TileSplitAxis::TILE_NO_SPLIT>(pipe);
}
void k_too_big_aic(int64_t*) {
    PipeSmall pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    TPUSH<PipeSmall, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);  // 1024 bytes > 512
}
void k_pop_small_aiv(int64_t*) {
    PipeSmall pipe(nullptr, kUbBase, 0);
    VecT t;
    TPOP<PipeSmall, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
}
void k_lonely_push_aiv(int64_t*) {
    PipeBoth pipe(nullptr, kUbBase, kL1Base);
    VecT t;
    TASSIGN(t, 0);
    TPUSH<PipeBoth, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
}

// ---- (7) two AIV lanes ----
// C2V TILE_UP_DOWN: AIC pushes 16x16, lane sb pops rows [8 sb, 8 sb + 8) and stores them.
void k_ud_aic(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    for (int i = 0; i < 2; ++i) {
        fill_acc(acc, i, 0);
        TPUSH<PipeC2V, AccT, TileSplitAxis::TILE_UP_DOWN>(pipe, acc);
    }
}
void k_ud_aiv(int64_t* args) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    const int sb = get_sub_block_id(args);
    float* out = data_of(args, 0);
    for (int i = 0; i < 2; ++i) {
        HalfVecT t;
        TPOP<PipeC2V, HalfVecT, TileSplitAxis::TILE_UP_DOWN>(pipe, t, sb);  // pto-isa's explicit-lane form
        for (int r = 0; r < 8; ++r)
            for (int c = 0; c < 16; ++c) out[i * 256 + (sb * 8 + r) * 16 + c] = t.at(r, c);
        TFREE<PipeC2V, TileSplitAxis::TILE_UP_DOWN>(pipe);
    }
}
// C2V TILE_LEFT_RIGHT: lane sb pops cols [8 sb, 8 sb + 8).
void k_lr_aic(int64_t*) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    fill_acc(acc, 0, 0);
    TPUSH<PipeC2V, AccT, TileSplitAxis::TILE_LEFT_RIGHT>(pipe, acc);
}
void k_lr_aiv(int64_t* args) {
    PipeC2V pipe(nullptr, kUbBase, 0);
    const int sb = get_sub_block_id(args);
    float* out = data_of(args, 0);
    NarrowVecT t;
    TPOP<PipeC2V, NarrowVecT, TileSplitAxis::TILE_LEFT_RIGHT>(pipe, t);
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 8; ++c) out[r * 16 + sb * 8 + c] = t.at(r, c);
    TFREE<PipeC2V, TileSplitAxis::TILE_LEFT_RIGHT>(pipe);
}
// V2C TILE_UP_DOWN: lane sb pushes its 8x16 half (value(0, 8 sb + r, c) - 7), AIC pops 16x16.
using PipeV2C = TPipe<2, Direction::DIR_V2C, 1024, 2>;
void k_v2c_ud_aiv(int64_t* args) {
    PipeV2C pipe(nullptr, 0, kL1Base);
    const int sb = get_sub_block_id(args);
    HalfVecT t;
    TASSIGN(t, 0x100);
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 16; ++c) t.at(r, c) = value(0, sb * 8 + r, c) - 7.0f;
    TPUSH<PipeV2C, HalfVecT, TileSplitAxis::TILE_UP_DOWN>(pipe, t);
}
void k_v2c_ud_aic(int64_t* args) {
    PipeV2C pipe(nullptr, 0, kL1Base);
    float* out = data_of(args, 0);
    MatT m;
    TPOP<PipeV2C, MatT, TileSplitAxis::TILE_UP_DOWN>(pipe, m);
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) out[r * 16 + c] = m.at(r, c);
    TFREE<PipeV2C, TileSplitAxis::TILE_UP_DOWN>(pipe);
}

// ---- (8) pure tasks around a mixed one ----
// args: out, value: block b of n sets its n-th of out to value (AIV).
void k_fill(int64_t* args) {
    auto* t = reinterpret_cast<ChipTensor*>(args[0]);
    const float v = from_u64<float>(static_cast<uint64_t>(args[1]));
    const uint64_t part = t->numel() / static_cast<uint64_t>(get_block_num(args));
    float* p = data_of(args, 0) + part * static_cast<uint64_t>(get_block_idx(args));
    for (uint64_t i = 0; i < part; ++i) p[i] = v;
}
// Mixed, block b: AIV pops AIC's tiles (value(i, r, c, b)), adds bias[0], stores out block b.
void k_mixed_aiv(int64_t* args) {
    PipeC2V1 pipe(nullptr, kUbBase, 0);
    const float bias = data_of(args, 0)[0];
    float* out = data_of(args, 1) + get_block_idx(args) * 4 * 256;
    for (int i = 0; i < 4; ++i) {
        VecT t;
        TPOP<PipeC2V1, VecT, TileSplitAxis::TILE_NO_SPLIT>(pipe, t);
        for (int k = 0; k < 256; ++k) out[i * 256 + k] = t.GetValue(k) + bias;
        TFREE<PipeC2V1, TileSplitAxis::TILE_NO_SPLIT>(pipe);
    }
}
void k_mixed_aic(int64_t* args) {
    PipeC2V1 pipe(nullptr, kUbBase, 0);
    AccT acc;
    TASSIGN(acc, 0);
    for (int i = 0; i < 4; ++i) {
        fill_acc(acc, i, get_block_idx(args));
        TPUSH<PipeC2V1, AccT, TileSplitAxis::TILE_NO_SPLIT>(pipe, acc);
    }
}
// Pure AIC after the mixed task: sum[0] = sum of `in`.
void k_sum_aic(int64_t* args) {
    auto* t = reinterpret_cast<ChipTensor*>(args[0]);
    const float* p = data_of(args, 0);
    double s = 0;
    for (uint64_t i = 0; i < t->numel(); ++i) s += p[i];
    data_of(args, 1)[0] = static_cast<float>(s);
}

enum {
    C2V_AIC, C2V_AIV, RT_AIC, RT_AIV, ONE_AIC, ONE_AIV, DEAD_AIC, DEAD_AIV, IDLE_AIC, POP_ONE_AIV, LATE_PUSH_AIC,
    PUSH_TWO_AIC, PUSH_ONE_AIC, POP_NO_FREE_AIV, POP_HALF_AIV, POP_SHORT_AIV, FREE_FIRST_AIV, TOO_BIG_AIC,
    POP_SMALL_AIV, LONELY_PUSH_AIV, UD_AIC, UD_AIV, LR_AIC, LR_AIV, V2C_UD_AIV, V2C_UD_AIC, FILL, MIXED_AIV, MIXED_AIC,
    SUM_AIC
};
std::vector<KernelInfo> kernels() {
    return {{C2V_AIC, "c2v_aic", CoreType::AIC, k_c2v_aic},
            {C2V_AIV, "c2v_aiv", CoreType::AIV, k_c2v_aiv},
            {RT_AIC, "rt_aic", CoreType::AIC, k_rt_aic},
            {RT_AIV, "rt_aiv", CoreType::AIV, k_rt_aiv},
            {ONE_AIC, "one_aic", CoreType::AIC, k_one_aic},
            {ONE_AIV, "one_aiv", CoreType::AIV, k_one_aiv},
            {DEAD_AIC, "dead_aic", CoreType::AIC, k_dead_aic},
            {DEAD_AIV, "dead_aiv", CoreType::AIV, k_dead_aiv},
            {IDLE_AIC, "idle_aic", CoreType::AIC, k_idle_aic},
            {POP_ONE_AIV, "pop_one_aiv", CoreType::AIV, k_pop_one_aiv},
            {LATE_PUSH_AIC, "late_push_aic", CoreType::AIC, k_late_push_aic},
            {PUSH_TWO_AIC, "push_two_aic", CoreType::AIC, k_push_two_aic},
            {PUSH_ONE_AIC, "push_one_aic", CoreType::AIC, k_push_one_aic},
            {POP_NO_FREE_AIV, "pop_no_free_aiv", CoreType::AIV, k_pop_no_free_aiv},
            {POP_HALF_AIV, "pop_half_aiv", CoreType::AIV, k_pop_half_aiv},
            {POP_SHORT_AIV, "pop_short_aiv", CoreType::AIV, k_pop_short_aiv},
            {FREE_FIRST_AIV, "free_first_aiv", CoreType::AIV, k_free_first_aiv},
            {TOO_BIG_AIC, "too_big_aic", CoreType::AIC, k_too_big_aic},
            {POP_SMALL_AIV, "pop_small_aiv", CoreType::AIV, k_pop_small_aiv},
            {LONELY_PUSH_AIV, "lonely_push_aiv", CoreType::AIV, k_lonely_push_aiv},
            {UD_AIC, "ud_aic", CoreType::AIC, k_ud_aic},
            {UD_AIV, "ud_aiv", CoreType::AIV, k_ud_aiv},
            {LR_AIC, "lr_aic", CoreType::AIC, k_lr_aic},
            {LR_AIV, "lr_aiv", CoreType::AIV, k_lr_aiv},
            {V2C_UD_AIV, "v2c_ud_aiv", CoreType::AIV, k_v2c_ud_aiv},
            {V2C_UD_AIC, "v2c_ud_aic", CoreType::AIC, k_v2c_ud_aic},
            {FILL, "fill", CoreType::AIV, k_fill},
            {MIXED_AIV, "mixed_aiv", CoreType::AIV, k_mixed_aiv},
            {MIXED_AIC, "mixed_aic", CoreType::AIC, k_mixed_aic},
            {SUM_AIC, "sum_aic", CoreType::AIC, k_sum_aic}};
}

struct Buf {
    std::vector<float> v;
    ChipTensor t;
    explicit Buf(uint32_t n, float init = 0.0f) : v(n, init) {
        const uint32_t shp[1] = {n};
        t = make_tensor_external(v.data(), shp, 1, DataType::FLOAT32);
    }
};

void throwing_fail_handler() {
    pto::sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); };
}

// One mixed task {aic, aiv0, aiv1} with `out` as its INOUT argument.
bool run_mixed(Executor& ex, int aic, int aiv0, int aiv1, Buf* out, int blocks = 1) {
    return ex.run([&] {
        CoreTaskArgs a;
        if (out) a.add_inout(out->t);
        a.launch_spec.set_block_num(blocks);
        rt_submit_task(MixedKernels{aic, aiv0, aiv1}, a);
    });
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("C2V: AIC pushes four tiles, AIV pops, adds, stores", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});
    Buf out(4 * 256, -1.0f);
    g_addrs.clear();
    REQUIRE(run_mixed(ex, C2V_AIC, C2V_AIV, INVALID_KERNEL_ID, &out));
    for (int i = 0; i < 4; ++i)
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) REQUIRE(out.v[i * 256 + r * 16 + c] == value(i, r, c) + 0.5f);
    // TPOP places the tile at c2v_consumer_buf + (pop index % LocalSlotNum) * SlotSize.
    CHECK(g_addrs == std::vector<uint64_t>{kUbBase, kUbBase + 1024, kUbBase, kUbBase + 1024});
    CHECK(ex.stats().gangs == 1);
    CHECK(ex.stats().jobs == 2);
    CHECK(ex.stats().max_concurrent_jobs == 2);
}

TEST_CASE("V2C round trip over a DIR_BOTH pipe", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});
    Buf out(3 * 256, -1.0f);
    g_addrs.clear();
    REQUIRE(run_mixed(ex, RT_AIC, RT_AIV, INVALID_KERNEL_ID, &out));
    for (int i = 0; i < 3; ++i)
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) REQUIRE(out.v[i * 256 + r * 16 + c] == 2.0f * value(i, r, c) + 1.0f);
    CHECK(g_addrs == std::vector<uint64_t>{kL1Base, kL1Base + 1024, kL1Base});
}

TEST_CASE("SlotNum 1: a push waits for the consumer's TFREE", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});
    Buf out(3 * 256, -1.0f);
    g_events.clear();
    REQUIRE(run_mixed(ex, ONE_AIC, ONE_AIV, INVALID_KERNEL_ID, &out));
    INFO(ex.error());
    CHECK(ex.error().empty());
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 256; ++k) REQUIRE(out.v[i * 256 + k] == value(i, k / 16, k % 16));
    auto pos = [&](const std::string& e) {
        return std::find(g_events.begin(), g_events.end(), e) - g_events.begin();
    };
    REQUIRE(g_events.size() == 6);
    CHECK(pos("pushed 0") < pos("freeing 0"));
    CHECK(pos("freeing 0") < pos("pushed 1"));
    CHECK(pos("freeing 1") < pos("pushed 2"));
}

TEST_CASE("a deadlock (both sides pop first) stops the run at once, naming both kernels", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});  // fifo_timeout_ms stays 10 s: the gang's states must tell
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(run_mixed(ex, DEAD_AIC, DEAD_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK(seconds_since(t0) < 5.0);
    INFO(ex.error());
    CHECK_THAT(ex.error(), Catch::Contains("deadlock in task 0") &&
                               Catch::Contains("AIC kernel 'dead_aic' (func_id 6) waits in TPOP on pipe 0 V2C") &&
                               Catch::Contains("AIV kernel 'dead_aiv' (func_id 7) waits in TPOP on pipe 0 C2V"));
    // The executor stays usable.
    Buf out(4 * 256);
    CHECK(run_mixed(ex, C2V_AIC, C2V_AIV, INVALID_KERNEL_ID, &out));
    CHECK(out.v[1] == value(0, 0, 1) + 0.5f);
}

TEST_CASE("a pop whose push never comes is an error", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(run_mixed(ex, IDLE_AIC, POP_ONE_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK(seconds_since(t0) < 5.0);
    INFO(ex.error());
    CHECK_THAT(ex.error(), Catch::Contains("deadlock in task 0") &&
                               Catch::Contains("AIV kernel 'pop_one_aiv' (func_id 9) waits in TPOP on pipe 0 C2V") &&
                               Catch::Contains("AIC kernel 'idle_aic' (func_id 8) finished"));
}

TEST_CASE("no progress for fifo_timeout_ms stops the run (fallback)", "[fifo]") {
    throwing_fail_handler();
    ExecutorOptions o;
    o.clusters = 1;
    o.fifo_timeout_ms = 200;
    Executor ex(kernels(), o);
    CHECK_FALSE(run_mixed(ex, LATE_PUSH_AIC, POP_ONE_AIV, INVALID_KERNEL_ID, nullptr));
    INFO(ex.error());
    CHECK_THAT(ex.error(), Catch::Contains("no progress on the cross-core pipes of task 0") &&
                               Catch::Contains("for 200 ms") &&
                               Catch::Contains("'pop_one_aiv'") && Catch::Contains("'late_push_aic' (func_id 10) is running"));
}

TEST_CASE("tiles left in a pipe at the end of the task are errors", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});
    CHECK_FALSE(run_mixed(ex, PUSH_TWO_AIC, POP_ONE_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK_THAT(ex.error(), Catch::Contains("tiles were left in its cross-core pipes") &&
                               Catch::Contains("AIC kernel 'push_two_aic' (func_id 11) pushed 2 tile(s) on pipe 0 C2V "
                                               "but AIV kernel 'pop_one_aiv' (func_id 9) popped only 1"));
    CHECK_FALSE(run_mixed(ex, PUSH_ONE_AIC, POP_NO_FREE_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK_THAT(ex.error(), Catch::Contains("'pop_no_free_aiv' (func_id 13) popped 1 tile(s) on pipe 0 C2V but freed "
                                           "(TFREE) only 0"));
}

TEST_CASE("dtype / shape mismatches, TFREE without TPOP, oversized tiles and misuse fail", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});
    CHECK_FALSE(run_mixed(ex, PUSH_ONE_AIC, POP_HALF_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK_THAT(ex.error(), Catch::Contains("pushed by AIC kernel 'push_one_aic' (func_id 12) as 16x16 float32") &&
                               Catch::Contains("'pop_half_aiv' (func_id 14) pops it into a Vec tile of 16x16 float16"));
    CHECK_FALSE(run_mixed(ex, PUSH_ONE_AIC, POP_SHORT_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK_THAT(ex.error(), Catch::Contains("as 16x16 float32") && Catch::Contains("Vec tile of 8x16 float32"));
    CHECK_FALSE(run_mixed(ex, PUSH_ONE_AIC, FREE_FIRST_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK_THAT(ex.error(), Catch::Contains("TFREE on pipe 0 C2V") && Catch::Contains("without an outstanding TPOP"));
    CHECK_FALSE(run_mixed(ex, TOO_BIG_AIC, POP_SMALL_AIV, INVALID_KERNEL_ID, nullptr));
    CHECK_THAT(ex.error(), Catch::Contains("(1024 bytes) does not fit the SlotSize of 512 bytes") &&
                               Catch::Contains("too_big_aic"));
    // Outside a mixed task.
    CHECK_FALSE(ex.run([&] {
        CoreTaskArgs a;
        rt_submit_aiv_task(LONELY_PUSH_AIV, a);
    }));
    CHECK_THAT(ex.error(), Catch::Contains("TPUSH on pipe 0 outside a mixed task") &&
                               Catch::Contains("'lonely_push_aiv'"));
    // A split mode needs both AIV lanes.
    Buf out(512);
    CHECK_FALSE(run_mixed(ex, UD_AIC, UD_AIV, INVALID_KERNEL_ID, &out));
    CHECK_THAT(ex.error(), Catch::Contains("TILE_UP_DOWN needs both AIV lanes"));
}

TEST_CASE("split modes over two AIV lanes", "[fifo]") {
    throwing_fail_handler();
    Executor ex(kernels(), {1});
    Buf out(2 * 256, -1.0f);
    REQUIRE(run_mixed(ex, UD_AIC, UD_AIV, UD_AIV, &out));
    for (int i = 0; i < 2; ++i)
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) REQUIRE(out.v[i * 256 + r * 16 + c] == value(i, r, c));
    CHECK(ex.stats().gangs == 1);
    CHECK(ex.stats().jobs == 3);

    Buf lr(256, -1.0f);
    REQUIRE(run_mixed(ex, LR_AIC, LR_AIV, LR_AIV, &lr));
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) REQUIRE(lr.v[r * 16 + c] == value(0, r, c));

    Buf v2c(256, -1.0f);
    REQUIRE(run_mixed(ex, V2C_UD_AIC, V2C_UD_AIV, V2C_UD_AIV, &v2c));
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) REQUIRE(v2c.v[r * 16 + c] == value(0, r, c) - 7.0f);
}

TEST_CASE("mixed tasks are gang-scheduled among pure tasks, with several SPMD blocks", "[fifo][executor]") {
    throwing_fail_handler();
    for (int clusters : {1, 2}) {
        Executor ex(kernels(), {clusters});
        Buf bias(4), out(3 * 4 * 256, -1.0f), sum(1), other(64);
        REQUIRE(ex.run([&] {
            CoreTaskArgs f;  // bias[:] = 100, before the mixed task reads it
            f.add_output(bias.t);
            f.add_scalar(to_u64(100.0f));
            rt_submit_aiv_task(FILL, f);
            CoreTaskArgs m;
            m.add_input(bias.t);
            m.add_output(out.t);
            m.launch_spec.set_block_num(3);
            rt_submit_task(MixedKernels{MIXED_AIC, MIXED_AIV, INVALID_KERNEL_ID}, m);
            CoreTaskArgs p;  // unrelated pure AIV tasks, free to run alongside
            p.add_output(other.t);
            p.add_scalar(to_u64(3.0f));
            p.launch_spec.set_block_num(2);
            rt_submit_aiv_task(FILL, p);
            CoreTaskArgs s;  // after the mixed task: sums its output
            s.add_input(out.t);
            s.add_output(sum.t);
            rt_submit_aic_task(SUM_AIC, s);
        }));
        INFO("clusters " << clusters << ": " << ex.error());
        double want = 0;
        for (int b = 0; b < 3; ++b)
            for (int i = 0; i < 4; ++i)
                for (int k = 0; k < 256; ++k) {
                    const float w = value(i, k / 16, k % 16, b) + 100.0f;
                    REQUIRE(out.v[(b * 4 + i) * 256 + k] == w);
                    want += w;
                }
        CHECK(sum.v[0] == static_cast<float>(want));
        for (float x : other.v) CHECK(x == 3.0f);
        CHECK(ex.stats().tasks == 4);
        CHECK(ex.stats().gangs == 3);
        CHECK(ex.stats().jobs == 1 + 6 + 2 + 1);
    }
}
