// pypto CPU runtime: the PTO2 orchestration API the generated orchestration .cpp is written
// against (names and signatures as in simpler's pto_orchestration_api.h / pto_types.h):
// CoreTaskArgs / ChipTaskArgs, TensorCreateInfo, TaskOutputTensors, MixedKernels,
// rt_submit_{task,aic_task,aiv_task,dummy_task}, alloc_tensors, PTO2_SCOPE, get/set_tensor_data,
// PTO2OrchestrationConfig. The rt_* functions forward to the executor that is running the
// orchestration on the calling thread (runtime/src/orchestration_api.cpp).
//
// The rt_submit_* functions take a defaulted `__builtin_LINE()`: the C++ line of the call, which
// the program table's orchestration line map turns into the DSL line of the submit for messages
// (generated code calls them with the reference's arguments).
//
// Like the reference, CoreTaskArgs stores POINTERS to the ChipTensors / TensorCreateInfos passed
// to add_*; they must stay alive until the submit call (which copies them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "tensor.h"

inline constexpr int CORE_MAX_TENSOR_ARGS = 32;
inline constexpr int CORE_MAX_SCALAR_ARGS = 16;
inline constexpr int CHIP_MAX_TENSOR_ARGS = 256;
inline constexpr int CHIP_MAX_SCALAR_ARGS = 128;
inline constexpr int MAX_TENSOR_ARGS = CORE_MAX_TENSOR_ARGS;
inline constexpr int MAX_SCALAR_ARGS = CORE_MAX_SCALAR_ARGS;
inline constexpr int32_t INVALID_KERNEL_ID = -1;

enum class PTO2ScopeMode : uint8_t { AUTO = 0, MANUAL = 1 };

struct MixedKernels {
    int32_t aic_kernel_id{INVALID_KERNEL_ID};
    int32_t aiv0_kernel_id{INVALID_KERNEL_ID};
    int32_t aiv1_kernel_id{INVALID_KERNEL_ID};
};

class PTO2LaunchSpec {
public:
    constexpr PTO2LaunchSpec() = default;
    int16_t block_num() const { return block_num_; }
    void set_block_num(int16_t n) { block_num_ = n; }
    // simpler's a5 (950) spelling of the same count
    int16_t core_num() const { return block_num_; }
    void set_core_num(int16_t n) { block_num_ = n; }
    bool require_sync_start() const { return require_sync_start_; }
    void set_require_sync_start(bool v) { require_sync_start_ = v; }

private:
    int16_t block_num_{1};
    bool require_sync_start_{false};
};

// Shape + dtype of an output the runtime allocates at submit (zero-filled unless an initial value
// is set).
class TensorCreateInfo {
public:
    TensorCreateInfo() = default;
    TensorCreateInfo(const uint32_t shapes_in[], uint32_t ndims_in, DataType dtype_in = DataType::FLOAT32,
                     bool manual_dep_in = false)
        : ndims(ndims_in), dtype(dtype_in), manual_dep(manual_dep_in) {
        for (uint32_t i = 0; i < ndims_in && i < static_cast<uint32_t>(MAX_TENSOR_DIMS); ++i) shapes[i] = shapes_in[i];
    }
    template <typename T = uint64_t>
    void set_initial_value(T value) {
        has_initial_value = true;
        initial_value = to_u64(value);
    }
    uint64_t buffer_size_bytes() const {
        uint64_t n = 1;
        for (uint32_t i = 0; i < ndims; ++i) n *= shapes[i];
        return n * get_element_size(dtype);
    }

    uint64_t initial_value{0};
    bool has_initial_value{false};
    uint32_t ndims{0};
    DataType dtype{DataType::FLOAT32};
    bool manual_dep{false};
    uint32_t shapes[MAX_TENSOR_DIMS]{};
};

// One tensor slot of a task: a ChipTensor, or (OUTPUT) a TensorCreateInfo.
class TensorRef {
public:
    TensorRef() = default;
    TensorRef(const TensorRef&) = delete;
    TensorRef& operator=(const TensorRef&) = delete;
    TensorRef& operator=(const ChipTensor* p) {
        ptr_ = p;
        ci_ = nullptr;
        return *this;
    }
    TensorRef& operator=(const TensorCreateInfo* ci) {
        ci_ = ci;
        ptr_ = nullptr;
        return *this;
    }
    const ChipTensor& ref() const { return *ptr_; }
    const TensorCreateInfo& create_info() const { return *ci_; }
    bool is_create_info() const { return ci_ != nullptr; }

private:
    const ChipTensor* ptr_{nullptr};
    const TensorCreateInfo* ci_{nullptr};
};

template <std::size_t MaxT, std::size_t MaxS>
struct Arg {
    Arg() = default;
    Arg(const Arg&) = delete;
    Arg& operator=(const Arg&) = delete;

    bool has_error{false};
    const char* error_msg{nullptr};
    PTO2LaunchSpec launch_spec;

    template <typename... Ts>
    void add_input(Ts&&... ts) {
        add_tensors<false>(TensorArgType::INPUT, ts...);
        static_assert((std::is_lvalue_reference_v<Ts> && ...), "add_input: pass named tensors (stored by pointer)");
    }
    template <typename... Ts>
    void add_output(Ts&&... ts) {
        static_assert((std::is_lvalue_reference_v<Ts> && ...), "add_output: pass named tensors (stored by pointer)");
        if constexpr ((std::is_same_v<std::decay_t<Ts>, TensorCreateInfo> && ...))
            add_tensors<true>(TensorArgType::OUTPUT, ts...);
        else
            add_tensors<false>(TensorArgType::OUTPUT_EXISTING, ts...);
    }
    template <typename... Ts>
    void add_inout(Ts&&... ts) {
        static_assert((std::is_lvalue_reference_v<Ts> && ...), "add_inout: pass named tensors (stored by pointer)");
        add_tensors<false>(TensorArgType::INOUT, ts...);
    }
    template <typename... Ts>
    void add_no_dep(Ts&&... ts) {
        static_assert((std::is_lvalue_reference_v<Ts> && ...), "add_no_dep: pass named tensors (stored by pointer)");
        add_tensors<false>(TensorArgType::NO_DEP, ts...);
    }

    template <typename... Ts>
    void add_scalar(Ts&&... vs) {
        static_assert(sizeof...(Ts) >= 1, "add_scalar: at least one argument required");
        static_assert(((std::is_arithmetic_v<std::decay_t<Ts>> || std::is_enum_v<std::decay_t<Ts>>) && ...),
                      "add_scalar: all types must be arithmetic or enum");
        if (scalar_count_ + sizeof...(Ts) > MaxS) {
            set_error("Too many scalar args");
            return;
        }
        ((scalars_[scalar_count_++] = to_u64(vs)), ...);
    }
    void add_scalars(const uint64_t* values, int count) {
        if (count < 0 || scalar_count_ + static_cast<std::size_t>(count) > MaxS) {
            set_error("Too many scalar args");
            return;
        }
        for (int i = 0; i < count; ++i) scalars_[scalar_count_++] = values[i];
    }

    // Explicit dependencies (array must outlive the submit). count == 0 clears.
    void set_dependencies(const PTO2TaskId* deps, uint32_t count) {
        if (count == 0) {
            explicit_deps_ = nullptr;
            explicit_dep_count_ = 0;
            return;
        }
        if (deps == nullptr) {
            set_error("set_dependencies: deps must not be null when count > 0");
            return;
        }
        if (explicit_deps_ != nullptr) {
            set_error("set_dependencies: may be called at most once per Arg");
            return;
        }
        explicit_deps_ = deps;
        explicit_dep_count_ = count;
    }
    uint32_t explicit_dep_count() const { return explicit_dep_count_; }
    PTO2TaskId explicit_dep(uint32_t i) const { return explicit_deps_[i]; }

    void set_allow_early_resolve(bool v = true) { allow_early_resolve_ = v; }
    bool allow_early_resolve() const { return allow_early_resolve_; }

    const TensorRef& tensor(int32_t i) const { return tensors_[i]; }
    uint64_t scalar(int32_t i) const { return scalars_[i]; }
    TensorArgType tag(int32_t i) const { return tags_[i]; }
    int32_t tensor_count() const { return static_cast<int32_t>(tensor_count_); }
    int32_t scalar_count() const { return static_cast<int32_t>(scalar_count_); }

    void set_error(const char* msg) {
        if (!has_error) {
            has_error = true;
            error_msg = msg;
        }
    }
    void reset() {
        tensor_count_ = 0;
        scalar_count_ = 0;
        explicit_deps_ = nullptr;
        explicit_dep_count_ = 0;
        allow_early_resolve_ = false;
        has_error = false;
        error_msg = nullptr;
        launch_spec = PTO2LaunchSpec{};
    }

private:
    template <bool kCreateInfo, typename... Ts>
    void add_tensors(TensorArgType tag, Ts&... ts) {
        if (scalar_count_ > 0) {
            set_error("tensor args must be added before scalar args");
            return;
        }
        if (tensor_count_ + sizeof...(Ts) > MaxT) {
            set_error("Too many tensor args");
            return;
        }
        ((tensors_[tensor_count_] = &ts, tags_[tensor_count_] = tag, ++tensor_count_), ...);
    }

    TensorRef tensors_[MaxT];
    TensorArgType tags_[MaxT]{};
    uint64_t scalars_[MaxS]{};
    std::size_t tensor_count_{0};
    std::size_t scalar_count_{0};
    const PTO2TaskId* explicit_deps_{nullptr};
    uint32_t explicit_dep_count_{0};
    bool allow_early_resolve_{false};
};

using CoreTaskArgs = Arg<CORE_MAX_TENSOR_ARGS, CORE_MAX_SCALAR_ARGS>;
struct ChipTaskArgs : Arg<CHIP_MAX_TENSOR_ARGS, CHIP_MAX_SCALAR_ARGS> {};

// What a submit returns: the runtime-allocated OUTPUT tensors (in add_output order) and the task id.
class TaskOutputTensors {
public:
    TaskOutputTensors() = default;
    bool empty() const { return count_ == 0; }
    uint32_t size() const { return count_; }
    const ChipTensor& get_ref(uint32_t index) const& {
        if (index >= count_) {
            std::fprintf(stderr, "TaskOutputTensors::get_ref(%u): only %u outputs\n", index, count_);
            std::abort();
        }
        return *tensors_[index];
    }
    const ChipTensor& get_ref(uint32_t index) const&& = delete;
    void materialize_output(const ChipTensor& t) { tensors_[count_++] = &t; }
    void set_task_id(PTO2TaskId id) { task_id_ = id; }
    PTO2TaskId task_id() const { return task_id_; }

private:
    PTO2TaskId task_id_{PTO2TaskId::invalid()};
    uint32_t count_{0};
    const ChipTensor* tensors_[MAX_TENSOR_ARGS]{};
};

#ifndef PTO2_ORCHESTRATION_CONFIG_DEFINED
#define PTO2_ORCHESTRATION_CONFIG_DEFINED
struct PTO2OrchestrationConfig {
    int expected_arg_count;
};
#endif

// ---- runtime entry points (implemented by the CPU executor) ----
TaskOutputTensors pypto_rt_submit(const MixedKernels& mixed_kernels, const CoreTaskArgs& args, uint32_t line);
TaskOutputTensors pypto_rt_submit_dummy(const CoreTaskArgs& args, uint32_t line);
TaskOutputTensors pypto_rt_alloc(const CoreTaskArgs& args);
void pypto_rt_scope_begin(PTO2ScopeMode mode);
void pypto_rt_scope_end();
uint64_t pypto_rt_get_tensor_data(const ChipTensor& tensor, uint32_t ndims, const uint32_t indices[]);
void pypto_rt_set_tensor_data(const ChipTensor& tensor, uint32_t ndims, const uint32_t indices[], uint64_t value);
int32_t pypto_rt_cluster_count();
int32_t pypto_rt_aiv_count();

static inline TaskOutputTensors rt_submit_task(const MixedKernels& mixed_kernels, const CoreTaskArgs& args,
                                               uint32_t line = __builtin_LINE()) {
    return pypto_rt_submit(mixed_kernels, args, line);
}
static inline TaskOutputTensors rt_submit_aic_task(int32_t kernel_id, const CoreTaskArgs& args,
                                                   uint32_t line = __builtin_LINE()) {
    MixedKernels mk;
    mk.aic_kernel_id = kernel_id;
    return pypto_rt_submit(mk, args, line);
}
static inline TaskOutputTensors rt_submit_aiv_task(int32_t kernel_id, const CoreTaskArgs& args,
                                                   uint32_t line = __builtin_LINE()) {
    MixedKernels mk;
    mk.aiv0_kernel_id = kernel_id;
    return pypto_rt_submit(mk, args, line);
}
static inline TaskOutputTensors rt_submit_dummy_task(const CoreTaskArgs& args,
                                                     uint32_t line = __builtin_LINE()) {
    return pypto_rt_submit_dummy(args, line);
}

static inline TaskOutputTensors alloc_tensors(const CoreTaskArgs& args) { return pypto_rt_alloc(args); }
static inline TaskOutputTensors alloc_tensors(const TensorCreateInfo create_infos[], uint32_t count) {
    CoreTaskArgs args;
    for (uint32_t i = 0; i < count; ++i) args.add_output(create_infos[i]);
    return pypto_rt_alloc(args);
}
template <typename... CIs>
static inline TaskOutputTensors alloc_tensors(const CIs&... cis) {
    static_assert(sizeof...(cis) > 0, "alloc_tensors requires at least one TensorCreateInfo");
    static_assert((std::is_same_v<std::decay_t<CIs>, TensorCreateInfo> && ...),
                  "alloc_tensors only accepts TensorCreateInfo arguments");
    CoreTaskArgs args;
    (args.add_output(cis), ...);
    return pypto_rt_alloc(args);
}

static inline void rt_scope_begin(PTO2ScopeMode mode = PTO2ScopeMode::AUTO) { pypto_rt_scope_begin(mode); }
static inline void rt_scope_end() { pypto_rt_scope_end(); }
static inline int32_t rt_available_cluster_count() { return pypto_rt_cluster_count(); }
static inline int32_t rt_available_aiv_count() { return pypto_rt_aiv_count(); }

// Scalar element access from orchestration code (waits for the producers of the element).
template <typename T = uint64_t>
static inline T get_tensor_data(const ChipTensor& tensor, uint32_t ndims, const uint32_t indices[]) {
    return from_u64<T>(pypto_rt_get_tensor_data(tensor, ndims, indices));
}
template <typename T = uint64_t>
static inline void set_tensor_data(const ChipTensor& tensor, uint32_t ndims, const uint32_t indices[], T value) {
    pypto_rt_set_tensor_data(tensor, ndims, indices, to_u64(value));
}

class PTO2ScopeGuard {
public:
    explicit PTO2ScopeGuard(PTO2ScopeMode mode = PTO2ScopeMode::AUTO) { pypto_rt_scope_begin(mode); }
    ~PTO2ScopeGuard() { pypto_rt_scope_end(); }
    PTO2ScopeGuard(const PTO2ScopeGuard&) = delete;
    PTO2ScopeGuard& operator=(const PTO2ScopeGuard&) = delete;
};

#define _PTO2_CONCATENATE_IMPL(x, y) x##y
#define _PTO2_CONCATENATE(x, y) _PTO2_CONCATENATE_IMPL(x, y)
#define PTO2_SCOPE_GUARD(...) \
    [[maybe_unused]] PTO2ScopeGuard _PTO2_CONCATENATE(scope_guard_, __COUNTER__) { __VA_ARGS__ }
// Usage: PTO2_SCOPE() { ... }   PTO2_SCOPE(PTO2ScopeMode::MANUAL) { ... }
#define PTO2_SCOPE(...) \
    if (PTO2ScopeGuard _PTO2_CONCATENATE(scope_guard_, __COUNTER__){__VA_ARGS__}; true)

#define LOG_ERROR(fmt, ...) std::fprintf(stderr, "[orch error] " fmt "\n", ##__VA_ARGS__)
#define LOG_WARN(fmt, ...) std::fprintf(stderr, "[orch warn] " fmt "\n", ##__VA_ARGS__)
#define LOG_INFO(fmt, ...) ((void)0)
#define LOG_DEBUG(fmt, ...) ((void)0)
#define LOG_TIMING(fmt, ...) ((void)0)
