// Checking a bin/run result directory against the reference loops: loads every float32 .npy in
// the directory (inputs written by `bin/run --seed N --outputs DIR`, and the outputs), runs the
// program's reference on the inputs and compares each output element-wise with
// |got - want| <= atol + rtol * |want| (the program's tolerance, or the output's own where it has one).
#pragma once

#include <string>

#include "reference/reference.h"

namespace pypto::e2e {

struct CheckResult {
  bool ok = false;
  std::string report;  // one line per output (and the reason on failure)
};

CheckResult check_results(const ProgramCase& c, const std::string& results_dir);

// Every float32 / float16 / int32 / int16 / int8 / uint8 .npy of `dir`, widened to float and keyed
// by file stem. Throws std::runtime_error naming the file on a read error.
Arrays load_arrays(const std::string& dir);

}  // namespace pypto::e2e
