// `pypto test FILE`: the one command that says whether a kernel computes the right numbers on a
// machine without an NPU. It builds the project, runs bin/run on seeded inputs (with its race and
// sync checkers on), evaluates the same inputs with the reference interpreter on the front end's
// IR, and compares every output
// elementwise as |got - want| <= atol + rtol * |want| (FP32 1e-4 / 1e-5, FP16 and BF16 1e-2 /
// 1e-2, integers exact). On a mismatch it interprets the IR after each pass in turn and names the
// first pass whose result no longer agrees with the source program's.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/npy_arrays.h"
#include "emit/project_writer.h"
#include "ir/diagnostic.h"
#include "ir/interp/interpreter.h"
#include "ir/soc.h"
#include "passes/pipeline.h"

namespace pypto::cli {

namespace fs = std::filesystem;
using namespace ir::interp;

namespace {

struct Tolerance {
  double rtol, atol;
};

Tolerance default_tolerance(ir::DataType dt) {
  if (dt == ir::DataType::FP32) return {1e-4, 1e-5};
  if (dt == ir::DataType::FP16 || dt == ir::DataType::BF16) return {1e-2, 1e-2};
  return {0, 0};
}

struct Verdict {
  bool ok = true;
  int64_t bad = 0;
  double max_abs = 0, max_rel = 0;
  int64_t worst = -1;
  double got = 0, want = 0;
  std::string shape_error;
};

Verdict compare(const Array& got, const Array& want, Tolerance tol) {
  Verdict v;
  if (got.shape != want.shape) {
    v.ok = false;
    v.shape_error = fmt::format("shape {} but the interpreter gives {}", shape_text(got.shape), shape_text(want.shape));
    return v;
  }
  double worst_excess = -1;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.at(i), w = want.at(i);
    if ((std::isnan(g) && std::isnan(w)) || g == w) continue;
    const double abs_err = std::isfinite(g) && std::isfinite(w) ? std::fabs(g - w) : INFINITY;
    const double rel = w != 0 ? abs_err / std::fabs(w) : abs_err;
    v.max_abs = std::max(v.max_abs, abs_err);
    v.max_rel = std::max(v.max_rel, rel);
    const double bound = tol.atol + tol.rtol * std::fabs(w);
    if (!(abs_err <= bound)) {
      ++v.bad;
      v.ok = false;
      const double excess = std::isfinite(abs_err) ? abs_err - bound : INFINITY;
      if (excess > worst_excess || v.worst < 0) worst_excess = excess, v.worst = i, v.got = g, v.want = w;
    }
  }
  return v;
}

std::string index_text(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) idx[d] = flat % shape[d], flat /= shape[d];
  return shape_text(idx);
}

// Runs a command, capturing stdout + stderr; returns its exit status (-1 if it could not start).
int run_captured(const std::string& cmd, std::string& output) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct Outputs {
  std::map<std::string, Array> by_name;
};

// The entry's outputs for `inputs` on `prog`, or the error that stopped the interpreter.
std::optional<Outputs> interpret(const ir::Program& prog, const EvalInputs& inputs, std::string& error) {
  try {
    const ir::Function& entry = eval_entry(prog);
    Outputs o;
    for (auto& r : evaluate(prog, entry, inputs)) o.by_name[r.name] = r.value;
    return o;
  } catch (const ir::CompileError& e) {
    const auto& d = e.diagnostics();
    error = d.empty() ? e.what() : fmt::format("{} ({})", d.front().message, d.front().span.to_string());
  } catch (const ir::InternalError& e) {
    error = fmt::format("internal error in {}: {}", e.stage(), e.what());
  }
  return std::nullopt;
}

bool agrees(const Outputs& a, const Outputs& b, const TestOptions& opts, std::string& where) {
  for (const auto& [name, want] : a.by_name) {
    auto it = b.by_name.find(name);
    if (it == b.by_name.end()) {
      where = fmt::format("output '{}' is missing", name);
      return false;
    }
    Tolerance tol = default_tolerance(want.dtype);
    if (opts.rtol >= 0) tol.rtol = opts.rtol;
    if (opts.atol >= 0) tol.atol = opts.atol;
    Verdict v = compare(it->second, want, tol);
    if (!v.ok) {
      where = v.shape_error.empty()
                  ? fmt::format("'{}' differs at {}: {} where the source program gives {}", name,
                                index_text(want.shape, v.worst), v.got, v.want)
                  : fmt::format("'{}' has {}", name, v.shape_error);
      return false;
    }
  }
  return true;
}

}  // namespace

int cmd_test(const TestOptions& opts) {
  return guarded(opts.common, [&](ir::DiagnosticSink& sink) {
    if (opts.trials < 1) throw UsageError("--trials must be at least 1");
    // The work directory: the project and each trial's results.
    fs::path work = opts.work_dir;
    bool temporary = work.empty();
    if (temporary) {
      std::string tmpl = (fs::temp_directory_path() / "pypto-test-XXXXXX").string();
      if (!mkdtemp(tmpl.data())) throw UsageError("cannot create a temporary directory");
      work = tmpl;
    }
    const fs::path project = work / "project";
    if (auto why = emit::output_dir_refusal(project.string(), {opts.file}); !why.empty()) throw UsageError(why);

    std::map<std::string, std::string> spec;
    auto source = load_program(opts.file, opts.common, sink, nullptr, &spec);
    const ir::Function& entry = eval_entry(*source);
    const RunValues run = with_spec_scalars(entry, opts.run, spec, "test");
    // The run values, checked before the build (a missing or unknown one is a usage error).
    (void)run_values(entry, run);
    std::string run_values;
    for (const auto& v : run.scalars) run_values += " --scalar " + shell_quote(v);
    for (const auto& v : run.shapes) run_values += " --shape " + shell_quote(v);

    // The pipeline, keeping the IR after every pass for the bisection.
    passes::PassContext ctx;
    ctx.soc = *ir::soc_from_name(opts.soc);
    ctx.auto_deps = opts.common.auto_deps;
    if (!opts.inject_fault.empty()) {
      try {
        ctx.fault_after = passes::find_pass(opts.inject_fault).name;
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
    std::vector<std::pair<std::string, ir::ProgramPtr>> stages;
    auto compiled = passes::run_pipeline(source, ctx, [&](const passes::Pass& pass, size_t, const ir::ProgramPtr& p) {
      stages.emplace_back(pass.name, p);
    });
    for (auto& d : ctx.diagnostics.take()) sink.report(std::move(d));
    emit::EmitOptions eo;
    eo.soc = ctx.soc;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) eo.cxx = cxx;
    if (const char* l = std::getenv("PYPTO_COMPILER_LAUNCHER"); l && *l) eo.launcher = l;
    // --no-run: only the interpreter, on the source IR and after every pass; nothing is built.
    const bool run_project = !opts.no_run;
    const bool every_pass = opts.every_pass || opts.no_run;
    if (run_project) {
      emit::write_files_atomically(emit::render_project(*compiled, eo, project.string()), project.string(), {opts.file});
      std::string log;
      std::string cmd = "ninja -C " + shell_quote(project.string());
      if (opts.jobs > 0) cmd += fmt::format(" -j {}", opts.jobs);
      if (run_captured(cmd, log) != 0) {
        std::fputs(log.c_str(), stderr);
        throw UsageError(fmt::format("building the project in {} failed", project.string()));
      }
    }

    int failures = 0;
    size_t outputs = 0;
    std::string first_bad_pass;
    for (int t = 0; t < opts.trials; ++t) {
      const int64_t seed = opts.seed + t;
      const fs::path results = work / fmt::format("seed_{}", seed);
      fs::remove_all(results);
      fs::create_directories(results / "inputs");
      // The inputs bin/run --seed would draw (or read from --inputs DIR where it has the file),
      // written for it and interpreted first: an error the
      // interpreter finds (a window outside a tensor) is reported at its line before anything runs.
      EvalInputs in = eval_inputs(entry, opts.inputs_dir, static_cast<uint64_t>(seed), run);
      for (const auto& [name, a] : in.tensors) write_npy_array((results / "inputs" / (name + ".npy")).string(), a);
      // On the source program an interpreter error is the program's: it propagates, located.
      std::optional<Outputs> want = Outputs{};
      for (auto& r : evaluate(*source, entry, in)) want->by_name[r.name] = r.value;
      std::string log;
      // The runtime's checkers are on: a race by simpler's ordering rules or a missing pipe sync
      // fails the run, naming the tasks / instructions.
      const std::string run = shell_quote((project / "bin" / "run").string()) + " --check-races --check-syncs" + run_values + " --inputs " +
                              shell_quote((results / "inputs").string()) + " --outputs " +
                              shell_quote((results / "run").string());
      if (run_project && run_captured(run, log) != 0) {
        std::fputs(log.c_str(), stderr);
        throw UsageError(fmt::format("bin/run failed for seed {} (the interpreter ran these inputs to the end)", seed));
      }
      outputs = want->by_name.size();
      bool trial_ok = true;
      for (const auto& [name, w] : want->by_name) {
        if (!run_project) break;
        Array got = read_npy_array((results / "run" / (name + ".npy")).string(), w.dtype);
        Tolerance tol = default_tolerance(w.dtype);
        if (opts.rtol >= 0) tol.rtol = opts.rtol;
        if (opts.atol >= 0) tol.atol = opts.atol;
        Verdict v = compare(got, w, tol);
        const std::string head = fmt::format("test: {} seed {}: {} {} {}", entry.name, seed, name, shape_text(w.shape),
                                             ir::dtype_name(w.dtype));
        if (v.ok) {
          std::printf("%s: ok (max abs err %.3g, max rel err %.3g; rtol %g, atol %g)\n", head.c_str(), v.max_abs,
                      v.max_rel, tol.rtol, tol.atol);
          continue;
        }
        trial_ok = false;
        if (!v.shape_error.empty()) {
          std::printf("%s: MISMATCH: %s\n", head.c_str(), v.shape_error.c_str());
          continue;
        }
        std::printf("%s: MISMATCH: %lld of %lld elements outside |got - want| <= %g + %g * |want|; worst at %s: got %.9g, "
                    "want %.9g (max abs err %.3g, max rel err %.3g)\n",
                    head.c_str(), static_cast<long long>(v.bad), static_cast<long long>(w.numel()), tol.atol, tol.rtol,
                    index_text(w.shape, v.worst).c_str(), v.got, v.want, v.max_abs, v.max_rel);
      }
      // Bisect (once): the IR after each pass, interpreted on the same inputs. With --every-pass
      // it runs on every trial, and a pass whose IR disagrees fails the test even when the final
      // numbers agree.
      if (trial_ok && !every_pass) continue;
      if (!trial_ok) ++failures;
      if (!first_bad_pass.empty()) continue;
      std::string note;
      for (size_t k = 0; k < stages.size(); ++k) {
        std::string err, where;
        auto got = interpret(*stages[k].second, in, err);
        if (!got) {
          note = fmt::format("the interpreter cannot run the IR after pass {} ({} of {}): {}; the IR after every pass "
                             "before it agrees with the source program",
                             stages[k].first, k + 1, stages.size(), err);
          first_bad_pass = stages[k].first;
          break;
        }
        if (!agrees(*want, *got, opts, where)) {
          note = fmt::format("the first pass whose IR disagrees with the source program: {} ({} of {}): {}",
                             stages[k].first, k + 1, stages.size(), where);
          first_bad_pass = stages[k].first;
          break;
        }
      }
      if (note.empty()) {
        if (trial_ok) {
          std::printf("test: %s seed %lld: the IR after each of the %zu passes agrees with the source program\n",
                      entry.name.c_str(), static_cast<long long>(seed), stages.size());
          continue;
        }
        note = "the IR after every pass agrees with the source program: the difference is in code generation or the "
               "runtime";
        first_bad_pass = "(none)";
      } else if (trial_ok) {
        ++failures;  // --every-pass: an intermediate IR disagrees
      }
      std::printf("test: %s\n", note.c_str());
    }
    if (failures) {
      std::printf("test: %s: FAIL (%d of %d trial%s; the project and results are in %s)\n", entry.name.c_str(), failures,
                  opts.trials, opts.trials == 1 ? "" : "s", work.string().c_str());
      return int(kUserError);
    }
    std::printf("test: %s: PASS (%zu output%s, %d trial%s)\n", entry.name.c_str(), outputs, outputs == 1 ? "" : "s",
                opts.trials, opts.trials == 1 ? "" : "s");
    if (temporary && !opts.keep) {
      std::error_code ec;
      fs::remove_all(work, ec);
    }
    return int(kOk);
  });
}

}  // namespace pypto::cli
