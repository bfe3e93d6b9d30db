// pypto CPU runtime: the interface between the runtime's `run` main and the one C++ file the
// compiler generates per project (<out>/runner/program_table.cpp), which defines kProgram: the
// kernel table (func_id -> entry), the entry's tensor / scalar parameters, and the orchestration
// functions. Each kernel is compiled with -Dkernel_entry=pypto_kernel_<name>.
#pragma once

#include <cstdint>

#include "pto_orchestration_api.h"
#include "tensor.h"

namespace pypto_rt {

enum class CoreType { AIV, AIC };

struct KernelInfo {
    int func_id;
    const char* name;
    CoreType core;
    void (*entry)(int64_t* args);
};

enum class ParamDir { In, Out, InOut };

struct TensorParamInfo {
    const char* name;
    DataType dtype;
    int ndims;
    int64_t shape[5];  // -1 = dynamic (taken from the input file)
    ParamDir dir;
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
};

extern const ProgramInfo kProgram;  // defined by the generated program_table.cpp

}  // namespace pypto_rt
