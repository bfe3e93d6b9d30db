// The `pypto` subcommands. Each returns the process exit code (see driver.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/driver.h"
#include "ir/interp/interpreter.h"

namespace pypto::cli {

struct IrOptions {
  std::string file;
  CommonOptions common;
  std::vector<std::string> passes;
  std::string dump_dir;
  std::string soc = "910b";
};

struct BuildOptions {
  std::string file;
  CommonOptions common;
  std::string out_dir;
  std::string soc = "910b";
  bool emit_only = false;
  int jobs = 0;
  bool dump_passes = false;
  bool report = false;  // also write OUT/report.html (cli/report.h)
  bool time_report = false;  // print each phase's wall time to stderr (cli/time_report.h)
};

struct OpsOptions {
  bool json = false;
  bool summary = false;             // one markdown row per family (the README's coverage table)
  std::string family;               // "tile", "tensor", ...; empty = all
  std::vector<std::string> names;   // only these ops (registry or pl. spelling)
};

// Values an entry takes at run time, as bin/run takes them (eval and test): --run-scalar NAME=V for
// a scalar parameter left a runtime value, --shape NAME=[D0,...] for a tensor whose dynamic dims
// no scalar and no input gives.
struct RunValues {
  std::vector<std::string> scalars;  // "NAME=VALUE"
  std::vector<std::string> shapes;   // "NAME=[D0,D1,...]"
};

struct EvalOptions {
  std::string file;
  CommonOptions common;
  RunValues run;
  std::string inputs_dir;
  std::string outputs_dir;
  int64_t seed = -1;      // < 0: no generated inputs
  std::string after;      // interpret the IR after this pass ("" = the front end's IR)
  std::string soc = "910b";
};

struct TestOptions {
  std::string file;
  CommonOptions common;
  RunValues run;
  std::string soc = "910b";
  int64_t seed = 1;
  int trials = 1;
  double rtol = -1, atol = -1;  // < 0: the dtype's default
  std::string work_dir;         // "" = a temporary directory, removed afterwards
  bool keep = false;
  int jobs = 0;
  std::string inject_fault;     // testing the bisection: corrupt the IR after this pass
  bool every_pass = false;      // interpret the IR after every pass on every trial
  bool no_run = false;          // only the interpreter (source vs every pass); no build, no bin/run
  std::string inputs_dir;       // <param>.npy files used instead of drawn inputs ("" = all drawn)
};

struct MemplanOptions {
  std::string file;
  CommonOptions common;
  std::string output;  // "" = a table on stdout; .svg / .json
  std::string soc = "910b";
};

struct GraphOptions {
  std::string file;
  CommonOptions common;
  std::string output;  // "" = DOT on stdout; .dot / .svg / .html
  std::string soc = "910b";
};

int cmd_check(const std::string& file, const CommonOptions& opts);
int cmd_graph(const GraphOptions& opts);
int cmd_memplan(const MemplanOptions& opts);
int cmd_ir(const IrOptions& opts);
int cmd_diff(const std::string& a, const std::string& b, const CommonOptions& opts);
int cmd_build(const BuildOptions& opts);
int cmd_passes(bool verbose);
int cmd_ops(const OpsOptions& opts);
int cmd_eval(const EvalOptions& opts);
int cmd_test(const TestOptions& opts);

// Shared by eval and test (cmd_eval.cpp): the program after the named pipeline pass ("" = as
// given), and the entry's inputs from DIR/<param>.npy or generated as bin/run --seed generates them.
ir::ProgramPtr program_after(ir::ProgramPtr prog, const std::string& after, const std::string& soc);
// The run values checked against the entry (a scalar or tensor it does not have, a value that
// does not parse, a scalar parameter without a value: UsageError), as the scalars and shapes of
// an EvalInputs without tensors.
ir::interp::EvalInputs run_values(const ir::Function& entry, const RunValues& run);
// run_values, then every input read or generated at the extents ir::interp::entry_shapes gives it.
ir::interp::EvalInputs eval_inputs(const ir::Function& entry, const std::string& dir, std::optional<uint64_t> seed,
                                   const RunValues& run);
// `run` plus, for each scalar parameter of `entry` it does not give, the value the file's spec
// function gives it (ScalarSpec), each announced on stdout as `<who>: scalar 'a' = 1.0 (...)`.
RunValues with_spec_scalars(const ir::Function& entry, RunValues run, const std::map<std::string, std::string>& spec,
                            const char* who);
// `ninja -C OUT [-j N]` (cmd_build.cpp): kOk, or kUserError after printing why.
// A word for /bin/sh: 'it'\''s' (cmd_build.cpp).
std::string shell_quote(const std::string& s);
int run_ninja(const std::string& out_dir, int jobs);

}  // namespace pypto::cli
