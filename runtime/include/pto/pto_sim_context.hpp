// pypto CPU runtime: what the executor tells the tile API about the kernel running on this thread
// (pto::sim::KernelContext, set through pto::sim::KernelScope), and the error channel of the tile
// API, pto::sim::fail(): it names the running kernel — with the executor's description of the
// task, the source line of the failing instruction and so on, when the executor supplied one —,
// calls an optional handler (tests and bin/run install one that throws), then prints the message
// and aborts. Independent of the SoC capacities, so the executor can include it.
//
// The context also carries the checkers' state for one kernel dispatch (pto_sim_check.hpp): the
// GM extent of every tensor argument (the always-on bounds check of TLOAD / TSTORE / scalar GM
// reads), and whether --check-races (record GM accesses) and --check-syncs (model the pipes) are
// on, and for a mixed task the gang whose cross-core FIFOs TPUSH / TPOP use (pto_sim_fifo.hpp).
// Outside an executor dispatch every pointer is null and the checks do nothing.
#pragma once

#include <cstdint>
#include <string>

namespace pto::sim {

// GM byte ranges of one tensor argument of the running kernel: its view's extent (ChipTensor
// start_offset .. start_offset + extent, in bytes) and the whole buffer behind it.
struct GmView {
    uint64_t lo = 0, hi = 0;
    uint64_t buf_lo = 0, buf_hi = 0;
};

// One GM access of an instruction, as a GlobalTensor describes it: the elements
// addr + sum_k i_k * stride[k] * elem_size for i_k < shape[k] (strides in elements, >= 0).
struct GmAccess {
    uint64_t addr = 0;
    uint32_t elem_size = 1;
    int64_t shape[5] = {1, 1, 1, 1, 1};
    int64_t stride[5] = {0, 0, 0, 0, 0};
    bool write = false;

    bool empty() const {
        for (int64_t d : shape)
            if (d <= 0) return true;
        return false;
    }
    uint64_t lo() const { return addr; }
    // One past the last byte touched (the bounding range; a strided view touches a subset).
    uint64_t hi() const {
        if (empty()) return addr;
        uint64_t last = 0;
        for (int k = 0; k < 5; ++k) last += static_cast<uint64_t>(shape[k] - 1) * static_cast<uint64_t>(stride[k]);
        return addr + (last + 1) * elem_size;
    }
};

struct KernelContext {
    const char* name = nullptr;
    int func_id = -1;

    // ---- set by the executor for one dispatch (null / false outside one) ----
    void* job = nullptr;                       // the executor's record of this dispatch
    void* gang = nullptr;                      // the mixed task's gang (SPMD block) this kernel is
    int gang_member = -1;                      //   part of, and its place: 0 AIC, 1 / 2 AIV lane 0 / 1
    const GmView* views = nullptr;             // one per tensor argument, in args[] order
    int num_views = 0;
    bool record_gm = false;                    // --check-races: report GM accesses through on_gm
    bool check_syncs = false;                  // --check-syncs: model the pipes (pto_sim_check.hpp)
    // "task 3 ..., kernel 'k' ..., at <source line of the current instruction>"
    std::string (*describe)(const KernelContext&) = nullptr;
    // The source line behind a line of the kernel's generated C++ ("prog.py:12 (kernels/aiv/k.cpp:40)").
    std::string (*locate)(const KernelContext&, uint32_t cpp_line) = nullptr;
    // Why an access lies outside every tensor argument (names the nearest argument and its extents).
    std::string (*explain_gm)(const KernelContext&, const GmAccess&) = nullptr;
    void (*on_gm)(const KernelContext&, const GmAccess&, int view) = nullptr;
    void (*report)(const KernelContext&, const std::string&) = nullptr;  // a --check-syncs finding

    // ---- the instruction running (set by the instruction wrappers, pto_instr_sites.hpp) ----
    const char* instr = nullptr;
    uint32_t line = 0;     // its line in the kernel's C++ source (0: unknown)
    bool wrapped = false;  // inside a wrapper: the instruction's own hooks stay quiet
};

// ---- which kernel is running on this thread (for error messages) ----
inline KernelContext& current_kernel() {
    thread_local KernelContext ctx;
    return ctx;
}
// RAII: marks `name` / `func_id` as the kernel running on this thread (everything else cleared;
// the executor fills in the rest); restores the previous context on exit.
class KernelScope {
public:
    KernelScope(const char* name, int func_id) : saved_(current_kernel()) {
        current_kernel() = KernelContext{};
        current_kernel().name = name;
        current_kernel().func_id = func_id;
    }
    ~KernelScope() { current_kernel() = saved_; }
    KernelScope(const KernelScope&) = delete;
    KernelScope& operator=(const KernelScope&) = delete;

private:
    KernelContext saved_;
};

// "kernel 'k' (func_id 3)", or what the executor's describe hook says (the task, the source line
// of the current instruction, ...).
std::string kernel_label();

// ---- error channel ----
using FailHandler = void (*)(const std::string& message);
FailHandler& fail_handler();
// Names the running kernel, calls the handler (which may throw: tests, bin/run), else prints the
// message and aborts. Out of line (runtime/src/sim_checks.cpp), as is kernel_label.
[[noreturn]] void fail(const std::string& what);

}  // namespace pto::sim
