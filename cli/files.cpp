// Pass-dump file names (files.h).
#include "cli/files.h"

#include <fmt/format.h>

namespace pypto::cli {

std::string dump_file_name(int index, const std::string& pass_name) {
  return fmt::format("{:02}_{}.py", index, pass_name);
}

}  // namespace pypto::cli
