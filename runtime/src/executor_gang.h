// pypto CPU runtime: the gang of one SPMD block of a mixed task (its AIC kernel and one or two AIV
// kernels, running at the same time on one simulated cluster) and the cross-core FIFO rings its
// members share (TPUSH / TPOP / TFREE, pto/pto_ops_fifo.hpp). The executor creates one per block,
// points each member's KernelContext at it and tells it when a member ends; the FIFO calls block
// on it. It detects deadlocks from its members' states (every unfinished member waits and none
// can go on), has a bounded fallback (no progress for ExecutorOptions::fifo_timeout_ms), and at
// the end of the gang reports tiles left in a ring.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pto/pto_sim_fifo.hpp>

#include "pypto_rt/program.h"

namespace pypto_rt {

class Gang {
public:
    static constexpr int kMembers = 3;  // 0: AIC, 1: AIV lane 0 (subblock 0), 2: AIV lane 1
    // `kernels[m]` null for an absent member; `report` records the run's error (first one wins).
    Gang(std::string label, const KernelInfo* const kernels[kMembers], int timeout_ms,
         std::function<void(const std::string&)> report);

    // A member's kernel returned (failed: it threw, or it was skipped): wakes the others.
    void member_finished(int m, bool failed);

    void push(int m, const pto::sim::FifoCall& c, const void* data);
    uint64_t pop(int m, const pto::sim::FifoCall& c, void* out);
    void free(int m, const pto::sim::FifoCall& c);

private:
    struct Meta {
        std::string dtype;
        uint32_t elem_size = 0, rows = 0, cols = 0;
    };
    struct Channel {
        uint8_t flag = 0;
        int dir = 0;  // 1: C2V, 2: V2C
        uint8_t dir_type = 0;
        uint32_t slot_size = 0, slot_num = 0;
        int user = -1;  // the member whose call created it (for mismatch messages)
        int split = -1;
        std::vector<int> producers, consumers;
        std::vector<uint8_t> ring;              // slot_num * slot_size bytes
        std::vector<Meta> meta;                 // [slot * kMembers + producer]
        uint64_t pushed[kMembers] = {}, popped[kMembers] = {}, freed[kMembers] = {};
    };
    enum class State { Absent, Running, Blocked, Finished };
    enum class Op { Push, Pop };
    struct Member {
        const KernelInfo* kernel = nullptr;
        State state = State::Absent;
        Op op = Op::Push;
        Channel* ch = nullptr;
    };

    Channel& channel_locked(int m, const pto::sim::FifoCall& c, bool producer, std::unique_lock<std::mutex>& lk);
    bool can_go(int m) const;
    void wait_locked(std::unique_lock<std::mutex>& lk, int m, Op op, Channel& ch);
    void check_deadlock_locked();
    void abort_locked(const std::string& msg, bool report);
    void progress_locked();
    [[noreturn]] void fail_unlocked(std::unique_lock<std::mutex>& lk, const std::string& msg);
    std::string member_name(int m) const;
    std::string pipe_name(const Channel& ch) const;
    std::string describe_member(int m) const;
    std::string describe_members() const;
    std::string leftovers_locked() const;

    std::string label_;
    int timeout_ms_;
    std::function<void(const std::string&)> report_;
    Member members_[kMembers];
    std::map<std::pair<int, int>, std::unique_ptr<Channel>> channels_;  // by (flag, dir)
    std::string abort_;  // set: every waiter unwinds
    std::chrono::steady_clock::time_point last_progress_;
    std::mutex mu_;
    std::condition_variable cv_;
};

}  // namespace pypto_rt
