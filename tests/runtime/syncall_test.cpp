// Tests of pl.system.syncall in the CPU runtime (SYNCALL, pto/pto_ops_syncall.hpp; the executor's
// barrier, runtime/src/executor_syncall.cpp): blocks of a sync_start launch meet at a hard barrier
// and exchange GM data across it (each block reads the slot its neighbour wrote before the barrier;
// the writers are delayed, so a barrier that let a reader through early reads the old value); a
// soft barrier over a partial launch with one run slot; and every condition under which the
// device's barrier would hang stops the run with a message, quickly: no sync_start, a launch that
// does not fill the cores, a block that skips the barrier, a wrong participant count, a barrier in
// a sync_start launch larger than the run (its blocks run in waves), a mix barrier without AIC
// kernels. A sync_start launch larger than the run without a barrier runs in waves.
#include <catch2/catch.hpp>

#include <chrono>
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

using WsT = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 16>, Stride<16, 16, 16, 16, 1>>;

// args: slots (one per block), out (one per block). Block b writes 100 + b into its slot after
// waiting b * 5 ms, meets the others, then reads its right neighbour's slot.
template <typename Barrier>
void exchange(int64_t* args, Barrier&& barrier) {
    const int b = get_block_idx(args), n = get_block_num(args);
    float* slots = data_of(args, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * b));
    slots[b] = 100.0f + static_cast<float>(b);
    barrier(args);
    data_of(args, 1)[b] = slots[(b + 1) % n];
}

void k_hard(int64_t* args) { exchange(args, [](int64_t*) { SYNCALL<SyncCoreType::AIVOnly>(); }); }
void k_soft(int64_t* args) {
    exchange(args, [](int64_t* a) {
        WsT ws(reinterpret_cast<int32_t*>(data_of(a, 2)));
        SYNCALL<SyncAllMode::Soft, SyncCoreType::AIVOnly>(ws, get_block_num(a));
    });
}
void k_soft_three(int64_t* args) {
    exchange(args, [](int64_t* a) {
        WsT ws(reinterpret_cast<int32_t*>(data_of(a, 2)));
        SYNCALL<SyncAllMode::Soft, SyncCoreType::AIVOnly>(ws, 3);
    });
}
void k_skip0(int64_t* args) {
    exchange(args, [](int64_t* a) {
        if (get_block_idx(a) != 0) SYNCALL<SyncCoreType::AIVOnly>();
    });
}
void k_mix(int64_t* args) { exchange(args, [](int64_t*) { SYNCALL<SyncCoreType::Mix>(); }); }
void k_aic_passes(int64_t* args) {  // an AIVOnly barrier in a cube kernel lets it through
    SYNCALL<SyncCoreType::AIVOnly>();
    data_of(args, 1)[get_block_idx(args)] = 7.0f;
}

// A mixed task's kernels meet at a Mix barrier: participant p (block * 3 + 0 for the AIC, + 1 + lane
// for the AIV lanes) writes its slot after p * 3 ms, then reads participant p + 1's.
void mixed_part(int64_t* args, int p) {
    const int n = 3 * get_block_num(args);
    float* slots = data_of(args, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * p));
    slots[p] = 100.0f + static_cast<float>(p);
    SYNCALL<SyncCoreType::Mix>();
    data_of(args, 1)[p] = slots[(p + 1) % n];
}
void k_mixed_aic(int64_t* args) { mixed_part(args, 3 * get_block_idx(args)); }
void k_mixed_aiv(int64_t* args) { mixed_part(args, 3 * get_block_idx(args) + 1 + get_sub_block_id(args)); }

enum { HARD, SOFT, SOFT3, SKIP0, MIX, AIC_PASSES, MIXED_AIC, MIXED_AIV };
std::vector<KernelInfo> kernels() {
    return {{HARD, "hard", CoreType::AIV, k_hard},       {SOFT, "soft", CoreType::AIV, k_soft},
            {SOFT3, "soft_three", CoreType::AIV, k_soft_three}, {SKIP0, "skip0", CoreType::AIV, k_skip0},
            {MIX, "mix", CoreType::AIV, k_mix},          {AIC_PASSES, "aic_passes", CoreType::AIC, k_aic_passes},
            {MIXED_AIC, "mixed_aic", CoreType::AIC, k_mixed_aic}, {MIXED_AIV, "mixed_aiv", CoreType::AIV, k_mixed_aiv}};
}

struct Buf {
    std::vector<float> v;
    ChipTensor t;
    explicit Buf(uint32_t n) : v(n, -1.0f) {
        const uint32_t shp[1] = {n};
        t = make_tensor_external(v.data(), shp, 1, DataType::FLOAT32);
    }
};

bool launch(Executor& ex, int kernel, int blocks, bool sync_start, Buf& slots, Buf& out, Buf* ws = nullptr) {
    pto::sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); };
    return ex.run([&] {
        CoreTaskArgs a;
        a.add_inout(slots.t);
        a.add_inout(out.t);
        if (ws) a.add_inout(ws->t);
        a.launch_spec.set_block_num(static_cast<int16_t>(blocks));
        a.launch_spec.set_require_sync_start(sync_start);
        const bool cube = kernel == AIC_PASSES;
        if (kernel == MIXED_AIC)
            rt_submit_task(MixedKernels{MIXED_AIC, MIXED_AIV, MIXED_AIV}, a);
        else
            rt_submit_task(MixedKernels{cube ? kernel : INVALID_KERNEL_ID, cube ? INVALID_KERNEL_ID : kernel, INVALID_KERNEL_ID}, a);
    });
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("a hard barrier over a full sync_start launch orders the blocks' GM exchange", "[syncall]") {
    for (int clusters : {1, 2, 3}) {
        ExecutorOptions o;
        o.clusters = clusters;
        o.max_running = 1;  // sync_start jobs start together whatever the run slots
        Executor ex(kernels(), o);
        const int n = 2 * clusters;
        Buf slots(n), out(n);
        REQUIRE(launch(ex, HARD, n, true, slots, out));
        for (int b = 0; b < n; ++b) CHECK(out.v[b] == 100.0f + static_cast<float>((b + 1) % n));
    }
}

TEST_CASE("a mix barrier joins the AIC and both AIV kernels of every block of a mixed launch", "[syncall]") {
    for (int clusters : {1, 2}) {
        ExecutorOptions o;
        o.clusters = clusters;
        Executor ex(kernels(), o);
        const int n = 3 * clusters;
        Buf slots(n), out(n);
        REQUIRE(launch(ex, MIXED_AIC, clusters, true, slots, out));
        for (int p = 0; p < n; ++p) CHECK(out.v[p] == 100.0f + static_cast<float>((p + 1) % n));
    }
    ExecutorOptions o;
    o.clusters = 2;
    Executor ex(kernels(), o);
    Buf slots(3), out(3);
    CHECK_FALSE(launch(ex, MIXED_AIC, 1, true, slots, out));
    INFO(ex.error());
    CHECK_THAT(ex.error(), Catch::Contains("needs one block on each of this run's 2 clusters") &&
                               Catch::Contains("available_cluster_count()"));
}

TEST_CASE("a soft barrier over a partial launch completes with one run slot", "[syncall]") {
    ExecutorOptions o;
    o.clusters = 2;
    o.max_running = 1;  // a block waiting at the barrier gives its run slot to the next one
    Executor ex(kernels(), o);
    Buf slots(3), out(3), ws(16);
    REQUIRE(launch(ex, SOFT, 3, false, slots, out, &ws));
    for (int b = 0; b < 3; ++b) CHECK(out.v[b] == 100.0f + static_cast<float>((b + 1) % 3));
}

TEST_CASE("a sync_start launch larger than the run's cores runs in waves", "[syncall]") {
    ExecutorOptions o;
    o.clusters = 1;
    Executor ex(kernels(), o);
    Buf slots(4), out(4);
    REQUIRE(launch(ex, AIC_PASSES, 4, true, slots, out));  // 4 AIC blocks on 1 AIC core, no barrier among them
    for (int b = 0; b < 4; ++b) CHECK(out.v[b] == 7.0f);
}

TEST_CASE("an AIVOnly barrier lets a cube kernel through", "[syncall]") {
    Executor ex(kernels(), {1});
    Buf slots(1), out(1);
    REQUIRE(launch(ex, AIC_PASSES, 1, false, slots, out));
    CHECK(out.v[0] == 7.0f);
}

TEST_CASE("a barrier the device could not complete stops the run, naming why", "[syncall]") {
    struct Case {
        int kernel, blocks;
        bool sync_start, ws;
        std::vector<std::string> says;
    };
    const std::vector<Case> cases = {
        {HARD, 4, false, false, {"hard syncall(aiv_only)", "kernel 'hard'", "lacks sync_start"}},
        {HARD, 2, true, false, {"needs one participant on each of this run's 4 AIV cores", "the launch has 2"}},
        {SKIP0, 4, true, false, {"can never complete", "block 0 ('skip0') ended without reaching barrier 1"}},
        {SOFT3, 2, false, true, {"soft syncall(aiv_only)", "used_cores = 3", "launch has 2", "never complete"}},
        {SOFT, 5, false, true, {"has 5 participants but this run has 4 AIV cores"}},
        {HARD, 8, true, false, {"needs one participant on each of this run's 4 AIV cores", "the launch has 8"}},
        {MIX, 4, true, false, {"mix barrier", "runs no AIC kernel", "core_type=\"aiv_only\""}},
    };
    for (const Case& c : cases) {
        ExecutorOptions o;
        o.clusters = 2;
        Executor ex(kernels(), o);
        Buf slots(c.blocks), out(c.blocks), ws(16);
        const auto t0 = std::chrono::steady_clock::now();
        CHECK_FALSE(launch(ex, c.kernel, c.blocks, c.sync_start, slots, out, c.ws ? &ws : nullptr));
        CHECK(seconds_since(t0) < 5.0);
        INFO(ex.error());
        for (const auto& s : c.says) CHECK_THAT(ex.error(), Catch::Contains(s));
    }
}
