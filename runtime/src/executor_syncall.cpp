// pypto CPU runtime: pl.system.syncall across the kernels of one launch (executor_syncall.h) and
// the executor's side of it: which kernels of the task take part (by the barrier's core type),
// the conditions under which the device's barrier completes — checked here, since a violation
// hangs the device rather than failing —, and the entry the tile API calls (pto::sim::syncall).
#include "executor_syncall.h"

#include <pto/pto_ops_syncall.hpp>
#include <pto/pto_sim_context.hpp>

#include <stdexcept>
#include <vector>

#include "executor_internal.h"

namespace pypto_rt {

BlockBarrier::BlockBarrier(std::string label, int participants, int timeout_ms, std::function<std::string(int)> name,
                           std::function<void(const std::string&)> report)
    : label_(std::move(label)), participants_(participants), timeout_ms_(timeout_ms), name_(std::move(name)),
      report_(std::move(report)) {}

std::string BlockBarrier::waiting_locked() const {
    std::string s;
    int n = 0;
    for (const auto& [who, count] : arrivals_)
        if (count == generation_ + 1 && !ended_.count(who)) s += (n++ ? ", " : "") + name_(who);
    return n ? s : "none";
}

void BlockBarrier::abort_locked(std::unique_lock<std::mutex>& lk, const std::string& msg) {
    if (abort_.empty()) {
        abort_ = msg;
        report_(msg);
    }
    cv_.notify_all();
    lk.unlock();
    throw std::runtime_error(msg);
}

void BlockBarrier::arrive(int who) {
    std::unique_lock<std::mutex> lk(mu_);
    if (!abort_.empty()) abort_locked(lk, abort_);
    const uint64_t mine = ++arrivals_[who];
    for (const auto& [other, failed] : ended_)
        if (!failed && arrivals_[other] < mine)
            abort_locked(lk, label_ + " can never complete: " + name_(other) + " ended without reaching barrier " +
                                 std::to_string(mine) + " while " + name_(who) +
                                 " arrives there (on the device the AICore would time out, 507018)");
    const uint64_t gen = generation_;
    if (++arrived_ == participants_) {
        arrived_ = 0;
        ++generation_;
        cv_.notify_all();
        return;
    }
    auto last = std::chrono::steady_clock::now();
    int seen = arrived_;
    while (generation_ == gen && abort_.empty()) {
        if (cv_.wait_until(lk, last + std::chrono::milliseconds(timeout_ms_)) == std::cv_status::timeout) {
            if (generation_ != gen || !abort_.empty()) break;
            if (arrived_ == seen)
                abort_locked(lk, label_ + ": no participant arrived for " + std::to_string(timeout_ms_) + " ms; " +
                                     std::to_string(arrived_) + " of " + std::to_string(participants_) +
                                     " wait (" + waiting_locked() + ")");
            seen = arrived_;
            last = std::chrono::steady_clock::now();
        }
    }
    if (generation_ == gen) abort_locked(lk, abort_);
}

void BlockBarrier::finished(int who, bool failed) {
    std::unique_lock<std::mutex> lk(mu_);
    ended_[who] = failed;
    if (!abort_.empty() || arrived_ == 0) return;
    if (failed) {  // its error is the run's; the waiters unwind
        abort_ = label_ + ": " + name_(who) + " failed";
        cv_.notify_all();
        return;
    }
    const std::string msg = label_ + " can never complete: " + name_(who) + " ended without reaching barrier " +
                            std::to_string(generation_ + 1) + " while others wait there: " + waiting_locked() +
                            " (on the device the AICore would time out, 507018)";
    abort_ = msg;
    report_(msg);
    cv_.notify_all();
}

// ---- the executor's side ----

namespace {
const char* core_type_name(pto::SyncCoreType t) {
    return t == pto::SyncCoreType::AIVOnly ? "aiv_only" : t == pto::SyncCoreType::AICOnly ? "aic_only" : "mix";
}
}  // namespace

void Executor::syncall_hook(const pto::sim::SyncAllCall& c) {
    pto::sim::KernelContext& k = pto::sim::current_kernel();
    if (!k.job) pto::sim::fail("SYNCALL outside a task: the barrier joins the kernels of one launch");
    auto& jc = *static_cast<JobContext*>(k.job);
    jc.ex->syncall_arrive(jc, c);
}

void Executor::syncall_arrive(JobContext& jc, const pto::sim::SyncAllCall& c) {
    Task& t = *const_cast<Task*>(jc.task);
    const bool cube = kernels_[static_cast<std::size_t>(jc.kernel_id)].core == CoreType::AIC;
    // A kernel outside the participant set passes through, as the hardware's SYNCALL does.
    if ((c.core_type == pto::SyncCoreType::AIVOnly && cube) || (c.core_type == pto::SyncCoreType::AICOnly && !cube)) return;
    const int who = jc.block * 3 + (cube ? 0 : 1 + jc.sub_block);  // as barrier_place
    const int aic_slots = t.mk.aic_kernel_id != INVALID_KERNEL_ID ? 1 : 0;
    const int aiv_slots = (t.mk.aiv0_kernel_id != INVALID_KERNEL_ID ? 1 : 0) + (t.mk.aiv1_kernel_id != INVALID_KERNEL_ID ? 1 : 0);
    const int aic_jobs = t.block_num * aic_slots, aiv_jobs = t.block_num * aiv_slots;
    const std::string form = std::string(c.soft ? "soft" : "hard") + " syncall(" + core_type_name(c.core_type) + ")";
    const std::string where = form + " in " + task_label(t) + ", kernel '" +
                              kernels_[static_cast<std::size_t>(jc.kernel_id)].name + "'";
    int participants = 0, cores = 0;
    const char* noun = "";
    switch (c.core_type) {
        case pto::SyncCoreType::AIVOnly: participants = aiv_jobs, cores = 2 * clusters_, noun = "AIV cores"; break;
        case pto::SyncCoreType::AICOnly: participants = aic_jobs, cores = clusters_, noun = "AIC cores"; break;
        case pto::SyncCoreType::Mix:
            if (aic_jobs == 0 || aiv_jobs == 0)
                pto::sim::fail(where + " can never complete: the launch runs no " + (aic_jobs == 0 ? "AIC" : "AIV") +
                               " kernel, and a mix barrier waits for both (use core_type=\"" +
                               (aic_jobs == 0 ? "aiv_only" : "aic_only") + "\")");
            participants = aic_jobs + aiv_jobs, cores = 3 * clusters_, noun = "cores (AIC + AIV)";
            break;
    }
    // A mixed task fills the machine with one block per cluster, whatever the barrier's core type.
    const int launched = t.mixed ? t.block_num : participants;
    const int fill = t.mixed ? clusters_ : cores;
    const std::string unit = t.mixed ? "clusters" : noun;
    if (!c.soft) {
        if (!t.sync_start)
            pto::sim::fail(where + ": the launch lacks sync_start, so the device may start its blocks in waves and "
                           "the barrier never completes (507018); launch it with pl.spmd(..., sync_start=True)");
        if (launched != fill)
            pto::sim::fail(where + " needs one " + (t.mixed ? "block" : "participant") + " on each of this run's " +
                           std::to_string(fill) + " " + unit + " (--clusters " + std::to_string(clusters_) +
                           "); the launch has " + std::to_string(launched) + " (" + std::to_string(t.block_num) +
                           " blocks); size it with pl.system.available_" +
                           (c.core_type == pto::SyncCoreType::AIVOnly && !t.mixed ? "aiv" : "cluster") +
                           "_count(), or use mode=\"soft\" for a partial launch");
    } else {
        if (c.used_cores > 0 && c.used_cores != participants)
            pto::sim::fail(where + " counts used_cores = " + std::to_string(c.used_cores) + " participants, but the launch has " +
                           std::to_string(participants) + " (" + std::to_string(t.block_num) + " blocks): the barrier would " +
                           (c.used_cores < participants ? "release early" : "never complete"));
        if (participants > cores)
            pto::sim::fail(where + " has " + std::to_string(participants) + " participants but this run has " +
                           std::to_string(cores) + " " + noun + " (--clusters " + std::to_string(clusters_) +
                           "): the blocks beyond them never start while the first ones wait");
    }
    BlockBarrier* b = nullptr;
    std::vector<std::pair<int, bool>> ended_before;  // told to a new barrier outside mu_ (lock order)
    {
        std::lock_guard<std::mutex> lk(mu_);
        const int key = static_cast<int>(c.core_type) * 2 + (c.soft ? 1 : 0);
        auto& slot = t.barriers[key];
        if (!slot) {
            slot = std::make_unique<BlockBarrier>(
                where, participants, opts_.fifo_timeout_ms,
                [this, &t](int w) {
                    const int s = w % 3;
                    const int32_t kid = s == 0 ? t.mk.aic_kernel_id : s == 1 ? t.mk.aiv0_kernel_id : t.mk.aiv1_kernel_id;
                    return "block " + std::to_string(w / 3) + " ('" +
                           std::string(kid == INVALID_KERNEL_ID ? "?" : kernels_[static_cast<std::size_t>(kid)].name) + "')";
                },
                [this](const std::string& m) { record_error(m); });
            ended_before = t.ended;
        }
        b = slot.get();
        // Waiting at the barrier holds the simulated core but no run slot: the rest of the launch
        // may need it to arrive.
        if (jc.pure) release_run_slot_locked();
    }
    for (const auto& [w, failed] : ended_before) b->finished(w, failed);
    auto take_slot_back = [&] {
        std::lock_guard<std::mutex> lk(mu_);
        if (jc.pure) ++pure_running_;
    };
    try {
        b->arrive(who);
    } catch (...) {
        take_slot_back();
        throw;
    }
    take_slot_back();
}

int Executor::barrier_place(const Job& job) const {
    const bool cube = kernels_[static_cast<std::size_t>(job.kernel_id)].core == CoreType::AIC;
    return job.block_idx * 3 + (cube ? 0 : 1 + job.sub_block_id);
}

}  // namespace pypto_rt

namespace pto::sim {
void syncall(const SyncAllCall& c) { pypto_rt::Executor::syncall_hook(c); }
}  // namespace pto::sim
