// `pypto build --time-report`: where a compilation's time went, phase by phase (front end, each
// pass of the pipeline, emitters, writing OUT), printed to stderr as a table after the build, with
// the process's peak RSS — what `gcc -ftime-report` gives, for finding the slow part of a large
// model's compile. Wall-clock times: the front end's figure includes the parse-ahead threads'
// work only where the main thread waited for it.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace pypto::cli {

class TimeReport {
 public:
  explicit TimeReport(bool enabled) : enabled_(enabled), start_(clock::now()), last_(start_) {}
  bool enabled() const { return enabled_; }
  // Closes the phase that began at the previous mark (or at construction) under `name`; the
  // time of a name marked again is added to its row.
  void mark(std::string name);
  // The table: one row per phase (passes taking under 1 % of the total folded into one row),
  // the total and the peak RSS.
  std::string render() const;

 private:
  using clock = std::chrono::steady_clock;
  bool enabled_;
  clock::time_point start_, last_;
  std::vector<std::pair<std::string, double>> phases_;  // name, milliseconds
};

}  // namespace pypto::cli
