// pypto CPU runtime: the task executor (worker threads, dependency tracking, dispatch of kernel
// entries with the args[] ABI, gang scheduling of mixed tasks) and the checkers' side of a
// dispatch (GM extents, hooks, findings). The gangs' FIFOs are executor_gang.cpp.
// Semantics are documented in pypto_rt/executor.h.
#include "pypto_rt/executor.h"

#include <pto/pto_sim_check.hpp>
#include <pto/pto_sim_context.hpp>
#include <pto/pto_sim_fast.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <thread>
#include <unistd.h>

#include "executor_internal.h"
#include "intrinsic.h"

namespace pypto_rt {

namespace {
thread_local Executor* g_current = nullptr;

uint64_t now_ns() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}
}  // namespace

Executor* Executor::current() { return g_current; }

Executor::Executor(std::vector<KernelInfo> kernels, ExecutorOptions opts)
    : kernels_(std::move(kernels)), clusters_(std::max(1, opts.clusters)), opts_(opts) {
    pto::sim::fast::prepare();  // before any thread starts (it sets an environment variable)
    max_running_ = opts.max_running > 0 ? opts.max_running
                                        : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
    mailbox_.resize(static_cast<std::size_t>(3 * clusters_));
    idle_.assign(static_cast<std::size_t>(3 * clusters_), 0);
    wake_pending_.assign(static_cast<std::size_t>(3 * clusters_), 0);
    for (int w = 0; w < 3 * clusters_; ++w) worker_cv_.push_back(std::make_unique<std::condition_variable>());
    for (int c = 0; c < clusters_; ++c)
        for (int role = 0; role < 3; ++role) workers_.emplace_back([this, c, role] { worker_loop(c, role); });
}

Executor::~Executor() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        shutdown_ = true;
        wake_all_locked();
    }
    for (auto& w : workers_) w.join();
}

void Executor::begin_run() {
    std::lock_guard<std::mutex> lk(mu_);
    tasks_.clear();
    accesses_.clear();
    scopes_.clear();
    error_.clear();
    findings_.clear();
    races_ = RaceChecker{};
    stats_ = RunStats{};
    unfinished_ = 0;
    ready_gangs_.clear();
    reserved_cluster_ = -1;
    g_current = this;
    trace_.assign(workers_.size(), {});
    dummy_trace_.clear();
    submitted_ = 0;
    finished_ = 0;
    run_start_ns_ = now_ns();
}

bool Executor::end_run() {
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [&] { return unfinished_ == 0; });
    g_current = nullptr;
    stats_.millis = static_cast<double>(now_ns() - run_start_ns_) / 1e6;
    if (opts_.check_races && error_.empty()) find_races();
    std::sort(findings_.begin(), findings_.end());
    return error_.empty();
}

void Executor::record_error(const std::string& msg) {
    std::lock_guard<std::mutex> lk(mu_);
    if (error_.empty()) error_ = msg;
}

void Executor::fail(const std::string& msg) { record_error(msg); }

Executor::Task* Executor::find_task_locked(PTO2TaskId id) {
    if (!id.is_valid() || id.ring() != 0) return nullptr;
    const uint64_t seq = id.local();
    if (seq >= tasks_.size()) return nullptr;
    return tasks_[seq].get();
}

void Executor::add_dep_locked(Task* t, Task* producer, uint8_t why) {
    if (opts_.trace && producer && producer != t) {
        auto it = std::find_if(t->trace_deps.begin(), t->trace_deps.end(), [&](const auto& d) { return d.first == producer; });
        if (it == t->trace_deps.end()) t->trace_deps.emplace_back(producer, why);
        else it->second |= why;
    }
    if (!producer || producer == t || producer->done) return;
    if (std::find(t->producers.begin(), t->producers.end(), producer) != t->producers.end()) return;
    t->producers.push_back(producer);
    producer->successors.push_back(t);
    ++t->pending;
}

void Executor::record_access_locked(Task* t, const ChipTensor& tensor, bool read, bool write, bool lookup) {
    const Region r = Region::of(tensor);
    if (r.empty()) return;
    auto& list = accesses_[r.buffer];
    // Finished tasks order nothing, so their accesses go -- except when tracing: the trace shows
    // every edge the program's accesses imply, whether or not the producer had finished by the
    // time its consumer was submitted (otherwise the arrows would depend on thread timing).
    if (!opts_.trace)
        list.erase(std::remove_if(list.begin(), list.end(), [](const Access& a) { return a.task->done; }), list.end());
    if (lookup) {
        for (const Access& a : list) {
            if (a.task == t) continue;
            if ((write || a.write) && regions_overlap(a.region, r))
                add_dep_locked(t, a.task,
                               static_cast<uint8_t>((a.write && read ? kRaw : 0) | (a.write && write ? kWaw : 0) |
                                                    (!a.write && write ? kWar : 0)));
        }
        // An earlier access of exactly this region is now ordered before t: drop it.
        if (write)
            list.erase(std::remove_if(list.begin(), list.end(),
                                      [&](const Access& a) { return a.task != t && a.region.same_as(r); }),
                       list.end());
    }
    list.push_back(Access{t, r, write});
}

ChipTensor& Executor::allocate_locked(const TensorCreateInfo& ci, PTO2TaskId owner) {
    const uint64_t bytes = ci.buffer_size_bytes();
    auto buf = std::make_unique<uint8_t[]>(std::max<uint64_t>(bytes, 1));
    std::memset(buf.get(), 0, std::max<uint64_t>(bytes, 1));
    const uint64_t es = get_element_size(ci.dtype);
    if (ci.has_initial_value && es > 0)
        for (uint64_t off = 0; off + es <= bytes; off += es) std::memcpy(buf.get() + off, &ci.initial_value, es);
    ChipTensor& t = owned_tensors_.emplace_back();
    t.init_external(buf.get(), bytes, ci.shapes, ci.ndims, ci.dtype);
    t.manual_dep = ci.manual_dep;
    t.owner_task_id = owner;
    owned_buffers_.push_back(std::move(buf));
    return t;
}

TaskOutputTensors Executor::alloc(const CoreTaskArgs& args) {
    std::lock_guard<std::mutex> lk(mu_);
    TaskOutputTensors out;
    if (args.has_error) {
        if (error_.empty()) error_ = std::string("alloc_tensors: ") + (args.error_msg ? args.error_msg : "bad args");
        return out;
    }
    for (int32_t i = 0; i < args.tensor_count(); ++i)
        if (args.tag(i) == TensorArgType::OUTPUT)
            out.materialize_output(allocate_locked(args.tensor(i).create_info(), PTO2TaskId::invalid()));
    return out;
}

TaskOutputTensors Executor::submit(const MixedKernels& mk, const CoreTaskArgs& args, bool dummy, uint32_t line) {
    std::unique_lock<std::mutex> lk(mu_);
    TaskOutputTensors out;
    if (!error_.empty()) return out;
    if (args.has_error) {
        error_ = std::string("submit: ") + (args.error_msg ? args.error_msg : "bad task args");
        return out;
    }
    const int32_t slots[3] = {mk.aic_kernel_id, mk.aiv0_kernel_id, mk.aiv1_kernel_id};
    int nslots = 0;
    if (!dummy) {
        for (int s = 0; s < 3; ++s) {
            const int32_t k = slots[s];
            if (k == INVALID_KERNEL_ID) continue;
            if (k < 0 || k >= static_cast<int32_t>(kernels_.size())) {
                error_ = "submit: unknown func_id " + std::to_string(k);
                return out;
            }
            const CoreType want = s == 0 ? CoreType::AIC : CoreType::AIV;
            if (kernels_[k].core != want) {
                error_ = "submit: kernel '" + std::string(kernels_[k].name) + "' (func_id " + std::to_string(k) +
                         ") submitted as " + (want == CoreType::AIC ? "AIC" : "AIV") + " but is an " +
                         (want == CoreType::AIC ? "AIV" : "AIC") + " kernel";
                return out;
            }
            ++nslots;
        }
        if (nslots == 0) {
            error_ = "submit: task without any kernel";
            return out;
        }
    }
    if (args.tensor_count() > CORE_MAX_TENSOR_ARGS || args.scalar_count() > CORE_MAX_SCALAR_ARGS) {
        error_ = "submit: too many arguments";
        return out;
    }

    auto owned = std::make_unique<Task>();
    Task* t = owned.get();
    t->seq = tasks_.size();
    t->id = PTO2TaskId::make(0, static_cast<uint32_t>(t->seq));
    t->mk = mk;
    t->block_num = std::max<int>(1, args.launch_spec.block_num());
    t->sync_start = args.launch_spec.require_sync_start();
    t->submit_line = line;
    tasks_.push_back(std::move(owned));
    ++unfinished_;
    ++stats_.tasks;
    ++submitted_;

    const bool manual = std::find(scopes_.begin(), scopes_.end(), PTO2ScopeMode::MANUAL) != scopes_.end();
    t->tensors.reserve(static_cast<std::size_t>(args.tensor_count()));
    for (int32_t i = 0; i < args.tensor_count(); ++i) {
        const TensorArgType tag = args.tag(i);
        if (tag == TensorArgType::OUTPUT) {
            ChipTensor& ct = allocate_locked(args.tensor(i).create_info(), t->id);
            t->tensors.push_back(ct);
            record_access_locked(t, ct, false, true, false);
            out.materialize_output(ct);
            continue;
        }
        const ChipTensor& ct = args.tensor(i).ref();
        t->tensors.push_back(ct);
        if (tag == TensorArgType::NO_DEP) continue;
        if (!manual && ct.owner_task_id.is_valid()) add_dep_locked(t, find_task_locked(ct.owner_task_id), kCreator);
        const bool read = tag == TensorArgType::INPUT || tag == TensorArgType::INOUT;
        const bool write = tag == TensorArgType::INOUT || tag == TensorArgType::OUTPUT_EXISTING;
        record_access_locked(t, ct, read, write, !manual && !ct.manual_dep);
    }
    for (uint32_t i = 0; i < args.explicit_dep_count(); ++i)
        add_dep_locked(t, find_task_locked(args.explicit_dep(i)), kExplicit);
    if (opts_.trace)
        for (int32_t i = 0; i < args.tensor_count(); ++i) t->trace_tags.push_back(args.tag(i));
    for (int32_t j = 0; j < args.scalar_count(); ++j) t->scalars.push_back(args.scalar(j));
    if (opts_.check_races) {
        std::vector<TensorArgType> tags;
        std::vector<int64_t> owners;
        std::vector<uint64_t> deps;
        for (int32_t i = 0; i < args.tensor_count(); ++i) {
            tags.push_back(args.tag(i));
            const Task* owner = find_task_locked(t->tensors[static_cast<std::size_t>(i)].owner_task_id);
            owners.push_back(owner ? static_cast<int64_t>(owner->seq) : -1);
        }
        for (uint32_t i = 0; i < args.explicit_dep_count(); ++i)
            if (const Task* d = find_task_locked(args.explicit_dep(i))) deps.push_back(d->seq);
        races_.on_submit(t->seq, t->tensors, tags, owners, deps, manual);
    }
    t->mixed = !dummy && mk.aic_kernel_id != INVALID_KERNEL_ID &&
               (mk.aiv0_kernel_id != INVALID_KERNEL_ID || mk.aiv1_kernel_id != INVALID_KERNEL_ID);
    t->jobs_left = dummy ? 0 : nslots * t->block_num;
    stats_.jobs += static_cast<uint64_t>(t->jobs_left);

    out.set_task_id(t->id);
    if (--t->pending == 0) make_ready_locked(t);
    return out;
}

void Executor::make_ready_locked(Task* t) {
    if (t->jobs_left == 0) {  // dummy task: completes as soon as its producers have
        t->jobs_left = 1;
        if (opts_.trace) {
            const uint64_t now = now_ns();
            dummy_trace_.push_back(TraceSlice{t, -1, 0, 0, now, now});
        }
        finish_job_locked(t);
        return;
    }
    const int32_t slots[3] = {t->mk.aic_kernel_id, t->mk.aiv0_kernel_id, t->mk.aiv1_kernel_id};
    if (t->mixed) {
        const KernelInfo* members[Gang::kMembers];
        for (int s = 0; s < 3; ++s) members[s] = slots[s] == INVALID_KERNEL_ID ? nullptr : &kernels_[slots[s]];
        for (int b = 0; b < t->block_num; ++b) {
            std::string label = task_label(*t);
            if (t->block_num > 1) label += ", block " + std::to_string(b) + " of " + std::to_string(t->block_num);
            t->gangs.push_back(std::make_unique<Gang>(std::move(label), members, opts_.fifo_timeout_ms,
                                                      [this](const std::string& m) { record_error(m); }));
            ready_gangs_.push_back(ReadyGang{t, b});
        }
        dispatch_gangs_locked();
        return;
    }
    if (t->sync_start) {
        int need[2] = {0, 0};
        for (int s = 0; s < 3; ++s)
            if (slots[s] != INVALID_KERNEL_ID) need[s == 0 ? 0 : 1] += t->block_num;
        if (need[0] <= clusters_ && need[1] <= 2 * clusters_) {
            ready_sync_.push_back(t);
            dispatch_sync_locked();
            return;
        }
        // More blocks than this run's cores of the type: they run in waves, as without sync_start
        // (the device has more cores); a barrier among them reports that it cannot complete.
    }
    for (int b = 0; b < t->block_num; ++b)
        for (int s = 0; s < 3; ++s) {
            if (slots[s] == INVALID_KERNEL_ID) continue;
            const CoreType core = s == 0 ? CoreType::AIC : CoreType::AIV;
            ready_[static_cast<int>(core)].push_back(Job{t, slots[s], s == 2 ? 1 : 0, b});
            wake_locked(core);
        }
}

// Start ready gangs, oldest first, on clusters whose needed workers are all idle. The oldest one
// that finds none reserves the cluster with the most of them idle (reserved_locked).
void Executor::dispatch_gangs_locked() {
    while (!ready_gangs_.empty()) {
        const ReadyGang rg = ready_gangs_.front();
        Task* t = rg.task;
        const int32_t slots[3] = {t->mk.aic_kernel_id, t->mk.aiv0_kernel_id, t->mk.aiv1_kernel_id};
        auto idle_needed = [&](int c) {
            int n = 0;
            for (int r = 0; r < 3; ++r)
                if (slots[r] != INVALID_KERNEL_ID && idle_[static_cast<std::size_t>(c * 3 + r)]) ++n;
            return n;
        };
        int needed = 0;
        for (int r = 0; r < 3; ++r) needed += slots[r] != INVALID_KERNEL_ID;
        int chosen = -1;
        if (reserved_cluster_ >= 0 && idle_needed(reserved_cluster_) == needed) chosen = reserved_cluster_;
        for (int c = 0; c < clusters_ && chosen < 0; ++c)
            if (idle_needed(c) == needed) chosen = c;
        if (chosen < 0) {
            if (reserved_cluster_ < 0) {
                int best = 0;
                for (int c = 1; c < clusters_; ++c)
                    if (idle_needed(c) > idle_needed(best)) best = c;
                reserved_cluster_ = best;
            }
            return;
        }
        ready_gangs_.pop_front();
        reserved_cluster_ = -1;
        Gang* g = t->gangs[static_cast<std::size_t>(rg.block)].get();
        for (int r = 0; r < 3; ++r) {
            if (slots[r] == INVALID_KERNEL_ID) continue;
            const auto w = static_cast<std::size_t>(chosen * 3 + r);
            idle_[w] = 0;
            mailbox_[w] = Job{t, slots[r], r == 2 ? 1 : 0, rg.block, g, r};
            worker_cv_[w]->notify_one();
        }
        ++stats_.gangs;
        // The reservation is gone: workers it held back may take pure jobs again.
        for (CoreType c : {CoreType::AIC, CoreType::AIV})
            if (!ready_[static_cast<int>(c)].empty()) wake_locked(c);
    }
}

// Start the oldest waiting sync_start task when idle workers can take all its jobs at once (as
// mailbox jobs, like gang members: not limited by max_running). Until then the workers of its
// core types take no pure jobs (reserved_locked), so it cannot starve.
void Executor::dispatch_sync_locked() {
    while (!ready_sync_.empty()) {
        Task* t = ready_sync_.front();
        const int32_t slots[3] = {t->mk.aic_kernel_id, t->mk.aiv0_kernel_id, t->mk.aiv1_kernel_id};
        std::vector<int> free[2];
        for (int w = 0; w < 3 * clusters_; ++w) {
            const auto wi = static_cast<std::size_t>(w);
            if (idle_[wi] && !mailbox_[wi] && !(reserved_cluster_ >= 0 && w / 3 == reserved_cluster_))
                free[w % 3 == 0 ? 0 : 1].push_back(w);
        }
        int need[2] = {0, 0};
        for (int s = 0; s < 3; ++s)
            if (slots[s] != INVALID_KERNEL_ID) need[s == 0 ? 0 : 1] += t->block_num;
        if (static_cast<int>(free[0].size()) < need[0] || static_cast<int>(free[1].size()) < need[1]) return;
        ready_sync_.pop_front();
        std::size_t next[2] = {0, 0};
        for (int b = 0; b < t->block_num; ++b)
            for (int s = 0; s < 3; ++s) {
                if (slots[s] == INVALID_KERNEL_ID) continue;
                const int k = s == 0 ? 0 : 1;
                const auto w = static_cast<std::size_t>(free[k][next[k]++]);
                idle_[w] = 0;
                mailbox_[w] = Job{t, slots[s], s == 2 ? 1 : 0, b};
                worker_cv_[w]->notify_one();
            }
    }
}

void Executor::wake_locked(CoreType core) {
    if (pure_running_ >= max_running_) return;  // a finishing job wakes one when a slot frees
    for (int w = 0; w < 3 * clusters_; ++w) {
        const auto wi = static_cast<std::size_t>(w);
        if (((w % 3 == 0) != (core == CoreType::AIC)) || !idle_[wi] || wake_pending_[wi] || mailbox_[wi] ||
            reserved_locked(w))
            continue;
        wake_pending_[wi] = 1;
        worker_cv_[wi]->notify_one();
        return;
    }
    // None idle: a busy worker of this type takes the job when it finishes its own.
}

void Executor::wake_all_locked() {
    for (auto& cv : worker_cv_) cv->notify_one();
}

// Whether `worker` is held for the oldest ready gang (it takes no pure job meanwhile).
bool Executor::reserved_locked(int worker) const {
    if (!ready_sync_.empty()) {
        const MixedKernels& mk = ready_sync_.front()->mk;
        const int32_t slots[3] = {mk.aic_kernel_id, mk.aiv0_kernel_id, mk.aiv1_kernel_id};
        if (worker % 3 == 0 ? slots[0] != INVALID_KERNEL_ID
                            : slots[1] != INVALID_KERNEL_ID || slots[2] != INVALID_KERNEL_ID)
            return true;
    }
    if (reserved_cluster_ < 0 || ready_gangs_.empty() || worker / 3 != reserved_cluster_) return false;
    const MixedKernels& mk = ready_gangs_.front().task->mk;
    const int32_t slots[3] = {mk.aic_kernel_id, mk.aiv0_kernel_id, mk.aiv1_kernel_id};
    return slots[worker % 3] != INVALID_KERNEL_ID;
}

void Executor::finish_job_locked(Task* t) {
    if (--t->jobs_left > 0) return;
    t->done = true;
    --unfinished_;
    ++finished_;
    for (Task* s : t->successors)
        if (--s->pending == 0) make_ready_locked(s);
    done_cv_.notify_all();
}

void Executor::worker_loop(int cluster, int role) {
    const int w = cluster * 3 + role;
    const auto wi = static_cast<std::size_t>(w);
    auto& queue = ready_[static_cast<int>(role == 0 ? CoreType::AIC : CoreType::AIV)];
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        idle_[wi] = 1;
        dispatch_gangs_locked();
        dispatch_sync_locked();
        auto pure_ok = [&] { return !queue.empty() && !reserved_locked(w) && pure_running_ < max_running_; };
        // A wake-up that finds nothing to take (another worker took the job first, or the run
        // slots filled meanwhile) leaves this worker waiting, but wakeable again: wake_locked
        // skips a worker whose wake-up is still pending, so the mark goes before each wait.
        while (!(shutdown_ || mailbox_[wi] || pure_ok())) {
            wake_pending_[wi] = 0;
            worker_cv_[wi]->wait(lk);
        }
        wake_pending_[wi] = 0;
        Job job{};
        bool pure = false;
        if (mailbox_[wi]) {  // a gang member (the dispatcher marked this worker busy)
            job = *mailbox_[wi];
            mailbox_[wi].reset();
        } else if (pure_ok()) {
            job = queue.front();
            queue.pop_front();
            idle_[wi] = 0;
            pure = true;
            job.pure = true;
            ++pure_running_;
        } else {
            return;  // shutdown
        }
        const bool skip = !error_.empty();
        ++running_jobs_;
        stats_.max_concurrent_jobs = std::max(stats_.max_concurrent_jobs, running_jobs_);
        lk.unlock();
        bool failed = true;
        if (!skip) {
            const uint64_t t0 = opts_.trace ? now_ns() : 0;
            failed = run_job(job);
            if (opts_.trace)
                trace_[wi].push_back(TraceSlice{job.task, job.kernel_id, job.block_idx, job.sub_block_id, t0, now_ns()});
        } else if (job.gang) {
            job.gang->member_finished(job.member, true);  // wakes members that did start
        }
        lk.lock();
        --running_jobs_;
        if (pure) release_run_slot_locked();
        // Other jobs of the task may wait at a pl.system.syncall this one will never reach.
        if (job.task->jobs_left > 1) {
            const int place = barrier_place(job);
            job.task->ended.emplace_back(place, failed);
            if (!job.task->barriers.empty()) {
                std::vector<BlockBarrier*> bs;
                for (auto& [key, b] : job.task->barriers) bs.push_back(b.get());
                lk.unlock();  // a barrier's report takes mu_
                for (BlockBarrier* b : bs) b->finished(place, failed);
                lk.lock();
            }
        }
        finish_job_locked(job.task);
    }
}

// A free run slot (max_running_) wakes a worker for a waiting pure job.
void Executor::release_run_slot_locked() {
    if (pure_running_-- == max_running_)
        for (CoreType c : {CoreType::AIC, CoreType::AIV})
            if (!ready_[static_cast<int>(c)].empty()) wake_locked(c);
}

bool Executor::run_job(const Job& job) {
    const Task& t = *job.task;
    const KernelInfo& k = kernels_[job.kernel_id];
    int64_t args[64] = {};
    std::size_t n = 0;
    for (const ChipTensor& ct : t.tensors) args[n++] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(&ct));
    for (uint64_t s : t.scalars) args[n++] = static_cast<int64_t>(s);
    LocalContext local{job.block_idx, t.block_num};
    GlobalContext global{};
    global.sub_block_id = job.sub_block_id;
    args[SPMD_LOCAL_CONTEXT_INDEX] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(&local));
    args[SPMD_GLOBAL_CONTEXT_INDEX] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(&global));

    JobContext jc{this, &t, &k, job.kernel_id, job.block_idx, job.sub_block_id, job.pure, {}, {}};
    const int nviews = static_cast<int>(std::min<std::size_t>(t.tensors.size(), CORE_MAX_TENSOR_ARGS));
    for (int i = 0; i < nviews; ++i) {
        const ChipTensor& ct = t.tensors[static_cast<std::size_t>(i)];
        const uint64_t es = std::max<uint64_t>(1, get_element_size(ct.dtype));
        pto::sim::GmView& v = jc.views[i];
        v.buf_lo = ct.buffer.addr;
        v.buf_hi = ct.buffer.addr + ct.buffer.size;
        v.lo = ct.buffer.addr + ct.start_offset * es;
        v.hi = v.lo + (ct.numel() == 0 ? 0 : ct.extent_elem()) * es;
    }
    pto::sim::KernelScope scope(k.name, k.func_id);
    pto::sim::KernelContext& ctx = pto::sim::current_kernel();
    ctx.job = &jc;
    ctx.gang = job.gang;
    ctx.gang_member = job.member;
    ctx.views = jc.views;
    ctx.num_views = nviews;
    ctx.record_gm = opts_.check_races;
    ctx.check_syncs = opts_.check_syncs;
    ctx.describe = &Executor::describe_hook;
    ctx.locate = &Executor::locate_hook;
    ctx.explain_gm = &Executor::explain_gm_hook;
    ctx.on_gm = &Executor::on_gm_hook;
    ctx.report = &Executor::report_hook;
    if (opts_.check_syncs) pto::sim::sync_begin();
    bool failed = false;
    try {
        k.entry(args);
        if (opts_.check_syncs) pto::sim::sync_end();
    } catch (const std::exception& e) {
        failed = true;
        record_error(std::string(e.what()));
    } catch (...) {
        failed = true;
        record_error("kernel '" + std::string(k.name) + "' (func_id " + std::to_string(k.func_id) +
                     "): unknown exception");
    }
    // After the error is recorded: the peers it wakes unwind with errors of their own, which lose.
    if (job.gang) job.gang->member_finished(job.member, failed);
    if (!jc.touches.empty()) {
        std::lock_guard<std::mutex> lk(mu_);
        races_.on_touches(t.seq, jc.touches);
    }
    return failed;
}

void Executor::scope_begin(PTO2ScopeMode mode) {
    std::lock_guard<std::mutex> lk(mu_);
    scopes_.push_back(mode);
}

void Executor::scope_end() {
    std::lock_guard<std::mutex> lk(mu_);
    if (!scopes_.empty()) scopes_.pop_back();
}

namespace {
Region element_region(const ChipTensor& t, uint32_t ndims, const uint32_t idx[]) {
    Region r = Region::of(t);
    r.start = t.compute_flat_offset(idx, ndims);
    for (uint32_t i = 0; i < r.ndims; ++i) r.shapes[i] = 1;
    return r;
}
}  // namespace

void Executor::wait_tasks(std::vector<Task*> waits) {
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [&] {
        return std::all_of(waits.begin(), waits.end(), [](Task* x) { return x->done; });
    });
}

uint64_t Executor::get_tensor_data(const ChipTensor& t, uint32_t ndims, const uint32_t idx[]) {
    const Region r = element_region(t, ndims, idx);
    std::vector<Task*> waits;
    {
        std::lock_guard<std::mutex> lk(mu_);
        for (const Access& a : accesses_[r.buffer])
            if (a.write && !a.task->done && regions_overlap(a.region, r)) waits.push_back(a.task);
        if (Task* owner = find_task_locked(t.owner_task_id); owner && !owner->done) waits.push_back(owner);
    }
    wait_tasks(std::move(waits));
    uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(t.buffer.addr) + r.start * r.elem_size, r.elem_size);
    return v;
}

void Executor::set_tensor_data(const ChipTensor& t, uint32_t ndims, const uint32_t idx[], uint64_t value) {
    const Region r = element_region(t, ndims, idx);
    std::vector<Task*> waits;
    {
        std::lock_guard<std::mutex> lk(mu_);
        for (const Access& a : accesses_[r.buffer])
            if (!a.task->done && regions_overlap(a.region, r)) waits.push_back(a.task);
        if (Task* owner = find_task_locked(t.owner_task_id); owner && !owner->done) waits.push_back(owner);
    }
    wait_tasks(std::move(waits));
    std::memcpy(reinterpret_cast<uint8_t*>(t.buffer.addr) + r.start * r.elem_size, &value, r.elem_size);
}

// ---- crash reporting ----
namespace {
void crash_handler(int sig) {
    const pto::sim::KernelContext& k = pto::sim::current_kernel();
    char buf[512];
    int n;
    if (k.name)
        n = std::snprintf(buf, sizeof buf, "pypto run: fatal signal %d (%s) in kernel '%s' (func_id %d)\n", sig,
                          strsignal(sig), k.name, k.func_id);
    else
        n = std::snprintf(buf, sizeof buf, "pypto run: fatal signal %d (%s) outside any kernel\n", sig, strsignal(sig));
    if (n > 0) {
        ssize_t w = write(2, buf, static_cast<std::size_t>(std::min<int>(n, sizeof buf - 1)));
        (void)w;
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}
}  // namespace

void install_crash_handler() {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, crash_handler);
}

}  // namespace pypto_rt
