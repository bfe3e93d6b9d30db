// Plain-C++ loops doing the math of the end-to-end test programs (tests/programs/e2e_*.py): the
// speed anchor of bench/run.sh ("bin/run vs plain C++ loop") and `refcheck`, which compares a
// run's outputs with them. Correctness is tested against the interpreter (`pypto test`, the e2e
// harness); these loops were the earlier per-program references and stay for the benchmark.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pypto::e2e {

using Arrays = std::map<std::string, std::vector<float>>;

struct ProgramCase {
  std::string name;                          // e2e program name, e.g. "softmax"
  std::string file;                          // tests/programs/e2e_<name>.py
  std::vector<std::string> scalars;          // --scalar arguments for bin/run
  std::vector<std::string> outputs;          // output parameter names
  // Computes the expected outputs from the inputs (names as in the program's signature).
  Arrays (*reference)(const Arrays& inputs);
  float atol, rtol;
  // Per-output (atol, rtol) where an output needs another tolerance than the program's (exact
  // casts and integers, FP16 math within one FP16 ulp).
  std::map<std::string, std::pair<float, float>> tolerance = {};
};

const std::vector<ProgramCase>& program_cases();

// Reference loops of the extended vector instructions (reference_vector_ops.cpp).
Arrays select_sort_reference(const Arrays& inputs);
Arrays vector_math_reference(const Arrays& inputs);
Arrays tensor_ops_reference(const Arrays& inputs);
// e2e_live_tiles.py with the runtime scalar n (reference_live_tiles.cpp).
Arrays live_tiles_reference(const Arrays& inputs, int n);
// Reference loops of the used-op programs (reference_used_ops.cpp) and their tolerances.
Arrays used_tile_ops_reference(const Arrays& inputs);
Arrays used_tensor_ops_reference(const Arrays& inputs);
std::map<std::string, std::pair<float, float>> used_tile_ops_tolerance();
std::map<std::string, std::pair<float, float>> used_tensor_ops_tolerance();
const ProgramCase* find_case(const std::string& name);

}  // namespace pypto::e2e
