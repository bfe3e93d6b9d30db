// pypto CPU runtime: the interface between the runtime's `run` main and the one C++ file the
// compiler generates per project (<out>/runner/program_table.cpp), which defines kProgram: the
// kernel table (func_id -> entry), the entry's tensor / scalar parameters, and the orchestration
// functions. Each kernel is compiled with -Dkernel_entry=pypto_kernel_<name>.
//
// Source locations reach the runtime only through this table (kernels and orchestration stay
// buildable for the NPU): for each kernel its generated file, DSL source file and definition
// line, and a line map from its generated C++ to the DSL; the same map for the orchestration,
// whose rt_submit_* calls pass their C++ line (pto_orchestration_api.h) — so every task and
// every instruction of a kernel (pto/pto_instr_sites.hpp) can be named by its source line.
#pragma once

#include <cstdint>

#include "pto_orchestration_api.h"
#include "tensor.h"

namespace pypto_rt {

enum class CoreType { AIV, AIC };

// One line of generated C++ and the DSL source line it came from (the `// file.py:N: ...` comment
// the emitter writes above each statement). A map is sorted by cpp_line; a C++ line belongs to
// the nearest entry at or before it.
struct SourceLine {
    uint32_t cpp_line;
    uint32_t line;
    const char* file;
};

// The entry of `lines[0..n)` covering C++ line `cpp_line`, or nullptr.
inline const SourceLine* find_source_line(const SourceLine* lines, int n, uint32_t cpp_line) {
    const SourceLine* best = nullptr;
    int lo = 0, hi = n;  // first entry with cpp_line > the one asked for
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (lines[mid].cpp_line <= cpp_line) lo = mid + 1;
        else hi = mid;
    }
    if (lo > 0) best = &lines[lo - 1];
    return best;
}

struct KernelInfo {
    int func_id;
    const char* name;
    CoreType core;
    void (*entry)(int64_t* args);
    // Source facts (null / 0 when unknown, as for kernels written by hand in tests):
    const char* cpp = nullptr;     // the generated file, "kernels/aiv/<name>.cpp"
    const char* source = nullptr;  // the DSL file that defines the kernel
    uint32_t line = 0;             // its definition line there
    const SourceLine* lines = nullptr;
    int num_lines = 0;
    const char* const* tensor_params = nullptr;  // tensor parameter names, in args[] order
    int num_tensor_params = 0;
};

enum class ParamDir { In, Out, InOut };

struct TensorParamInfo {
    const char* name;
    DataType dtype;
    int ndims;
    int64_t shape[5];  // -1 = dynamic: from the input file, --shape, or its dim name
    ParamDir dir;
    // Per dynamic dim, the name of its symbol (a pl.dynamic dim, or the scalar parameter of that
    // name that binds it), or nullptr when the dim is an expression: bin/run takes a named dim
    // from the scalar of that name, or from any tensor given with it (an input file, --shape),
    // and sizes the other tensors with it.
    const char* dim_names[5] = {};
};

struct ScalarParamInfo {
    const char* name;
    DataType dtype;  // INT64 for INDEX
};

struct ProgramInfo {
    const char* name;                                  // entry name
    const KernelInfo* kernels;
    int num_kernels;                                   // indexed by func_id (dense from 0)
    const TensorParamInfo* tensors;
    int num_tensors;                                   // = ChipTaskArgs tensor(i)
    const ScalarParamInfo* scalars;
    int num_scalars;                                   // = ChipTaskArgs scalar(j)
    PTO2OrchestrationConfig (*orchestration_config)(const ChipTaskArgs&);
    void (*orchestration_entry)(const ChipTaskArgs&);
    const char* orchestration_cpp = nullptr;           // "orchestration/<entry>.cpp"
    const SourceLine* orchestration_lines = nullptr;   // its C++ -> DSL line map
    int num_orchestration_lines = 0;
};

extern const ProgramInfo kProgram;  // defined by the generated program_table.cpp

}  // namespace pypto_rt
