// Result checking for end-to-end programs (see check.h).
#include "e2e/check.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "pypto_rt/npy.h"

namespace fs = std::filesystem;

namespace pypto::e2e {

CheckResult check_results(const ProgramCase& c, const std::string& results_dir) {
  CheckResult r;
  Arrays arrays;
  std::error_code ec;
  if (!fs::is_directory(results_dir, ec)) {
    r.report = fmt::format("{}: no results directory '{}'", c.name, results_dir);
    return r;
  }
  for (const auto& entry : fs::directory_iterator(results_dir)) {
    if (entry.path().extension() != ".npy") continue;
    try {
      auto a = pypto_rt::read_npy(entry.path().string());
      if (a.descr != "<f4") continue;
      std::vector<float> v(a.numel());
      std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
      arrays[entry.path().stem().string()] = std::move(v);
    } catch (const std::exception& e) {
      r.report = fmt::format("{}: cannot read {}: {}", c.name, entry.path().string(), e.what());
      return r;
    }
  }
  Arrays want;
  try {
    want = c.reference(arrays);
  } catch (const std::out_of_range&) {
    r.report = fmt::format("{}: an input the reference needs is missing in {}", c.name, results_dir);
    return r;
  }
  r.ok = true;
  for (const auto& name : c.outputs) {
    auto it = arrays.find(name);
    if (it == arrays.end()) {
      r.ok = false;
      r.report += fmt::format("{}: output '{}' missing in {}\n", c.name, name, results_dir);
      continue;
    }
    const auto& got = it->second;
    const auto& exp = want.at(name);
    if (got.size() != exp.size()) {
      r.ok = false;
      r.report += fmt::format("{}: output '{}' has {} elements, expected {}\n", c.name, name, got.size(), exp.size());
      continue;
    }
    double max_abs = 0, max_rel = 0;
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      double d = std::fabs(double(got[i]) - double(exp[i]));
      if (!(d <= c.atol + c.rtol * std::fabs(double(exp[i])))) {
        if (!bad) first_bad = i;
        ++bad;
      }
      if (std::isfinite(d)) {
        max_abs = std::max(max_abs, d);
        if (exp[i] != 0) max_rel = std::max(max_rel, d / std::fabs(double(exp[i])));
      }
    }
    if (bad) {
      r.ok = false;
      r.report += fmt::format("{}: output '{}': {} of {} elements outside tolerance (atol {:g}, rtol {:g}); first at index {}: got {:g}, expected {:g}\n",
                              c.name, name, bad, got.size(), c.atol, c.rtol, first_bad, got[first_bad], exp[first_bad]);
    } else {
      r.report += fmt::format("{}: output '{}': {} elements match the C++ reference (max abs err {:.3g}, max rel err {:.3g}; atol {:g}, rtol {:g})\n",
                              c.name, name, got.size(), max_abs, max_rel, c.atol, c.rtol);
    }
  }
  return r;
}

}  // namespace pypto::e2e
