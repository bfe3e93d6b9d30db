// The phase timer behind `pypto build --time-report` (see time_report.h).
#include "cli/time_report.h"

#include <algorithm>
#include <fmt/format.h>
#include <sys/resource.h>

namespace pypto::cli {

void TimeReport::mark(std::string name) {
  if (!enabled_) return;
  const auto now = clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
  last_ = now;
  for (auto& [n, t] : phases_)
    if (n == name) {
      t += ms;
      return;
    }
  phases_.emplace_back(std::move(name), ms);
}

std::string TimeReport::render() const {
  const double total = std::chrono::duration<double, std::milli>(last_ - start_).count();
  std::string out = fmt::format("{:<44} {:>10} {:>7}\n", "phase", "wall ms", "share");
  double small = 0;
  int small_count = 0;
  auto row = [&](const std::string& name, double ms) {
    out += fmt::format("{:<44} {:>10.2f} {:>6.1f}%\n", name, ms, total > 0 ? 100.0 * ms / total : 0.0);
  };
  for (const auto& [name, ms] : phases_) {
    if (name.rfind("pass ", 0) == 0 && total > 0 && ms < 0.01 * total) {
      small += ms;
      ++small_count;
      continue;
    }
    row(name, ms);
  }
  if (small_count) row(fmt::format("{} other passes (each < 1 %)", small_count), small);
  row("total", total);
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  out += fmt::format("{:<44} {:>8.1f}MB\n", "peak RSS", double(ru.ru_maxrss) / 1024.0);
  return out;
}

}  // namespace pypto::cli
