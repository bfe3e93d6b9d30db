// pypto CPU runtime: the out-of-line half of the tile API's error channel and checkers
// (pto/pto_sim_context.hpp, pto/pto_sim_check.hpp): fail() and the kernel label, the GM bounds
// check, and the --check-syncs pipe model (vector clocks per simulated core, reset per kernel
// dispatch). Kept out of the headers so that kernels stay small and fast to compile; the
// SoC-independent runtime library holds it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <pto/pto_sim_check.hpp>

namespace pto::sim {

std::string kernel_label() {
    const KernelContext& k = current_kernel();
    if (k.describe) return k.describe(k);
    if (!k.name) return "kernel <none>";
    std::string s = "kernel '" + std::string(k.name) + "' (func_id " + std::to_string(k.func_id) + ")";
    if (k.instr && k.line) s += ", " + std::string(k.instr) + " at line " + std::to_string(k.line);
    return s;
}

FailHandler& fail_handler() {
    static FailHandler handler = nullptr;
    return handler;
}

[[noreturn]] void fail(const std::string& what) {
    const std::string msg = "pto-sim error in " + kernel_label() + ": " + what;
    if (FailHandler h = fail_handler()) h(msg);  // may throw (tests, bin/run)
    std::fprintf(stderr, "%s\n", msg.c_str());
    std::fflush(stderr);
    std::abort();
}

int gm_access(const GmAccess& a, const char* what) {
    KernelContext& k = current_kernel();
    if (!k.views || a.empty()) return -1;
    const uint64_t lo = a.lo(), hi = a.hi();
    for (int i = 0; i < k.num_views; ++i) {
        const GmView& v = k.views[i];
        if (lo >= v.lo && hi <= v.hi) {
            if (k.record_gm && k.on_gm) k.on_gm(k, a, i);
            return i;
        }
    }
    fail(std::string(what) + (a.write ? " writes" : " reads") + " GM outside the tensors the kernel was given: " +
         (k.explain_gm ? k.explain_gm(k, a)
                       : "bytes [" + std::to_string(lo) + ", " + std::to_string(hi) + ") lie in no argument's view"));
}

namespace {

struct SyncRecord {
    int space;
    uint64_t lo, hi;
    int pipe;
    bool write;
    int64_t seq;
    const char* instr;
    uint32_t line;
};

struct SyncState {
    struct Flag {
        bool set = false;
        int64_t clock[kPipes];
        uint32_t line = 0;
    };
    int64_t seq = 0;
    int64_t last[kPipes];
    int64_t vc[kPipes][kPipes];
    Flag flags[kPipes][kPipes][kEvents];  // [src][dst][event]
    std::vector<SyncRecord> recs;         // newest access per (bytes, pipe, read / write)

    void reset() {
        seq = 0;
        std::fill(&last[0], &last[0] + kPipes, -1);
        std::fill(&vc[0][0], &vc[0][0] + kPipes * kPipes, -1);
        for (auto& s : flags)
            for (auto& d : s)
                for (auto& f : d) f.set = false;
        recs.clear();
    }
};
SyncState& sync_state() {
    thread_local SyncState s;
    return s;
}

std::string sync_where(const KernelContext& k, uint32_t line) {
    if (!line) return "an unknown line";
    if (k.locate) return k.locate(k, line);
    return "line " + std::to_string(line);
}
void sync_report(const std::string& msg) {
    KernelContext& k = current_kernel();
    const std::string full = "kernel '" + std::string(k.name ? k.name : "?") + "': " + msg;
    if (k.report) k.report(k, full);
    else fail("--check-syncs: " + full);
}

}  // namespace

// Start of a kernel dispatch: nothing is in flight.
void sync_begin() { sync_state().reset(); }

// End of a kernel dispatch: every set_flag must have been waited for.
void sync_end() {
    SyncState& st = sync_state();
    KernelContext& k = current_kernel();
    for (int s = 0; s < kPipes; ++s)
        for (int d = 0; d < kPipes; ++d)
            for (int e = 0; e < kEvents; ++e)
                if (st.flags[s][d][e].set)
                    sync_report("set_flag(" + std::string(pipe_label(s)) + ", " + pipe_label(d) + ", EVENT_ID" +
                                std::to_string(e) + ") at " + sync_where(k, st.flags[s][d][e].line) +
                                " is never waited for before the kernel ends");
}

namespace {
namespace detail {
bool sync_ordered(const SyncState& st, const SyncRecord& r, int pipe) {
    if (r.pipe == pipe && pipe != kPipeV) return true;  // one in-order queue
    return st.vc[pipe][r.pipe] >= r.seq;
}
// Drops records every pipe is already ordered after (they can never be reported again), and when
// there are still too many, the oldest ones.
void sync_prune(SyncState& st) {
    constexpr std::size_t kMaxRecords = 512;
    auto dead = [&](const SyncRecord& r) {
        for (int p = 0; p < kPipes; ++p)
            if (p != kPipeAll && !sync_ordered(st, r, p)) return false;
        return true;
    };
    st.recs.erase(std::remove_if(st.recs.begin(), st.recs.end(), dead), st.recs.end());
    if (st.recs.size() > kMaxRecords) {
        std::sort(st.recs.begin(), st.recs.end(), [](const SyncRecord& a, const SyncRecord& b) { return a.seq > b.seq; });
        st.recs.resize(kMaxRecords / 2);
    }
}
std::string bytes_text(int space, uint64_t lo, uint64_t hi) {
    return std::string(space_name(static_cast<Space>(space))) + " bytes [" + std::to_string(lo) + ", " +
           std::to_string(hi) + ")";
}
}  // namespace detail

bool sync_pipe_ok(int p) { return p >= 0 && p < kPipes && p != kPipeAll; }

// The pipe of a move from buffer `src` to `dst` (the compiler's op registry states the same).
int move_pipe(int src, int dst) {
    const auto s = static_cast<Space>(src), d = static_cast<Space>(dst);
    if (s == Space::L0C) return kPipeFix;
    if (s == Space::L1 && (d == Space::L0A || d == Space::L0B || d == Space::BIAS || d == Space::SCALE_L ||
                           d == Space::SCALE_R || d == Space::L1))
        return kPipeMte1;
    if (s == Space::UB && d == Space::L1) return kPipeFix;
    return kPipeV;
}
}  // namespace

void sync_instruction(InstrKind kind, int scratch, const char* instr, uint32_t line, const InstrArg* args, int n) {
    constexpr int kMax = 16;
    SyncAccess acc[kMax];
    int na = 0;
    int tile_space[8] = {};
    int tiles = 0;
    for (int i = 0; i < n; ++i)
        if (args[i].space != InstrArg::kNotMemory && args[i].space != kGmSpace) ++tiles;
    auto push = [&](int sp, uint64_t lo, uint64_t hi, bool write) {
        if (na < kMax) acc[na++] = SyncAccess{sp, lo, hi, write};
    };
    int t = 0;
    for (int i = 0; i < n; ++i) {
        const InstrArg& a = args[i];
        if (a.space == InstrArg::kNotMemory) continue;
        if (a.space == kGmSpace) {
            if (a.hi > a.lo) push(kGmSpace, a.lo, a.hi, kind == InstrKind::Store);
            continue;
        }
        const int idx = t++;
        if (idx < 8) tile_space[idx] = a.space;
        if (a.space == InstrArg::kTileWithoutBytes) continue;  // the instruction reports it
        push(a.space, a.lo, a.hi, idx == 0 && kind != InstrKind::Store);
        if (scratch > 0 && tiles == scratch + 1 && idx == tiles - 1) push(a.space, a.lo, a.hi, true);
    }
    int pipe = kPipeV;
    switch (kind) {
        case InstrKind::Load: pipe = kPipeMte2; break;
        case InstrKind::Store: pipe = tiles > 0 && tile_space[0] == static_cast<int>(Space::L0C) ? kPipeFix : kPipeMte3; break;
        case InstrKind::Move: pipe = tiles >= 2 ? move_pipe(tile_space[1], tile_space[0]) : kPipeV; break;
        case InstrKind::Cube: pipe = kPipeM; break;
        case InstrKind::Vector: break;
    }
    sync_instr(pipe, instr, line, acc, na);
}

// One instruction on `pipe` touching `acc[0..n)`.
void sync_instr(int pipe, const char* instr, uint32_t line, const SyncAccess* acc, int n) {
    SyncState& st = sync_state();
    KernelContext& k = current_kernel();
    // Report the first unordered conflict, reads of the instruction first (RAW is the usual bug).
    bool reported = false;
    for (int pass = 0; pass < 2 && !reported; ++pass)
        for (int i = 0; i < n && !reported; ++i) {
            const SyncAccess& a = acc[i];
            if (a.write != (pass == 1)) continue;
            for (const SyncRecord& r : st.recs) {
                if (a.space != r.space || !(a.write || r.write) || a.lo >= r.hi || r.lo >= a.hi) continue;
                if (detail::sync_ordered(st, r, pipe)) continue;
                const char* verb = !a.write ? "reads" : "overwrites";
                const char* by = r.write ? "written" : "still being read";
                const std::string how =
                    r.pipe == pipe ? "no pipe_barrier(" + std::string(pipe_label(pipe)) + ") between them"
                                   : "no set_flag(" + std::string(pipe_label(r.pipe)) + ", " + pipe_label(pipe) +
                                         ", ...) / wait_flag pair orders it after " + (r.write ? "the write" : "the read");
                sync_report(std::string(instr) + " on " + pipe_label(pipe) + " at " + sync_where(k, line) + " " + verb +
                            " " + detail::bytes_text(a.space, a.lo, a.hi) + " " + by + " by " + r.instr + " on " +
                            pipe_label(r.pipe) + " at " + sync_where(k, r.line) + ", and " + how);
                reported = true;
                break;
            }
        }
    const int64_t seq = ++st.seq;
    st.last[pipe] = seq;
    for (int i = 0; i < n; ++i) {
        const SyncAccess& a = acc[i];
        auto it = std::find_if(st.recs.begin(), st.recs.end(), [&](const SyncRecord& r) {
            return r.space == a.space && r.lo == a.lo && r.hi == a.hi && r.pipe == pipe && r.write == a.write;
        });
        if (it != st.recs.end()) {
            it->seq = seq;
            it->instr = instr;
            it->line = line;
        } else {
            st.recs.push_back(SyncRecord{a.space, a.lo, a.hi, pipe, a.write, seq, instr, line});
        }
    }
    if ((seq & 63) == 0) detail::sync_prune(st);
}

void sync_set_flag(int src, int dst, int ev, uint32_t line) {
    SyncState& st = sync_state();
    KernelContext& k = current_kernel();
    if (!sync_pipe_ok(src) || !sync_pipe_ok(dst) || ev < 0 || ev >= kEvents)
        return sync_report("set_flag at " + sync_where(k, line) + " names an unknown pipe or event");
    SyncState::Flag& f = st.flags[src][dst][ev];
    if (f.set)
        sync_report("set_flag(" + std::string(pipe_label(src)) + ", " + pipe_label(dst) + ", EVENT_ID" +
                    std::to_string(ev) + ") at " + sync_where(k, line) + " while the same event, set at " +
                    sync_where(k, f.line) + ", has not been waited for");
    f.set = true;
    f.line = line;
    for (int p = 0; p < kPipes; ++p) f.clock[p] = st.vc[src][p];
    f.clock[src] = st.last[src];
}

void sync_wait_flag(int src, int dst, int ev, uint32_t line) {
    SyncState& st = sync_state();
    KernelContext& k = current_kernel();
    if (!sync_pipe_ok(src) || !sync_pipe_ok(dst) || ev < 0 || ev >= kEvents)
        return sync_report("wait_flag at " + sync_where(k, line) + " names an unknown pipe or event");
    SyncState::Flag& f = st.flags[src][dst][ev];
    if (!f.set)
        return sync_report("wait_flag(" + std::string(pipe_label(src)) + ", " + pipe_label(dst) + ", EVENT_ID" +
                           std::to_string(ev) + ") at " + sync_where(k, line) +
                           " has no pending set_flag of that event (it would wait forever on the NPU)");
    for (int p = 0; p < kPipes; ++p) st.vc[dst][p] = std::max(st.vc[dst][p], f.clock[p]);
    f.set = false;
}

void sync_barrier(int pipe) {
    SyncState& st = sync_state();
    if (pipe == kPipeAll) {
        for (int x = 0; x < kPipes; ++x)
            for (int p = 0; p < kPipes; ++p) st.vc[x][p] = std::max(st.vc[x][p], st.last[p]);
        detail::sync_prune(st);
    } else if (sync_pipe_ok(pipe)) {
        st.vc[pipe][pipe] = std::max(st.vc[pipe][pipe], st.last[pipe]);
    }
}

}  // namespace pto::sim
