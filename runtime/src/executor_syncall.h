// pypto CPU runtime: the barrier of one launch's pl.system.syncall (SYNCALL,
// pto/pto_ops_syncall.hpp). Its participants are the launch's kernels of the barrier's core types,
// each named by its place (block * 3 + slot: 0 AIC, 1 / 2 AIV lane 0 / 1). A generation completes
// when every participant has arrived; a participant that ends, or fails, while others wait — or
// that has ended with fewer arrivals than one arriving now — means the barrier can never complete:
// the run stops with a message naming the blocks (on the device the AICore would time out). A
// bounded fallback stops a barrier that sees no arrival for the executor's timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace pypto_rt {

class BlockBarrier {
public:
    // `label`: "syncall(aiv_only) of task 3 ..."; `name(who)`: "block 2 (kernel 'k')".
    BlockBarrier(std::string label, int participants, int timeout_ms, std::function<std::string(int)> name,
                 std::function<void(const std::string&)> report);

    // Waits for the other participants; throws std::runtime_error when the barrier cannot complete.
    void arrive(int who);
    // A participant's kernel returned (or threw: `failed`, whose error is already recorded).
    void finished(int who, bool failed);

private:
    [[noreturn]] void abort_locked(std::unique_lock<std::mutex>& lk, const std::string& msg);
    std::string waiting_locked() const;

    std::string label_;
    int participants_;
    int timeout_ms_;
    std::function<std::string(int)> name_;
    std::function<void(const std::string&)> report_;
    std::mutex mu_;
    std::condition_variable cv_;
    uint64_t generation_ = 0;
    int arrived_ = 0;
    std::map<int, uint64_t> arrivals_;  // per participant: barriers it has arrived at
    std::map<int, bool> ended_;         // participants whose kernel has returned (true: it failed)
    std::string abort_;
};

}  // namespace pypto_rt
