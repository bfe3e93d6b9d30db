// Atomic directory writes for pass dumps.
#include "cli/files.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

#include "cli/driver.h"

namespace fs = std::filesystem;

namespace pypto::cli {

std::string dump_file_name(int index, const std::string& pass_name) {
  return fmt::format("{:02}_{}.py", index, pass_name);
}

void write_files_atomically(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  fs::path target = fs::absolute(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  fs::path tmp = target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(), getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp, ec) && ec)
    throw UsageError(fmt::format("cannot create '{}': {}", tmp.string(), ec.message()));
  for (const auto& [name, content] : files) {
    fs::path p = tmp / name;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream f(p, std::ios::binary);
    f << content;
    if (!f) {
      fs::remove_all(tmp, ec);
      throw UsageError(fmt::format("cannot write '{}'", p.string()));
    }
  }
  fs::remove_all(target, ec);
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove_all(tmp);
    throw UsageError(fmt::format("cannot move output into '{}': {}", target.string(), ec.message()));
  }
}

}  // namespace pypto::cli
