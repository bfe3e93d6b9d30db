// Tests of the CPU runtime's checkers on hand-written kernels: the always-on GM bounds check of
// TLOAD / TSTORE / scalar GM reads, the --check-syncs pipe model (pto/pto_sim_check.hpp) and the
// --check-races judgement by the reference runtime's ordering rules (pypto_rt/race_checker.h).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include <pto/pto-inst.hpp>

#include "pto_orchestration_api.h"
#include "pypto_rt/executor.h"
#include "pypto_rt/race_checker.h"

using namespace pypto_rt;

namespace {

using Vec = pto::Tile<pto::TileType::Vec, float, 16, 16>;
using Gm = pto::GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>>;

float* data_of(int64_t* args, int k) {
    auto* t = reinterpret_cast<ChipTensor*>(args[k]);
    return reinterpret_cast<float*>(t->buffer.addr) + t->start_offset;
}

struct ThrowOnFail {
    ThrowOnFail() { pto::sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); }; }
    ~ThrowOnFail() { pto::sim::fail_handler() = nullptr; }
};

// ---- kernels (args: tensors, then scalars) ----

// in -> out (16x16 blocks): rows [r, r + 16) of in (r = scalar 0) to rows [0, 16) of out.
void k_copy(int64_t* args) {
    Vec t;
    TASSIGN(t, 0);
    Gm src(data_of(args, 0) + args[2] * 16);
    TLOAD(t, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    Gm dst(data_of(args, 1));
    TSTORE(dst, t);
}
// out (16x16) = 1.
void k_ones(int64_t* args) {
    Vec t;
    TASSIGN(t, 0);
    TEXPANDS(t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    Gm dst(data_of(args, 0));
    TSTORE(dst, t);
}
// A scalar GM read of element args[1] of tensor 0.
float g_peeked = 0;
void k_peek(int64_t* args) { g_peeked = PYPTO_GM_LOAD(data_of(args, 0), args[1]); }

enum { COPY, ONES, PEEK };
std::vector<KernelInfo> kernels() {
    return {{COPY, "copy", CoreType::AIV, k_copy}, {ONES, "ones", CoreType::AIV, k_ones}, {PEEK, "peek", CoreType::AIV, k_peek}};
}

struct Buf {
    std::vector<float> v;
    ChipTensor t;
    explicit Buf(uint32_t rows, uint32_t cols = 16) : v(rows * cols, 0.0f) {
        const uint32_t shp[2] = {rows, cols};
        t = make_tensor_external(v.data(), shp, 2, DataType::FLOAT32);
    }
};

TaskOutputTensors copy(const ChipTensor& in, const ChipTensor& out, int64_t row, bool inout = false,
                       const PTO2TaskId* deps = nullptr, uint32_t ndeps = 0) {
    CoreTaskArgs a;
    a.add_input(in);
    if (inout) a.add_inout(out);
    else a.add_output(out);
    a.add_scalar(row);
    if (ndeps) a.set_dependencies(deps, ndeps);
    return rt_submit_aiv_task(COPY, a);
}
void ones(const ChipTensor& out, bool inout = false) {
    CoreTaskArgs a;
    if (inout) a.add_inout(out);
    else a.add_output(out);
    rt_submit_aiv_task(ONES, a);
}

// ---- a kernel run outside the executor, with --check-syncs on ----
struct SyncRun {
    std::vector<std::string> found;
    pto::sim::KernelScope scope{"k", 0};
    static SyncRun*& self() {
        static SyncRun* s = nullptr;
        return s;
    }
    SyncRun() {
        self() = this;
        auto& k = pto::sim::current_kernel();
        k.check_syncs = true;
        k.report = [](const pto::sim::KernelContext&, const std::string& m) { self()->found.push_back(m); };
        pto::sim::sync_begin();
    }
    ~SyncRun() { self() = nullptr; }
    std::string all() const {
        std::string s;
        for (const auto& f : found) s += f + "\n";
        return s;
    }
};

}  // namespace

TEST_CASE("GM bounds: an access outside the tensor's view stops the run", "[checkers][bounds]") {
    ThrowOnFail t;
    Executor ex(kernels(), {1});
    Buf in(64), out(16);
    REQUIRE(ex.run([&] { copy(in.t, out.t, 48); }));  // rows 48..63: the last block
    CHECK_FALSE(ex.run([&] { copy(in.t, out.t, 56); }));
    CHECK_THAT(ex.error(), Catch::Contains("task 0") && Catch::Contains("kernel 'copy' (func_id 0)") &&
                               Catch::Contains("TLOAD reads GM outside the tensors the kernel was given") &&
                               Catch::Contains("elements [896, 1152)") && Catch::Contains("FLOAT32 [64, 16]") &&
                               Catch::Contains("elements [0, 1024) of its 1024-element buffer") &&
                               Catch::Contains("leaves the buffer"));
    // A view: rows 16..31 of a 64-row tensor; a block past the view's end but inside the buffer.
    const uint32_t shp[2] = {16, 16}, off[2] = {16, 0};
    const ChipTensor view = in.t.view(shp, off);
    REQUIRE(ex.run([&] { copy(view, out.t, 0); }));
    CHECK_FALSE(ex.run([&] { copy(view, out.t, 8); }));
    CHECK_THAT(ex.error(), Catch::Contains("FLOAT32 [16, 16] = elements [256, 512)") &&
                               Catch::Contains("elements [384, 640)"));
    CHECK_THAT(ex.error(), !Catch::Contains("leaves the buffer"));
    // A store past the end of its output.
    Buf small(8);
    CHECK_FALSE(ex.run([&] { ones(small.t); }));
    CHECK_THAT(ex.error(), Catch::Contains("TSTORE writes GM outside"));
    // Scalar GM reads.
    REQUIRE(ex.run([&] {
        CoreTaskArgs p;
        p.add_input(in.t);
        p.add_scalar(int64_t{1023});
        rt_submit_aiv_task(PEEK, p);
    }));
    CHECK_FALSE(ex.run([&] {
        CoreTaskArgs p;
        p.add_input(in.t);
        p.add_scalar(int64_t{1024});
        rt_submit_aiv_task(PEEK, p);
    }));
    CHECK_THAT(ex.error(), Catch::Contains("pl.read (a scalar GM read) reads GM outside") && Catch::Contains("elements [1024, 1025)"));
}

TEST_CASE("check-syncs: cross-pipe dependencies need a set_flag / wait_flag pair", "[checkers][syncs]") {
    float gm[256] = {};
    Gm g(gm);
    SECTION("synchronised load, compute, store: clean") {
        SyncRun run;
        Vec a, b;
        TASSIGN(a, 0);
        TASSIGN(b, 1024);
        TLOAD(a, g);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TADDS(b, a, 1.0f);
        pipe_barrier(PIPE_V);
        TMULS(b, b, 2.0f);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        TSTORE(g, b);
        // WAR: the next load into b waits for the store reading it.
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        TLOAD(b, g);
        set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
        (void)b.GetValue(3);
        pipe_barrier(PIPE_ALL);
        pto::sim::sync_end();
        CHECK(run.found.empty());
        INFO(run.all());
    }
    SECTION("a missing wait_flag") {
        SyncRun run;
        Vec a, b;
        TASSIGN(a, 0);
        TASSIGN(b, 1024);
        const uint32_t load_line = __LINE__ + 1;
        TLOAD(a, g);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        const uint32_t add_line = __LINE__ + 1;
        TADDS(b, a, 1.0f);
        pto::sim::sync_end();
        INFO(run.all());
        REQUIRE(run.found.size() == 2);
        CHECK_THAT(run.found[0], Catch::Contains("kernel 'k': TADDS on PIPE_V at line " + std::to_string(add_line) +
                                                 " reads UB bytes [0, 1024) written by TLOAD on PIPE_MTE2 at line " +
                                                 std::to_string(load_line)) &&
                                     Catch::Contains("no set_flag(PIPE_MTE2, PIPE_V, ...) / wait_flag pair"));
        CHECK_THAT(run.found[1], Catch::Contains("set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)") &&
                                     Catch::Contains("never waited for"));
    }
    SECTION("dependent vector instructions need pipe_barrier(PIPE_V)") {
        SyncRun run;
        Vec a, b;
        TASSIGN(a, 0);
        TASSIGN(b, 1024);
        TEXPANDS(a, 1.0f);
        TADDS(b, a, 1.0f);
        CHECK_THAT(run.all(), Catch::Contains("TADDS on PIPE_V") && Catch::Contains("written by TEXPANDS on PIPE_V") &&
                                  Catch::Contains("no pipe_barrier(PIPE_V)"));
    }
    SECTION("a window of a wider tile touches its valid region only") {
        // A [16, 16] tile's 4-column window at column 8 (a Tile as wide as its source, valid over
        // 4 columns) ends with element (15, 11): byte 1024 - 16. A write just past it is no
        // hazard; a write into it is.
        using Win = pto::Tile<pto::TileType::Vec, float, 16, 16, pto::BLayout::RowMajor, -1, -1>;
        using Row = pto::Tile<pto::TileType::Vec, float, 1, 8, pto::BLayout::RowMajor, -1, -1>;
        SyncRun run;
        Win w(16, 4);
        Vec src, dst;
        Row after(1, 8), inside(1, 8);
        TASSIGN(src, 2048);
        TASSIGN(dst, 4096);
        TASSIGN(w, 8 * sizeof(float));
        TASSIGN(after, 1024 - 4 * sizeof(float));  // from element (15, 12) on: past the window
        TASSIGN(inside, 1024 - 8 * sizeof(float));  // element (15, 8): the window's last row
        TADDS(dst, w, 1.0f);
        TEXPANDS(after, 0.0f);
        CHECK(run.found.empty());
        INFO(run.all());
        TEXPANDS(inside, 0.0f);
        CHECK_THAT(run.all(), Catch::Contains("TEXPANDS on PIPE_V") && Catch::Contains("still being read by TADDS"));
    }
    SECTION("write-after-read: a load overwriting a tile a store still reads") {
        SyncRun run;
        float gm2[256] = {}, gm3[256] = {};
        Gm g2(gm2), g3(gm3);
        Vec a;
        TASSIGN(a, 0);
        TLOAD(a, g);
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        TSTORE(g2, a);
        TLOAD(a, g3);  // no set_flag(PIPE_MTE3, PIPE_MTE2) / wait_flag
        INFO(run.all());
        REQUIRE(run.found.size() == 1);
        CHECK_THAT(run.found[0], Catch::Contains("TLOAD on PIPE_MTE2") && Catch::Contains("overwrites UB bytes [0, 1024)") &&
                                     Catch::Contains("still being read by TSTORE on PIPE_MTE3") &&
                                     Catch::Contains("set_flag(PIPE_MTE3, PIPE_MTE2, ...)"));
    }
    SECTION("a GM store and a later load of the same bytes") {
        SyncRun run;
        Vec a, b;
        TASSIGN(a, 0);
        TASSIGN(b, 1024);
        TEXPANDS(a, 1.0f);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(g, a);
        TLOAD(b, g);
        INFO(run.all());
        REQUIRE(run.found.size() == 1);
        CHECK_THAT(run.found[0], Catch::Contains("TLOAD on PIPE_MTE2") && Catch::Contains(" reads GM bytes [") &&
                                     Catch::Contains("written by TSTORE on PIPE_MTE3"));
    }
    SECTION("transitive ordering through another pipe counts") {
        SyncRun run;
        Vec a, b;
        TASSIGN(a, 0);
        TASSIGN(b, 1024);
        TLOAD(a, g);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TADDS(b, b, 1.0f);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(g, a);  // a: loaded by MTE2, which V waited for before MTE3 waited for V
        CHECK(run.found.empty());
        INFO(run.all());
    }
    SECTION("unbalanced flags") {
        SyncRun run;
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        pto::sim::sync_end();
        INFO(run.all());
        REQUIRE(run.found.size() == 2);
        CHECK_THAT(run.found[0], Catch::Contains("wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2)") &&
                                     Catch::Contains("no pending set_flag"));
        CHECK_THAT(run.found[1], Catch::Contains("while the same event") && Catch::Contains("has not been waited for"));
    }
    SECTION("a scalar read of a tile written by the vector pipe") {
        SyncRun run;
        Vec a;
        TASSIGN(a, 0);
        TEXPANDS(a, 1.0f);
        (void)a.GetValue(0);
        CHECK_THAT(run.all(), Catch::Contains("GetValue on PIPE_S") && Catch::Contains("written by TEXPANDS on PIPE_V"));
    }
    SECTION("cube pipes: L1 -> L0A is MTE1, the matmul M, the Acc store FIX") {
        SyncRun run;
        using Mat = pto::Tile<pto::TileType::Mat, float, 16, 16, pto::BLayout::ColMajor, 16, 16, pto::SLayout::RowMajor, 512>;
        pto::TileLeft<float, 16, 16> l;
        pto::TileRight<float, 16, 16> r;
        pto::TileAcc<float, 16, 16> c;
        Mat m;
        TASSIGN(m, 0);
        TASSIGN(l, 0);
        TASSIGN(r, 0);
        TASSIGN(c, 0);
        TLOAD(m, g);
        TMOV(l, m);  // no MTE2 -> MTE1 flag
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        TMATMUL(c, l, r);
        TSTORE(g, c);  // no M -> FIX flag
        CHECK_THAT(run.all(), Catch::Contains("TMOV on PIPE_MTE1") && Catch::Contains("written by TLOAD on PIPE_MTE2"));
        CHECK_THAT(run.all(), Catch::Contains("TSTORE on PIPE_FIX") && Catch::Contains("written by TMATMUL on PIPE_M"));
    }
}

TEST_CASE("check-syncs through the executor names the task's kernel", "[checkers][syncs]") {
    // k_copy is synchronised; a kernel that stores a freshly expanded tile without its flag is not.
    auto bad = [](int64_t* args) {
        Vec t;
        TASSIGN(t, 0);
        TEXPANDS(t, 2.0f);
        Gm dst(data_of(args, 0));
        TSTORE(dst, t);
    };
    std::vector<KernelInfo> ks = kernels();
    ks.push_back({3, "unsynced", CoreType::AIV, +bad});
    ExecutorOptions o;
    o.clusters = 1;
    o.check_syncs = true;
    Executor ex(ks, o);
    Buf in(16), out(16);
    REQUIRE(ex.run([&] {
        copy(in.t, out.t, 0);
        ones(out.t, true);
    }));
    CHECK(ex.findings().empty());
    REQUIRE(ex.run([&] {
        CoreTaskArgs a;
        a.add_output(out.t);
        rt_submit_aiv_task(3, a);
        rt_submit_aiv_task(3, a);  // the same finding once
    }));
    REQUIRE(ex.findings().size() == 1);
    CHECK_THAT(ex.findings()[0], Catch::StartsWith("check-syncs: kernel 'unsynced': TSTORE on PIPE_MTE3") &&
                                     Catch::Contains("written by TEXPANDS on PIPE_V"));
}

TEST_CASE("reference overlap verdicts", "[checkers][races]") {
    float buf[64 * 16];
    const uint32_t shp[2] = {64, 16};
    const ChipTensor whole = make_tensor_external(buf, shp, 2);
    const uint32_t half[2] = {32, 16}, top[2] = {0, 0}, bottom[2] = {32, 0}, mid[2] = {16, 0};
    CHECK(reference_overlap(whole.view(half, top), whole.view(half, bottom)) == RefOverlap::NONE);
    CHECK(reference_overlap(whole.view(half, top), whole.view(half, mid)) == RefOverlap::OTHER);
    CHECK(reference_overlap(whole, whole.view(half, mid)) == RefOverlap::COVERED);
    const uint32_t cols[2] = {64, 8}, left[2] = {0, 0}, right[2] = {0, 8};
    CHECK(reference_overlap(whole.view(cols, left), whole.view(cols, right)) == RefOverlap::NONE);  // interleaved rows
    // A transposed view: no per-dimension test, overlapping element ranges count as overlap.
    CHECK(reference_overlap(whole.view(cols, left).transpose(0, 1), whole.view(cols, right)) == RefOverlap::OTHER);
}

TEST_CASE("check-races judges by the reference runtime's ordering rules", "[checkers][races]") {
    ExecutorOptions o;
    o.clusters = 1;
    o.check_races = true;
    Executor ex(kernels(), o);
    Buf a(16), b(16), c(16);
    SECTION("RAW through INPUT after OUTPUT_EXISTING, WAW through INOUT: ordered") {
        REQUIRE(ex.run([&] {
            ones(a.t);                 // writes a (OUTPUT_EXISTING)
            copy(a.t, b.t, 0);         // reads a: RAW, looked up
            ones(a.t, true);           // INOUT: waits for the first writer... but not for the reader
        }));
        REQUIRE(ex.findings().size() == 1);  // the WAR between the copy and the second ones
        CHECK_THAT(ex.findings()[0], Catch::StartsWith("check-races: task 1 (submitted at orchestration line ") &&
                                         Catch::Contains(") reads argument 0 (INPUT) of kernel 'copy' in TLOAD at line ") &&
                                         Catch::Contains("; task 2 (submitted at") &&
                                         Catch::Contains(") writes argument 0 (INOUT) of kernel 'ones' in TSTORE at line ") &&
                                         Catch::Contains("a write after a read is never ordered"));
        REQUIRE(ex.run([&] {
            ones(a.t);
            copy(a.t, b.t, 0);
            copy(b.t, c.t, 0);  // unrelated reader of b
        }));
        CHECK(ex.findings().empty());
    }
    SECTION("WAR ordered by an explicit dependency") {
        REQUIRE(ex.run([&] {
            ones(a.t);
            const PTO2TaskId reader = copy(a.t, b.t, 0).task_id();
            copy(c.t, a.t, 0, true, &reader, 1);  // overwrites a after the reader
        }));
        CHECK(ex.findings().empty());
    }
    SECTION("WAW: OUTPUT_EXISTING looks up no earlier writer") {
        REQUIRE(ex.run([&] {
            ones(a.t);
            copy(c.t, a.t, 0);  // OUTPUT_EXISTING again
        }));
        REQUIRE(ex.findings().size() == 1);
        CHECK_THAT(ex.findings()[0], Catch::Contains("OUTPUT_EXISTING argument") && Catch::Contains("INOUT would"));
    }
    SECTION("disjoint views of one buffer do not race") {
        Buf big(32);
        const uint32_t shp[2] = {16, 16}, o0[2] = {0, 0}, o1[2] = {16, 0};
        const ChipTensor h0 = big.t.view(shp, o0), h1 = big.t.view(shp, o1);
        REQUIRE(ex.run([&] {
            ones(h0);
            ones(h1);
            copy(h0, a.t, 0);
            copy(h1, b.t, 0);
        }));
        CHECK(ex.findings().empty());
    }
    SECTION("a MANUAL scope orders nothing but explicit dependencies") {
        REQUIRE(ex.run([&] {
            PTO2_SCOPE(PTO2ScopeMode::MANUAL) {
                ones(a.t);
                copy(a.t, b.t, 0);
            }
        }));
        REQUIRE(ex.findings().size() == 1);
        CHECK_THAT(ex.findings()[0], Catch::Contains("task 0 (") && Catch::Contains("writes argument 0 (OUTPUT_EXISTING) of kernel 'ones'") &&
                                         Catch::Contains("task 1 (") && Catch::Contains("reads argument 0 (INPUT) of kernel 'copy'") &&
                                         Catch::Contains("MANUAL scope"));
    }
}
