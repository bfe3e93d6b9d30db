// pypto CPU runtime: which kernel is running on this thread (set by the executor through
// pto::sim::KernelScope) and the error channel of the tile API, pto::sim::fail(): it names the
// running kernel, calls an optional handler (tests install one that throws), then prints the
// message and aborts. Independent of the SoC capacities, so the executor can include it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace pto::sim {

// ---- which kernel is running on this thread (for error messages) ----
struct KernelContext {
    const char* name = nullptr;
    int func_id = -1;
};
inline KernelContext& current_kernel() {
    thread_local KernelContext ctx;
    return ctx;
}
// RAII: marks `name` / `func_id` as the kernel running on this thread.
class KernelScope {
public:
    KernelScope(const char* name, int func_id) : saved_(current_kernel()) {
        current_kernel().name = name;
        current_kernel().func_id = func_id;
    }
    ~KernelScope() { current_kernel() = saved_; }
    KernelScope(const KernelScope&) = delete;
    KernelScope& operator=(const KernelScope&) = delete;

private:
    KernelContext saved_;
};

inline std::string kernel_label() {
    const KernelContext& k = current_kernel();
    if (!k.name) return "kernel <none>";
    return "kernel '" + std::string(k.name) + "' (func_id " + std::to_string(k.func_id) + ")";
}

// ---- error channel ----
using FailHandler = void (*)(const std::string& message);
inline FailHandler& fail_handler() {
    static FailHandler handler = nullptr;
    return handler;
}
[[noreturn]] inline void fail(const std::string& what) {
    const std::string msg = "pto-sim error in " + kernel_label() + ": " + what;
    if (FailHandler h = fail_handler()) h(msg);  // may throw (tests)
    std::fprintf(stderr, "%s\n", msg.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace pto::sim
