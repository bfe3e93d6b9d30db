// The `pypto` subcommands. Each returns the process exit code (see driver.h).
#pragma once

#include <string>
#include <vector>

#include "cli/driver.h"

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
};

struct OpsOptions {
  bool json = false;
  bool summary = false;             // one markdown row per family (the README's coverage table)
  std::string family;               // "tile", "tensor", ...; empty = all
  std::vector<std::string> names;   // only these ops (registry or pl. spelling)
};

int cmd_check(const std::string& file, const CommonOptions& opts);
int cmd_ir(const IrOptions& opts);
int cmd_diff(const std::string& a, const std::string& b, const CommonOptions& opts);
int cmd_build(const BuildOptions& opts);
int cmd_passes(bool verbose);
int cmd_ops(const OpsOptions& opts);

}  // namespace pypto::cli
