// pypto CPU runtime: the task executor. It stands for C clusters x (1 AIC + 2 AIV) cores, one
// worker thread per core (each with its own simulated on-chip buffers); workers block on a
// condition variable when idle. The orchestration function runs on the calling thread and
// submits tasks through the PTO2 API (pto_orchestration_api.h), which forwards to the executor
// that is current on that thread.
//
// Ordering: a task runs when every earlier task it depends on has finished. Dependencies are
// derived per tensor argument from its tag and region (pypto_rt/region.h), keyed by buffer.addr:
//   INPUT reads, OUTPUT_EXISTING writes, INOUT reads+writes, NO_DEP is ignored, OUTPUT
//   (runtime-allocated) writes a fresh buffer; a reader waits for earlier overlapping writers
//   (RAW); a writer waits for earlier overlapping writers (WAW) and readers (WAR); a task also
//   waits for the creator (owner_task_id) of every tensor it touches and for its explicit
//   set_dependencies ids. Inside a MANUAL scope only explicit dependencies apply (accesses are
//   still recorded for later tasks). Source order alone orders nothing.
// NOTE: the reference runtime is less strict (OUTPUT_EXISTING only waits for the creator, and
// WAR is not tracked); a program correct here may still need INOUT on the device.
//
// A task's kernels: MixedKernels {aic, aiv0, aiv1}; each valid slot runs once per SPMD block
// (launch_spec block_num). A pure task (only AIC or only AIV slots) runs each (slot, block) as an
// independent job on any idle worker of its core type. A mixed task (a valid aic slot and at least
// one valid aiv slot) is gang-scheduled: each block's AIC and AIV kernels start together on one
// cluster — its AIC worker, aiv0 on AIV worker 0 (sub_block_id 0), aiv1 on AIV worker 1 (1) —
// and share that block's cross-core FIFOs (TPUSH / TPOP / TFREE, pto/pto_ops_fifo.hpp; the gang:
// runtime/src/executor_gang.h). A gang is dispatched only when all the cores it needs on one
// cluster are idle, so a gang never waits for a core while holding another; the oldest ready gang
// reserves a cluster (whose needed workers then take no pure jobs) so pure tasks cannot starve it.
// A FIFO deadlock, or tiles left in a pipe, stops the run with an error naming the kernels.
// A pure task launched with sync_start starts all its jobs at once (their workers idle together,
// held from pure jobs meanwhile), so a hard pl.system.syncall among its blocks can complete
// (runtime/src/executor_syncall.h); one with more jobs than this run's cores of the type runs in
// waves (a barrier among them is reported as one that cannot complete).
// Runtime-allocated tensors are zero-filled (or set to their initial value) and live until the
// executor is destroyed.
//
// Checkers. Every dispatch tells the tile API the GM extents of the task's tensor arguments, so
// each TLOAD / TSTORE / scalar GM read outside them stops the run naming the task, the kernel, the
// source line and the extents (always on). ExecutorOptions::check_races records what kernels
// touch and judges the run by the reference runtime's ordering rules (pypto_rt/race_checker.h);
// check_syncs models the pipes of every core (pto/pto_sim_check.hpp). Their findings are
// collected (deduplicated, sorted) in findings(); the run itself completes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <pto/pto_ops_syncall.hpp>
#include <pto/pto_sim_check.hpp>

#include "pto_orchestration_api.h"
#include "pypto_rt/program.h"
#include "pypto_rt/race_checker.h"
#include "pypto_rt/region.h"

namespace pypto_rt {

class Gang;

struct ExecutorOptions {
    int clusters = 2;
    bool check_races = false;  // report tasks the reference runtime leaves unordered (race_checker.h)
    bool check_syncs = false;  // report unsynchronised pipe dependencies in kernels (pto_sim_check.hpp)
    // The orchestration's generated file and its C++ -> DSL line map (the program table's), to
    // name the source line of each task's submit.
    const char* orchestration_cpp = nullptr;
    const SourceLine* orchestration_lines = nullptr;
    int num_orchestration_lines = 0;
    // A mixed task's kernel blocked in TPUSH / TPOP with no progress on its gang's pipes for this
    // long stops the run (the fallback; deadlocks the gang's states show are reported at once).
    int fifo_timeout_ms = 10000;
    // At most this many pure (non-gang) kernels run at the same time (0: the machine's hardware
    // threads, at least 2). The simulated cores stay clusters x 3 worker threads -- each owns its
    // on-chip buffers, and a gang's members must run together -- but a machine with fewer cores
    // than that no longer time-slices kernels against each other. Gang members are not limited.
    int max_running = 0;
    // Record what write_trace() writes: each kernel run's worker and time, each task's arguments
    // and dependency edges with their reasons.
    bool trace = false;
};

struct RunStats {
    uint64_t tasks = 0;          // submitted tasks (incl. dummy tasks)
    uint64_t jobs = 0;           // kernel invocations
    uint64_t gangs = 0;          // mixed-task blocks dispatched as gangs (their kernels count as jobs)
    int max_concurrent_jobs = 0; // peak number of kernels running at the same time
    double millis = 0;
};

class Executor {
public:
    Executor(std::vector<KernelInfo> kernels, ExecutorOptions opts = {});
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // Make this executor current on the calling thread, call `orchestration`, wait for every
    // submitted task. Returns false (and fills error()) if orchestration or a kernel reported an
    // error (an exception thrown by a kernel, e.g. from a test's pto::sim fail handler).
    template <typename F>
    bool run(F&& orchestration) {
        begin_run();
        try {
            orchestration();
        } catch (const std::exception& e) {
            record_error(std::string("orchestration: ") + e.what());
        }
        return end_run();
    }

    const std::string& error() const { return error_; }
    // What --check-races / --check-syncs found (one message each, sorted); empty when clean.
    const std::vector<std::string>& findings() const { return findings_; }
    const RunStats& stats() const { return stats_; }
    int clusters() const { return clusters_; }
    // While a run goes on (any thread): tasks finished and tasks submitted so far.
    std::pair<uint64_t, uint64_t> progress() const { return {finished_.load(), submitted_.load()}; }
    // After a run with ExecutorOptions::trace: the executed task graph as a Chrome trace event
    // file (Perfetto, chrome://tracing) at `path` (runtime/src/trace.cpp): one track per simulated
    // core, one slice per kernel run, a flow arrow per dependency edge named by its reason.
    // A path ending in .svg gets a picture instead: a row per core, a box per kernel run, an arrow per
    // edge. False (and `err`) when it cannot be written.
    bool write_trace(const std::string& path, const char* program_name, std::string* err) const;

    // ---- called through the PTO2 API on the orchestration thread ----
    // `line`: the orchestration C++ line of the rt_submit_* call (0: unknown).
    TaskOutputTensors submit(const MixedKernels& mk, const CoreTaskArgs& args, bool dummy, uint32_t line = 0);
    TaskOutputTensors alloc(const CoreTaskArgs& args);
    void scope_begin(PTO2ScopeMode mode);
    void scope_end();
    uint64_t get_tensor_data(const ChipTensor& t, uint32_t ndims, const uint32_t idx[]);
    void set_tensor_data(const ChipTensor& t, uint32_t ndims, const uint32_t idx[], uint64_t value);
    void fail(const std::string& msg);  // orchestration-side error: record and abort the run

    static Executor* current();  // executor running an orchestration on this thread
    // The tile API's SYNCALL (pto/pto_ops_syncall.hpp) on the calling kernel's thread: waits for the
    // launch's other participants (runtime/src/executor_syncall.cpp).
    static void syncall_hook(const pto::sim::SyncAllCall& c);

private:
    struct Task;
    struct Job {
        Task* task;
        int kernel_id;
        int sub_block_id;
        int block_idx;
        Gang* gang = nullptr;  // mixed task: the block's gang, and this kernel's place in it
        int member = -1;       //   (0 AIC, 1 AIV lane 0, 2 AIV lane 1)
        bool pure = false;     // taken from a ready_ queue (holds one of max_running_ run slots)
    };
    struct ReadyGang {
        Task* task;
        int block;
    };
    struct Access {
        Task* task;
        Region region;
        bool write;
    };
    struct JobContext;
    // Why a task waits for another (a bit set: one edge may have several reasons).
    enum DepReason : uint8_t { kRaw = 1, kWar = 2, kWaw = 4, kCreator = 8, kExplicit = 16 };
    struct TraceSlice {  // one kernel run, on worker `worker`
        const Task* task;
        int kernel_id;
        int block;
        int sub_block;
        uint64_t start_ns, end_ns;
    };

    void begin_run();
    bool end_run();
    void record_error(const std::string& msg);
    void worker_loop(int cluster, int role);  // role: 0 AIC, 1 / 2 AIV worker 0 / 1 of the cluster
    void dispatch_gangs_locked();
    void dispatch_sync_locked();
    void syncall_arrive(JobContext& jc, const pto::sim::SyncAllCall& c);
    // A job's place among its task's barrier participants: block * 3 + slot (0 AIC, 1 / 2 AIV lane).
    int barrier_place(const Job& job) const;
    void release_run_slot_locked();
    bool reserved_locked(int worker) const;
    bool run_job(const Job& job);  // true: the kernel failed
    void finish_job_locked(Task* t);
    void make_ready_locked(Task* t);
    void add_dep_locked(Task* t, Task* producer, uint8_t why);
    Task* find_task_locked(PTO2TaskId id);
    void record_access_locked(Task* t, const ChipTensor& tensor, bool read, bool write, bool lookup);
    ChipTensor& allocate_locked(const TensorCreateInfo& ci, PTO2TaskId owner);
    void wait_tasks(std::vector<Task*> tasks);
    void add_finding(const std::string& msg);
    void find_races();
    std::string task_label(const Task& t) const;
    std::string kernel_where(const KernelInfo& k, uint32_t cpp_line) const;
    std::string trace_json(const char* program_name) const;  // runtime/src/trace.cpp
    std::string trace_svg(const char* program_name) const;
    // Per task (by seq): its first and last kernel run and their workers, where arrows start and end.
    struct TaskEnds {
        const TraceSlice* first = nullptr;
        const TraceSlice* last = nullptr;
        int first_worker = 0, last_worker = 0;
    };
    std::map<uint64_t, TaskEnds> task_ends() const;
    std::string arg_label(const KernelInfo& k, int arg) const;
    // The tile API's hooks for one dispatch (pto::sim::KernelContext).
    static std::string describe_hook(const pto::sim::KernelContext& k);
    static std::string locate_hook(const pto::sim::KernelContext& k, uint32_t cpp_line);
    static std::string explain_gm_hook(const pto::sim::KernelContext& k, const pto::sim::GmAccess& a);
    static void on_gm_hook(const pto::sim::KernelContext& k, const pto::sim::GmAccess& a, int view);
    static void report_hook(const pto::sim::KernelContext& k, const std::string& msg);

    std::vector<KernelInfo> kernels_;
    int clusters_;
    ExecutorOptions opts_;
    std::vector<std::thread> workers_;

    std::mutex mu_;
    // One condition variable per worker, so that a ready job wakes one worker of its core type
    // (not every thread: with 3 x clusters workers on a few cores, waking all of them for every
    // task cost more than the task). wake_pending_: notified, not yet running (not chosen twice).
    std::vector<std::unique_ptr<std::condition_variable>> worker_cv_;
    std::vector<char> wake_pending_;
    void wake_locked(CoreType core);  // wake one idle worker that may take a `core` job
    void wake_all_locked();
    std::condition_variable done_cv_;  // orchestration thread: a task finished
    std::deque<Job> ready_[2];         // pure-task jobs, indexed by CoreType
    std::deque<ReadyGang> ready_gangs_;  // mixed-task blocks waiting for a cluster
    std::deque<Task*> ready_sync_;       // sync_start pure tasks waiting for all their cores at once
    std::vector<std::optional<Job>> mailbox_;  // per worker (cluster * 3 + role): a gang member
    std::vector<char> idle_;                    // per worker
    int reserved_cluster_ = -1;                 // held for ready_gangs_.front()
    bool shutdown_ = false;

    std::deque<std::unique_ptr<Task>> tasks_;
    uint64_t unfinished_ = 0;
    int running_jobs_ = 0;
    int pure_running_ = 0;  // of those, pure jobs (limited to max_running_)
    int max_running_ = 2;
    std::unordered_map<uint64_t, std::vector<Access>> accesses_;  // by buffer.addr
    std::deque<ChipTensor> owned_tensors_;
    std::vector<std::unique_ptr<uint8_t[]>> owned_buffers_;
    std::vector<PTO2ScopeMode> scopes_;
    std::string error_;
    RaceChecker races_;                        // --check-races
    std::vector<std::string> findings_;        // deduplicated, in arrival order until end_run sorts
    std::mutex findings_mu_;
    RunStats stats_;
    std::atomic<uint64_t> submitted_{0}, finished_{0};  // progress()
    uint64_t run_start_ns_ = 0;
    std::vector<std::vector<TraceSlice>> trace_;  // --trace: per worker, in the order it ran them
    // --trace: dependency-only tasks (rt_submit_dummy_task), each an instant when its producers are
    // done, on a track after the cores' (kernel_id -1), so edges through them can be drawn.
    std::vector<TraceSlice> dummy_trace_;
    std::size_t trace_tracks() const { return trace_.size() + (dummy_trace_.empty() ? 0 : 1); }
    const std::vector<TraceSlice>& trace_track(std::size_t w) const { return w < trace_.size() ? trace_[w] : dummy_trace_; }
    std::string track_name(std::size_t w) const;
};

// Print the running kernel's name and func_id on SIGSEGV / SIGBUS / SIGFPE / SIGILL / SIGABRT.
void install_crash_handler();

}  // namespace pypto_rt
