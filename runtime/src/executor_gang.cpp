// pypto CPU runtime: the gang of a mixed task's SPMD block and its cross-core FIFO rings
// (executor_gang.h), and the tile API's entry points into them (pto::sim::fifo_push / fifo_pop /
// fifo_free, pto/pto_sim_fifo.hpp). Semantics are documented in pto/pto_ops_fifo.hpp.
#include "executor_gang.h"

#include <algorithm>
#include <cstring>

#include <pto/pto_sim_context.hpp>

namespace pypto_rt {

namespace {
constexpr uint8_t kSplitNone = 0, kSplitUpDown = 1, kSplitLeftRight = 2;
const char* split_name(int s) {
    switch (s) {
        case 0: return "TILE_NO_SPLIT";
        case 1: return "TILE_UP_DOWN";
        case 2: return "TILE_LEFT_RIGHT";
        case 3: return "TILE_UP_DOWN_ODD";
        case 4: return "TILE_LEFT_RIGHT_ODD";
    }
    return "an unknown TileSplitAxis";
}
std::string shape_str(uint32_t r, uint32_t c) { return std::to_string(r) + "x" + std::to_string(c); }
}  // namespace

Gang::Gang(std::string label, const KernelInfo* const kernels[kMembers], int timeout_ms,
           std::function<void(const std::string&)> report)
    : label_(std::move(label)), timeout_ms_(std::max(1, timeout_ms)), report_(std::move(report)),
      last_progress_(std::chrono::steady_clock::now()) {
    for (int m = 0; m < kMembers; ++m) {
        members_[m].kernel = kernels[m];
        members_[m].state = kernels[m] ? State::Running : State::Absent;
    }
}

std::string Gang::member_name(int m) const {
    const KernelInfo* k = members_[m].kernel;
    std::string role = m == 0 ? "AIC kernel" : "AIV kernel";
    if (m > 0 && members_[1].kernel && members_[2].kernel) role += m == 1 ? " (lane 0)" : " (lane 1)";
    if (!k) return role + " <absent>";
    return role + " '" + k->name + "' (func_id " + std::to_string(k->func_id) + ")";
}

std::string Gang::pipe_name(const Channel& ch) const {
    return "pipe " + std::to_string(ch.flag) + (ch.dir == 1 ? " C2V" : " V2C");
}

// Every present member's state, "; "-separated (the deadlock and no-progress reports).
std::string Gang::describe_members() const {
    std::string out;
    for (int m = 0; m < kMembers; ++m) {
        if (members_[m].state == State::Absent) continue;
        out += (out.empty() ? "" : "; ") + describe_member(m);
    }
    return out;
}

std::string Gang::describe_member(int m) const {
    const Member& mb = members_[m];
    std::string s = member_name(m);
    auto counts = [&](const Channel& ch) {
        const bool prod = std::find(ch.producers.begin(), ch.producers.end(), m) != ch.producers.end();
        if (prod) return pipe_name(ch) + ": pushed " + std::to_string(ch.pushed[m]);
        return pipe_name(ch) + ": popped " + std::to_string(ch.popped[m]) + ", freed " + std::to_string(ch.freed[m]);
    };
    switch (mb.state) {
        case State::Absent: return s + " is absent";
        case State::Running: return s + " is running";
        case State::Blocked: {
            const Channel& ch = *mb.ch;
            if (mb.op == Op::Pop) {
                s += " waits in TPOP on " + pipe_name(ch) + " for tile " + std::to_string(ch.popped[m] + 1) +
                     " (pushed so far:";
                for (int p : ch.producers) s += " " + std::to_string(ch.pushed[p]);
                return s + ")";
            }
            s += " waits in TPUSH on " + pipe_name(ch) + " for a free slot for tile " + std::to_string(ch.pushed[m] + 1) +
                 " (SlotNum " + std::to_string(ch.slot_num) + "; freed by the consumer so far:";
            for (int q : ch.consumers) s += " " + std::to_string(ch.freed[q]);
            return s + ")";
        }
        case State::Finished: {
            std::string used;
            for (const auto& [key, ch] : channels_) {
                const bool party = std::find(ch->producers.begin(), ch->producers.end(), m) != ch->producers.end() ||
                                   std::find(ch->consumers.begin(), ch->consumers.end(), m) != ch->consumers.end();
                if (party) used += (used.empty() ? "" : ", ") + counts(*ch);
            }
            return s + " finished" + (used.empty() ? " without using any pipe" : " (" + used + ")");
        }
    }
    return s;
}

void Gang::progress_locked() { last_progress_ = std::chrono::steady_clock::now(); }

void Gang::abort_locked(const std::string& msg, bool report) {
    if (!abort_.empty()) return;
    abort_ = msg;
    if (report && report_) report_(msg);
    cv_.notify_all();
}

[[noreturn]] void Gang::fail_unlocked(std::unique_lock<std::mutex>& lk, const std::string& msg) {
    if (lk.owns_lock()) lk.unlock();
    pto::sim::fail(msg);
}

bool Gang::can_go(int m) const {
    const Member& mb = members_[m];
    const Channel& ch = *mb.ch;
    if (mb.op == Op::Push) {
        uint64_t min_freed = UINT64_MAX;
        for (int q : ch.consumers) min_freed = std::min(min_freed, ch.freed[q]);
        return ch.pushed[m] < min_freed + ch.slot_num;
    }
    for (int p : ch.producers)
        if (ch.pushed[p] <= ch.popped[m]) return false;
    return true;
}

void Gang::check_deadlock_locked() {
    if (!abort_.empty()) return;
    bool blocked = false;
    for (int m = 0; m < kMembers; ++m) {
        const Member& mb = members_[m];
        if (mb.state == State::Running) return;
        if (mb.state == State::Blocked) {
            if (can_go(m)) return;
            blocked = true;
        }
    }
    if (!blocked) return;
    abort_locked("deadlock in " + label_ + ": " + describe_members(), true);
}

void Gang::wait_locked(std::unique_lock<std::mutex>& lk, int m, Op op, Channel& ch) {
    Member& mb = members_[m];
    mb.op = op;
    mb.ch = &ch;
    if (!abort_.empty()) fail_unlocked(lk, std::string(op == Op::Push ? "TPUSH" : "TPOP") + " aborted: " + abort_);
    if (can_go(m)) return;
    mb.state = State::Blocked;
    check_deadlock_locked();
    while (abort_.empty() && !can_go(m)) {
        const auto deadline = last_progress_ + std::chrono::milliseconds(timeout_ms_);
        if (cv_.wait_until(lk, deadline) == std::cv_status::timeout && abort_.empty() && !can_go(m) &&
            std::chrono::steady_clock::now() >= last_progress_ + std::chrono::milliseconds(timeout_ms_)) {
            abort_locked("no progress on the cross-core pipes of " + label_ + " for " + std::to_string(timeout_ms_) +
                             " ms (a deadlock, or a member that never reaches its TPUSH / TPOP): " + describe_members(),
                         true);
        }
    }
    mb.state = State::Running;
    if (!abort_.empty()) fail_unlocked(lk, std::string(op == Op::Push ? "TPUSH" : "TPOP") + " aborted: " + abort_);
}

Gang::Channel& Gang::channel_locked(int m, const pto::sim::FifoCall& c, bool producer, std::unique_lock<std::mutex>& lk) {
    const std::string instr = c.instr;
    const std::string pipe_txt = "pipe " + std::to_string(c.flag);
    if (c.dir_type == 4)
        fail_unlocked(lk, instr + " on " + pipe_txt + ": DIR_V2C_CTRL pipes are not supported by the CPU runtime yet");
    if (c.split == 3 || c.split == 4)
        fail_unlocked(lk, instr + " on " + pipe_txt + ": " + split_name(c.split) +
                              " is not supported by the CPU runtime yet");
    if (c.split > 4) fail_unlocked(lk, instr + ": unknown TileSplitAxis " + std::to_string(c.split));
    // AIC: pushes C2V, pops V2C; AIV: pushes V2C, pops C2V.
    const int dir = (m == 0) == producer ? 1 : 2;
    const char* dir_txt = dir == 1 ? "C2V" : "V2C";
    if ((c.dir_type & dir) == 0)
        fail_unlocked(lk, instr + " on " + pipe_txt + " by the " + (m == 0 ? "AIC" : "AIV") + " kernel needs a " +
                              dir_txt + " ring, but the TPipe's DirType is " +
                              (c.dir_type == 1 ? "DIR_C2V" : c.dir_type == 2 ? "DIR_V2C" : "DIR_BOTH"));
    if (c.split == kSplitNone && m == 2)
        fail_unlocked(lk, instr + " on " + pipe_txt + " " + dir_txt +
                              " with TILE_NO_SPLIT from AIV lane 1: a TILE_NO_SPLIT pipe is served by AIV lane 0 "
                              "(subblock 0) only");
    if (c.split != kSplitNone && (!members_[1].kernel || !members_[2].kernel))
        fail_unlocked(lk, instr + " on " + pipe_txt + " " + dir_txt + " with " + split_name(c.split) +
                              " needs both AIV lanes in the mixed task ({aic, aiv, aiv})");
    auto& slot = channels_[{c.flag, dir}];
    if (!slot) {
        if (c.slot_size == 0 || c.slot_num == 0) fail_unlocked(lk, instr + ": TPipe with SlotSize or SlotNum 0");
        slot = std::make_unique<Channel>();
        Channel& ch = *slot;
        ch.flag = c.flag;
        ch.dir = dir;
        ch.dir_type = c.dir_type;
        ch.slot_size = c.slot_size;
        ch.slot_num = c.slot_num;
        ch.user = m;
        ch.split = c.split;
        const std::vector<int> aiv = c.split == kSplitNone ? std::vector<int>{1} : std::vector<int>{1, 2};
        ch.producers = dir == 1 ? std::vector<int>{0} : aiv;
        ch.consumers = dir == 1 ? aiv : std::vector<int>{0};
        ch.ring.assign(static_cast<std::size_t>(c.slot_num) * c.slot_size, 0);
        ch.meta.assign(static_cast<std::size_t>(c.slot_num) * kMembers, Meta{});
        return ch;
    }
    Channel& ch = *slot;
    if (ch.slot_size != c.slot_size || ch.slot_num != c.slot_num || ch.dir_type != c.dir_type)
        fail_unlocked(lk, instr + " on " + pipe_name(ch) + ": the TPipe types of the two sides differ: " +
                              member_name(ch.user) + " uses SlotSize " + std::to_string(ch.slot_size) + ", SlotNum " +
                              std::to_string(ch.slot_num) + ", DirType " + std::to_string(ch.dir_type) + ", " +
                              member_name(m) + " SlotSize " + std::to_string(c.slot_size) + ", SlotNum " +
                              std::to_string(c.slot_num) + ", DirType " + std::to_string(c.dir_type));
    if (ch.split != c.split)
        fail_unlocked(lk, instr + " on " + pipe_name(ch) + " with " + split_name(c.split) + ", but " +
                              member_name(ch.user) + " used it with " + split_name(ch.split));
    return ch;
}

void Gang::push(int m, const pto::sim::FifoCall& c, const void* data) {
    std::unique_lock<std::mutex> lk(mu_);
    Channel& ch = channel_locked(m, c, true, lk);
    const uint64_t bytes = static_cast<uint64_t>(c.rows) * c.cols * c.elem_size;
    const uint64_t whole = ch.split == kSplitNone || ch.dir == 1 ? bytes : 2 * bytes;
    if (whole > ch.slot_size)
        fail_unlocked(lk, "TPUSH on " + pipe_name(ch) + ": a " + c.tile_type + " tile of " + shape_str(c.rows, c.cols) +
                              " " + c.dtype + " (" + std::to_string(whole) + " bytes" +
                              (whole != bytes ? " for both lanes' halves" : "") + ") does not fit the SlotSize of " +
                              std::to_string(ch.slot_size) + " bytes");
    wait_locked(lk, m, Op::Push, ch);
    const uint64_t k = ch.pushed[m];
    const std::size_t slot = static_cast<std::size_t>(k % ch.slot_num);
    uint8_t* base = ch.ring.data() + slot * ch.slot_size;
    const auto* src = static_cast<const uint8_t*>(data);
    if (ch.dir == 1 || ch.split == kSplitNone) {
        std::memcpy(base, src, bytes);
    } else if (ch.split == kSplitUpDown) {
        std::memcpy(base + (m - 1) * bytes, src, bytes);
    } else {  // left / right: row r of the whole (2 * cols wide) holds lane 0's then lane 1's columns
        const std::size_t row = static_cast<std::size_t>(c.cols) * c.elem_size;
        for (uint32_t r = 0; r < c.rows; ++r) std::memcpy(base + (2 * r + (m - 1)) * row, src + r * row, row);
    }
    ch.meta[slot * kMembers + m] = Meta{c.dtype, c.elem_size, c.rows, c.cols};
    ++ch.pushed[m];
    progress_locked();
    cv_.notify_all();
}

uint64_t Gang::pop(int m, const pto::sim::FifoCall& c, void* out) {
    std::unique_lock<std::mutex> lk(mu_);
    Channel& ch = channel_locked(m, c, false, lk);
    const char* want_tile = ch.dir == 1 ? "Vec" : "Mat";
    if (std::strcmp(c.tile_type, want_tile) != 0)
        fail_unlocked(lk, "TPOP on " + pipe_name(ch) + " needs a " + want_tile + " tile, got a " + c.tile_type + " tile");
    wait_locked(lk, m, Op::Pop, ch);
    const uint64_t k = ch.popped[m];
    const std::size_t slot = static_cast<std::size_t>(k % ch.slot_num);
    const uint8_t* base = ch.ring.data() + slot * ch.slot_size;
    // What was pushed: one producer's tile, or (V2C split) the two lanes' halves put together.
    const Meta& p0 = ch.meta[slot * kMembers + ch.producers[0]];
    uint32_t rows = p0.rows, cols = p0.cols;
    if (ch.producers.size() == 2) {
        const Meta& p1 = ch.meta[slot * kMembers + ch.producers[1]];
        if (p1.dtype != p0.dtype || p1.rows != p0.rows || p1.cols != p0.cols)
            fail_unlocked(lk, "TPOP on " + pipe_name(ch) + ": tile " + std::to_string(k + 1) + "'s halves differ: " +
                                  member_name(ch.producers[0]) + " pushed " + shape_str(p0.rows, p0.cols) + " " +
                                  p0.dtype + ", " + member_name(ch.producers[1]) + " pushed " +
                                  shape_str(p1.rows, p1.cols) + " " + p1.dtype);
        if (ch.split == kSplitUpDown) rows *= 2;
        else cols *= 2;
    }
    // What this consumer receives: the whole, or (C2V split) its lane's half.
    uint32_t want_r = rows, want_c = cols;
    const int lane = m - 1;
    if (ch.dir == 1 && ch.split == kSplitUpDown) want_r = rows / 2;
    if (ch.dir == 1 && ch.split == kSplitLeftRight) want_c = cols / 2;
    const bool odd = (ch.dir == 1 && ch.split == kSplitUpDown && rows % 2) ||
                     (ch.dir == 1 && ch.split == kSplitLeftRight && cols % 2);
    const std::string pushed_by = ch.producers.size() == 2 ? "both AIV lanes" : member_name(ch.producers[0]);
    if (p0.dtype != c.dtype || p0.elem_size != c.elem_size || odd || want_r != c.rows || want_c != c.cols)
        fail_unlocked(lk, "TPOP on " + pipe_name(ch) + ": tile " + std::to_string(k + 1) + " was pushed by " +
                              pushed_by + " as " + shape_str(rows, cols) + " " + p0.dtype +
                              (ch.dir == 1 && ch.split != kSplitNone ? std::string(" (") + split_name(ch.split) +
                                                                           ": each lane pops half)"
                                                                     : std::string()) +
                              ", but " + member_name(m) + " pops it into a " + c.tile_type + " tile of " +
                              shape_str(c.rows, c.cols) + " " + c.dtype);
    auto* dst = static_cast<uint8_t*>(out);
    const std::size_t es = c.elem_size;
    if (ch.dir == 1 && ch.split == kSplitUpDown) {
        std::memcpy(dst, base + static_cast<std::size_t>(lane) * want_r * cols * es, static_cast<std::size_t>(want_r) * cols * es);
    } else if (ch.dir == 1 && ch.split == kSplitLeftRight) {
        for (uint32_t r = 0; r < rows; ++r)
            std::memcpy(dst + r * want_c * es, base + (static_cast<std::size_t>(r) * cols + lane * want_c) * es, want_c * es);
    } else {
        std::memcpy(dst, base, static_cast<std::size_t>(rows) * cols * es);
    }
    ++ch.popped[m];
    progress_locked();
    cv_.notify_all();
    return k;
}

void Gang::free(int m, const pto::sim::FifoCall& c) {
    std::unique_lock<std::mutex> lk(mu_);
    Channel& ch = channel_locked(m, c, false, lk);
    if (!abort_.empty()) fail_unlocked(lk, "TFREE aborted: " + abort_);
    if (ch.freed[m] >= ch.popped[m])
        fail_unlocked(lk, "TFREE on " + pipe_name(ch) + " by " + member_name(m) + " without an outstanding TPOP (popped " +
                              std::to_string(ch.popped[m]) + ", freed " + std::to_string(ch.freed[m]) + ")");
    ++ch.freed[m];
    progress_locked();
    cv_.notify_all();
}

std::string Gang::leftovers_locked() const {
    std::string s;
    auto add = [&](const std::string& x) { s += (s.empty() ? "" : "; ") + x; };
    for (const auto& [key, chp] : channels_) {
        const Channel& ch = *chp;
        for (int p : ch.producers)
            for (int q : ch.consumers)
                if (ch.pushed[p] > ch.popped[q])
                    add(member_name(p) + " pushed " + std::to_string(ch.pushed[p]) + " tile(s) on " + pipe_name(ch) +
                        " but " + member_name(q) + " popped only " + std::to_string(ch.popped[q]));
        for (int q : ch.consumers)
            if (ch.popped[q] > ch.freed[q])
                add(member_name(q) + " popped " + std::to_string(ch.popped[q]) + " tile(s) on " + pipe_name(ch) +
                    " but freed (TFREE) only " + std::to_string(ch.freed[q]));
    }
    return s;
}

void Gang::member_finished(int m, bool failed) {
    std::unique_lock<std::mutex> lk(mu_);
    members_[m].state = State::Finished;
    progress_locked();
    if (failed) {
        abort_locked(member_name(m) + " of " + label_ + " failed", false);  // its error is recorded already
        return;
    }
    check_deadlock_locked();
    cv_.notify_all();
    for (const Member& mb : members_)
        if (mb.state != State::Absent && mb.state != State::Finished) return;
    if (!abort_.empty()) return;
    if (const std::string left = leftovers_locked(); !left.empty())
        abort_locked("at the end of " + label_ + ", tiles were left in its cross-core pipes: " + left, true);
}

}  // namespace pypto_rt

namespace pto::sim {
namespace {
pypto_rt::Gang& gang_of(const FifoCall& c, int& member) {
    KernelContext& k = current_kernel();
    if (!k.gang)
        fail(std::string(c.instr) + " on pipe " + std::to_string(c.flag) +
             " outside a mixed task: cross-core pipes connect the AIC and AIV kernels of one task submitted "
             "as MixedKernels{aic, aiv0[, aiv1]}");
    member = k.gang_member;
    return *static_cast<pypto_rt::Gang*>(k.gang);
}
}  // namespace

void fifo_push(const FifoCall& c, const void* data) {
    int m = 0;
    pypto_rt::Gang& g = gang_of(c, m);
    g.push(m, c, data);
}
uint64_t fifo_pop(const FifoCall& c, void* out) {
    int m = 0;
    pypto_rt::Gang& g = gang_of(c, m);
    return g.pop(m, c, out);
}
void fifo_free(const FifoCall& c) {
    int m = 0;
    pypto_rt::Gang& g = gang_of(c, m);
    g.free(m, c);
}

}  // namespace pto::sim
