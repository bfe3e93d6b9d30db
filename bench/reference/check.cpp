// Result checking for end-to-end programs (see check.h).
#include "reference/check.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <tuple>
#include <fmt/format.h>

#include "pto/pto_float.hpp"  // the runtime's binary16 decoding (FP16 inputs travel as "<f2")
#include "pypto_rt/npy.h"

namespace fs = std::filesystem;

namespace pypto::e2e {


Arrays load_arrays(const std::string& dir) {
  Arrays arrays;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".npy") continue;
    pypto_rt::NpyArray a;
    try {
      a = pypto_rt::read_npy(entry.path().string());
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("cannot read {}: {}", entry.path().string(), e.what()));
    }
    std::vector<float> v(a.numel());
    if (a.descr == "<f4") {
      std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
    } else if (a.descr == "<f2") {
      for (size_t i = 0; i < v.size(); ++i) {
        uint16_t h;
        std::memcpy(&h, a.data.data() + 2 * i, 2);
        v[i] = pto::fp::f16_to_f32(h);
      }
    } else if (a.descr == "<i4") {  // integer outputs (indices, bit patterns), widened exactly
      for (size_t i = 0; i < v.size(); ++i) {
        int32_t k;
        std::memcpy(&k, a.data.data() + 4 * i, 4);
        v[i] = static_cast<float>(k);
      }
    } else if (a.descr == "<i2") {
      for (size_t i = 0; i < v.size(); ++i) {
        int16_t k;
        std::memcpy(&k, a.data.data() + 2 * i, 2);
        v[i] = static_cast<float>(k);
      }
    } else if (a.descr == "|i1" || a.descr == "|u1") {
      for (size_t i = 0; i < v.size(); ++i) {
        const uint8_t b = a.data[i];
        v[i] = a.descr == "|i1" ? static_cast<float>(static_cast<int8_t>(b)) : static_cast<float>(b);
      }
    } else {
      continue;
    }
    arrays[entry.path().stem().string()] = std::move(v);
  }
  return arrays;
}

CheckResult check_results(const ProgramCase& c, const std::string& results_dir) {
  CheckResult r;
  std::error_code ec;
  if (!fs::is_directory(results_dir, ec)) {
    r.report = fmt::format("{}: no results directory '{}'", c.name, results_dir);
    return r;
  }
  Arrays arrays;
  try {
    arrays = load_arrays(results_dir);
  } catch (const std::exception& e) {
    r.report = fmt::format("{}: {}", c.name, e.what());
    return r;
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
    double atol = c.atol, rtol = c.rtol;
    if (auto t = c.tolerance.find(name); t != c.tolerance.end()) std::tie(atol, rtol) = t->second;
    double max_abs = 0, max_rel = 0;
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      double d = std::fabs(double(got[i]) - double(exp[i]));
      if (!(d <= atol + rtol * std::fabs(double(exp[i])))) {
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
                              c.name, name, bad, got.size(), atol, rtol, first_bad, got[first_bad], exp[first_bad]);
    } else {
      r.report += fmt::format("{}: output '{}': {} elements match the C++ reference (max abs err {:.3g}, max rel err {:.3g}; atol {:g}, rtol {:g})\n",
                              c.name, name, got.size(), max_abs, max_rel, atol, rtol);
    }
  }
  return r;
}

}  // namespace pypto::e2e
