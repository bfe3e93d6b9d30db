// pypto CPU runtime: the --check-races checker. It judges a run by the reference runtime's
// ordering rules (simpler's PTO2 tensormap runtime), not by this executor's stricter ones, so a
// program it passes is race-free on hardware.
//
// The reference orders a task after another only through (facts of simpler's dependency code):
//   * explicit dependencies (set_dependencies), in any scope;
//   * outside a MANUAL scope, for every argument except a runtime-allocated OUTPUT: the task that
//     created the tensor (owner_task_id) — the "creator" edge, NO_DEP arguments included;
//   * outside a MANUAL scope, for an INPUT or INOUT argument (not manual_dep): every earlier task
//     registered as a writer of an overlapping region (RAW through the tensormap; an INOUT whose
//     region covers an entry retires it). Writers are registered by INOUT and OUTPUT_EXISTING
//     arguments (not manual_dep, not in a MANUAL scope).
// So nothing orders a write after a read (WAR), and an OUTPUT_EXISTING write looks up no earlier
// writer (WAW is ordered only when the later writer is INOUT). Regions overlap as the reference's
// tensormap decides: element ranges first, then per dimension when both views share dtype, rank
// and row-major-like strides, conservatively "overlapping" otherwise.
//
// What tasks actually touch comes from their kernels: every TLOAD / TSTORE / scalar GM read of a
// kernel is recorded (pto_sim_check.hpp), with its argument and kernel line. After the run, two
// accesses of different tasks to overlapping bytes of one buffer, at least one a write, whose
// tasks the rules above leave unordered (no path in the graph of those edges) are a race.
// Cost: a bitset of ancestors per task (N^2/2 bits for N tasks) and one record per access.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "pypto_rt/region.h"
#include "tensor.h"

namespace pypto_rt {

// One GM access of a kernel: which task argument it went through, the elements it touched (a
// region of the argument's buffer), read or write, the kernel and its C++ line.
struct GmTouch {
    int arg = -1;
    Region region;
    bool write = false;
    int kernel_id = -1;
    const char* instr = nullptr;  // "TLOAD", "TSTORE", ...
    uint32_t line = 0;
};

struct RaceReport {
    uint64_t first_task, second_task;  // submission order: first < second
    GmTouch first, second;
    uint64_t lo, hi;                   // overlapping byte range (bounding), absolute addresses
};

class RaceChecker {
public:
    // Called for every submission, in submission order (task seq = 0, 1, ...). `tags[i]` is the
    // argument type of `tensors[i]`; `deps` the explicit dependencies (task seqs); `owner_seq[i]`
    // the seq of tensor i's creator (or -1).
    void on_submit(uint64_t seq, const std::vector<ChipTensor>& tensors, const std::vector<TensorArgType>& tags,
                   const std::vector<int64_t>& owner_seq, const std::vector<uint64_t>& deps, bool manual_scope);
    // A kernel's accesses, for task `seq` (any order, any time before find_races).
    void on_touches(uint64_t seq, const std::vector<GmTouch>& touches);
    // True when the rules order task `earlier` before task `later`.
    bool ordered(uint64_t earlier, uint64_t later) const;
    // Every unordered conflicting pair of tasks (one report per pair, at most `limit`).
    std::vector<RaceReport> find_races(std::size_t limit) const;
    // The argument types of task `seq` (for messages).
    const std::vector<TensorArgType>& tags(uint64_t seq) const { return tasks_[seq].tags; }

private:
    struct Writer {
        ChipTensor view;
        uint64_t task;
        bool live;
    };
    struct TaskRec {
        std::vector<uint64_t> ancestors;  // bitset over earlier task seqs
        std::vector<TensorArgType> tags;
        std::vector<GmTouch> touches;
    };
    std::deque<TaskRec> tasks_;
    std::unordered_map<uint64_t, std::vector<Writer>> writers_;  // the reference's tensormap, by buffer.addr
};

// The reference tensormap's overlap verdict for a lookup of `input` against a registered `entry`
// (same buffer): NONE, COVERED (input contains entry per dimension) or OTHER (overlap).
enum class RefOverlap { NONE, COVERED, OTHER };
RefOverlap reference_overlap(const ChipTensor& input, const ChipTensor& entry);

}  // namespace pypto_rt
