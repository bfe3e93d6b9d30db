// The generated `bin/run` as a user drives it: --inputs / --outputs / --seed / --scalar / --shape,
// dynamic dims sized from a scalar, an input file or --shape, and its refusal of bad input
// (missing, wrong-shape, wrong-dtype or corrupt .npy files, missing or unknown scalars, extents
// that disagree or that nothing gives) with a message and a non-zero exit — never a crash or a
// silent wrong run.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <tuple>
#include <nlohmann/json.hpp>
#include <cstring>
#include <fstream>
#include <sstream>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "cli/cli_util.h"
#include "pypto_rt/npy.h"

namespace fs = std::filesystem;

namespace {

using namespace clitest;

Run sh(const std::string& cmd) { return shell(cmd + " 2>&1"); }

fs::path build_program(const std::string& program, const std::string& dir, const std::string& options = {}) {
  fs::path o = fs::path(PYPTO_TEST_WORK_DIR) / dir;
  if (!fs::exists(o / ".pypto-project")) fs::remove_all(o);  // left by an older pypto: not replaceable
  fs::create_directories(o.parent_path());
  auto r = sh(fmt::format("'{}' build '{}/{}' -o '{}' {}", PYPTO_BIN, PYPTO_TEST_PROGRAMS, program, o.string(), options));
  INFO(r.out);
  REQUIRE(r.code == 0);
  return o;
}

// Builds tests/programs/e2e_elementwise.py once (x, y: In [64,128] FP32; alpha: FP32 scalar; z: Out).
const fs::path& project() {
  static const fs::path out = build_program("e2e_elementwise.py", "elementwise");
  return out;
}

Run run(const std::string& args) { return sh(fmt::format("'{}/bin/run' {}", project().string(), args)); }

std::vector<float> read_f32(const fs::path& p, std::vector<int64_t>& shape) {
  auto a = pypto_rt::read_npy(p.string());
  REQUIRE(a.descr == "<f4");
  shape = a.shape;
  std::vector<float> v(a.numel());
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
  return v;
}

void write_f32(const fs::path& p, std::vector<int64_t> shape, float value) {
  size_t n = 1;
  for (auto d : shape) n *= size_t(d);
  std::vector<float> v(n, value);
  pypto_rt::write_npy(p.string(), "<f4", shape, v.data(), n * sizeof(float));
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::path(PYPTO_TEST_WORK_DIR) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("bin/run reads inputs, takes scalars and writes outputs", "[run]") {
  fs::path in = fresh_dir("in_ok");
  write_f32(in / "x.npy", {64, 128}, 2.0f);
  write_f32(in / "y.npy", {64, 128}, 1.0f);
  fs::path out = fresh_dir("out_ok");
  auto r = run(fmt::format("--inputs '{}' --outputs '{}' --scalar alpha=0.5", in.string(), out.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("1 tasks") != std::string::npos);
  auto z = pypto_rt::read_npy((out / "z.npy").string());
  CHECK(z.descr == "<f4");
  CHECK(z.shape == std::vector<int64_t>{64, 128});
  // relu(0.5 * 2 + 1 - 0.5) * 0.25 = 0.375, exactly representable
  std::vector<float> zv(z.numel());
  std::memcpy(zv.data(), z.data.data(), zv.size() * sizeof(float));
  for (float v : zv) REQUIRE(v == 0.375f);
}

TEST_CASE("bin/run with --seed is deterministic", "[run]") {
  fs::path a = fresh_dir("seed_a"), b = fresh_dir("seed_b"), c = fresh_dir("seed_c");
  REQUIRE(run(fmt::format("--seed 11 --outputs '{}' --scalar alpha=1.5", a.string())).code == 0);
  REQUIRE(run(fmt::format("--seed 11 --outputs '{}' --scalar alpha=1.5 --clusters 3", b.string())).code == 0);
  REQUIRE(run(fmt::format("--seed 12 --outputs '{}' --scalar alpha=1.5", c.string())).code == 0);
  for (const char* f : {"x.npy", "y.npy", "z.npy"}) {
    CHECK(slurp(a / f) == slurp(b / f));
    CHECK(slurp(a / f) != slurp(c / f));
  }
}

TEST_CASE("bin/run rejects bad inputs with a message and a non-zero exit", "[run]") {
  fs::path in = fresh_dir("in_bad");
  write_f32(in / "y.npy", {64, 128}, 1.0f);

  auto missing = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(missing.code != 0);
  CHECK(missing.out.find("missing input 'x'") != std::string::npos);

  write_f32(in / "x.npy", {32, 128}, 1.0f);
  auto shape = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(shape.code != 0);
  CHECK(shape.out.find("shape") != std::string::npos);
  CHECK(shape.out.find("'x'") != std::string::npos);

  std::vector<double> dbl(64 * 128, 1.0);
  pypto_rt::write_npy((in / "x.npy").string(), "<f8", {64, 128}, dbl.data(), dbl.size() * sizeof(double));
  auto dtype = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(dtype.code != 0);
  CHECK(dtype.out.find("dtype") != std::string::npos);

  std::ofstream(in / "x.npy", std::ios::binary) << "\x93NUMPY garbage";
  auto corrupt = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(corrupt.code != 0);
  CHECK(corrupt.out.find("x.npy") != std::string::npos);

  write_f32(in / "x.npy", {64, 128}, 1.0f);
  auto no_scalar = run(fmt::format("--inputs '{}'", in.string()));
  CHECK(no_scalar.code != 0);
  CHECK(no_scalar.out.find("alpha") != std::string::npos);
  auto bad_scalar = run(fmt::format("--inputs '{}' --scalar alpha=abc", in.string()));
  CHECK(bad_scalar.code != 0);
  auto unknown = run(fmt::format("--inputs '{}' --scalar alpha=1 --scalar beta=2", in.string()));
  CHECK(unknown.code != 0);
  CHECK(unknown.out.find("beta") != std::string::npos);
  auto flag = run("--frobnicate");
  CHECK(flag.code != 0);
  for (const auto* r : {&missing, &shape, &dtype, &corrupt, &no_scalar, &bad_scalar, &unknown, &flag})
    CHECK(r->out.find("Segmentation") == std::string::npos);
}

TEST_CASE("bin/run sizes dynamic dims from a scalar, an input file or --shape", "[run]") {
  // dynamic_dims.py: x, out: [M, 128] with M the entry's scalar; out = exp(x) by 32-row blocks.
  const fs::path dims = build_program("dynamic_dims.py", "dynamic_dims");
  auto bin = [](const fs::path& p, const std::string& args) { return sh(fmt::format("'{}/bin/run' {}", p.string(), args)); };
  {
    fs::path out = fresh_dir("dyn_scalar");
    auto r = bin(dims, fmt::format("--scalar M=96 --seed 3 --outputs '{}'", out.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("3 tasks") != std::string::npos);
    std::vector<int64_t> xs, os;
    auto x = read_f32(out / "x.npy", xs);
    auto o = read_f32(out / "out.npy", os);
    CHECK(xs == std::vector<int64_t>{96, 128});
    REQUIRE(os == std::vector<int64_t>{96, 128});
    for (size_t i = 0; i < o.size(); ++i) REQUIRE(o[i] == Approx(std::exp(x[i])).epsilon(1e-6));
    auto help = bin(dims, "--help");
    CHECK(help.out.find("x[M,128] out[M,128]") != std::string::npos);
  }
  {
    fs::path in = fresh_dir("dyn_scalar_in");
    write_f32(in / "x.npy", {64, 128}, 0.0f);
    auto r = bin(dims, fmt::format("--scalar M=96 --inputs '{}'", in.string()));
    CHECK(r.code != 0);
    CHECK(r.out.find("dynamic dim M is 64") != std::string::npos);
    CHECK(r.out.find("96 by --scalar M") != std::string::npos);
  }
  // dynamic_rows.py: x, out: [N, 64] with N a pl.dynamic no scalar binds; out = x + x by 16 rows.
  const fs::path rows = build_program("dynamic_rows.py", "dynamic_rows");
  {
    fs::path in = fresh_dir("dyn_rows_in"), out = fresh_dir("dyn_rows_out");
    write_f32(in / "x.npy", {48, 64}, 1.25f);
    auto r = bin(rows, fmt::format("--inputs '{}' --outputs '{}'", in.string(), out.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("3 tasks") != std::string::npos);
    std::vector<int64_t> os;
    auto o = read_f32(out / "out.npy", os);
    REQUIRE(os == std::vector<int64_t>{48, 64});
    for (float v : o) REQUIRE(v == 2.5f);
  }
  {
    fs::path out = fresh_dir("dyn_rows_shape");
    auto r = bin(rows, fmt::format("--seed 1 --shape 'x=[32, 64]' --outputs '{}'", out.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    std::vector<int64_t> xs, os;
    auto x = read_f32(out / "x.npy", xs);
    auto o = read_f32(out / "out.npy", os);
    CHECK(xs == std::vector<int64_t>{32, 64});
    REQUIRE(os == std::vector<int64_t>{32, 64});
    for (size_t i = 0; i < o.size(); ++i) REQUIRE(o[i] == x[i] + x[i]);
  }
  auto unsized = bin(rows, "--seed 1");
  CHECK(unsized.code != 0);
  CHECK(unsized.out.find("input 'x' [N, 64]: dim 0 (N) is given by no scalar and no tensor") != std::string::npos);
  CHECK(unsized.out.find("--shape x=[...]") != std::string::npos);
  auto disagree = bin(rows, "--seed 1 --shape x=[32,64] --shape out=[48,64]");
  CHECK(disagree.code != 0);
  CHECK(disagree.out.find("dynamic dim N") != std::string::npos);
  auto static_dim = bin(rows, "--seed 1 --shape x=[32,65]");
  CHECK(static_dim.code != 0);
  CHECK(static_dim.out.find("does not match parameter 'x' [N, 64]") != std::string::npos);
  auto syntax = bin(rows, "--seed 1 --shape x=32x64");
  CHECK(syntax.code != 0);
  CHECK(syntax.out.find("--shape expects NAME=[D0,D1,...]") != std::string::npos);
  auto unknown = bin(rows, "--seed 1 --shape y=[32,64]");
  CHECK(unknown.code != 0);
  CHECK(unknown.out.find("'y', which is not a tensor parameter") != std::string::npos);
  auto huge = bin(rows, "--seed 1 --shape x=[4294967295,64]");  // 1 TiB
  CHECK(huge.code != 0);
  CHECK(huge.out.find("more than this machine's memory") != std::string::npos);
  for (const auto* r : {&unsized, &disagree, &static_dim, &syntax, &unknown, &huge})
    CHECK(r->out.find("Segmentation") == std::string::npos);
}

TEST_CASE("bin/run --trace writes the executed task graph as a Chrome trace", "[run][trace]") {
  static const fs::path out = build_program("e2e_chain.py", "chain_trace");
  const fs::path trace = out / "chain.trace.json";
  fs::remove(trace);
  auto r = sh(fmt::format("'{}' --seed 1 --trace '{}'", (out / "bin" / "run").string(), trace.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  std::ifstream in(trace);
  const auto doc = nlohmann::json::parse(in);
  std::map<int, nlohmann::json> slices;  // by task
  std::vector<nlohmann::json> arrows;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X") slices[e.at("args").at("task")] = e;
    if (e.at("ph") == "s") arrows.push_back(e);
  }
  REQUIRE(slices.size() == 2);
  CHECK(slices[0].at("name") == "scale");
  CHECK(slices[1].at("name") == "shift");
  // The submit's DSL line (the program table's line map) and the kernel's definition.
  CHECK_THAT(slices[1].at("args").at("submit").get<std::string>(), Catch::Contains("submitted at e2e_chain.py:36"));
  CHECK(slices[1].at("args").at("kernel_source") == "e2e_chain.py:20");
  CHECK(slices[1].at("args").at("tensors")[0].at("param") == "tmp");
  // shift reads what scale wrote: one arrow, RAW.
  REQUIRE(arrows.size() == 1);
  CHECK(arrows[0].at("args").at("from_task") == 0);
  CHECK(arrows[0].at("args").at("to_task") == 1);
  CHECK_THAT(arrows[0].at("name").get<std::string>(), Catch::Contains("RAW"));

  auto bad = sh(fmt::format("'{}' --seed 1 --trace '{}'", (out / "bin" / "run").string(),
                            (out / "no such dir" / "t.json").string()));
  CHECK(bad.code != 0);
  CHECK_THAT(bad.out, Catch::Contains("--trace: cannot open"));
}

namespace {
// Runs the project in `out` with --trace and returns the parsed trace file.
nlohmann::json run_trace(const fs::path& out) {
  const fs::path trace = out / "trace.json";
  auto r = sh(fmt::format("'{}' --seed 1 --trace '{}'", (out / "bin" / "run").string(), trace.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  std::ifstream in(trace);
  return nlohmann::json::parse(in);
}
}  // namespace

TEST_CASE("the trace of a 3-kernel program with stated dependencies matches the tasks and edges", "[run][trace]") {
  // manual_deps.py: fill, add1, scale, add1 in a manual scope ordered only by deps=, then an add1
  // reading x through pl.no_dep (no edge).
  static const fs::path out = build_program("manual_deps.py", "manual_deps_trace");
  const auto doc = run_trace(out);
  std::map<int, nlohmann::json> slices;
  std::map<int, nlohmann::json> starts, finishes;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X") slices[e.at("args").at("task")] = e;
    if (e.at("ph") == "s") starts[e.at("id")] = e;
    if (e.at("ph") == "f") finishes[e.at("id")] = e;
  }
  REQUIRE(slices.size() == 5);
  const std::vector<std::string> kernels = {"fill", "add1", "scale", "add1", "add1"};
  for (int t = 0; t < 5; ++t) CHECK(slices[t].at("name") == kernels[size_t(t)]);
  std::set<std::tuple<int, int, std::string>> edges;
  REQUIRE(starts.size() == finishes.size());
  for (const auto& [id, s] : starts) {
    const auto& f = finishes.at(id);
    const int from = s.at("args").at("from_task"), to = s.at("args").at("to_task");
    edges.emplace(from, to, s.at("name"));
    CHECK(s.at("tid") == slices[from].at("tid"));
    CHECK(f.at("tid") == slices[to].at("tid"));
    CHECK(f.at("ts").get<double>() >= s.at("ts").get<double>());  // the consumer started after
  }
  CHECK(edges == std::set<std::tuple<int, int, std::string>>{{0, 1, "deps"}, {1, 2, "deps"}, {2, 3, "deps"}});
}

namespace {
// The kernels (by task) and dependency edges (from, to) of a bin/run --trace file; dependency-only
// tasks are named "task_dummy".
std::pair<std::map<int, std::string>, std::set<std::pair<int, int>>> traced_graph(const fs::path& out) {
  const auto doc = run_trace(out);
  std::map<int, std::string> tasks;
  std::set<std::pair<int, int>> edges;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X") tasks[e.at("args").at("task")] = e.at("name");
    if (e.at("ph") == "s") edges.emplace(e.at("args").at("from_task"), e.at("args").at("to_task"));
  }
  return {tasks, edges};
}
}  // namespace

TEST_CASE("a phase fence: NB consumers of a whole TaskId array wait on one barrier task", "[run][trace]") {
  // phase_fence.py: NB producers fill tids in a manual scope, then NB parallel consumers each wait
  // on the whole array. For NB = 4, ExpandManualPhaseFence puts one task_dummy (task 4) between
  // them: 4 + 4 edges instead of 16. For NB = 2 it does not pay (4 edges either way): direct edges.
  {
    auto [tasks, edges] = traced_graph(build_program("phase_fence.py", "phase_fence_trace"));
    REQUIRE(tasks.size() == 9);
    CHECK(tasks[4] == "task_dummy");
    std::set<std::pair<int, int>> expected;
    for (int p = 0; p < 4; ++p) {
      CHECK(tasks[p] == "double");
      expected.emplace(p, 4);
    }
    for (int c = 5; c < 9; ++c) {
      CHECK(tasks[c] == "gather");
      expected.emplace(4, c);
    }
    CHECK(edges == expected);
  }
  {
    auto [tasks, edges] = traced_graph(build_program("phase_fence.py", "phase_fence_trace_nb2", "-D NB=2"));
    REQUIRE(tasks.size() == 4);
    CHECK(edges == std::set<std::pair<int, int>>{{0, 2}, {0, 3}, {1, 2}, {1, 3}});
  }
}

// Runs `argv` with stdin, stdout and stderr on a new pseudo-terminal (forkpty), PYPTO_PROGRESS_DELAY_MS
// set to `delay_ms`; returns what it wrote there.
Run on_terminal(const std::vector<std::string>& argv, const char* delay_ms) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (delay_ms) setenv("PYPTO_PROGRESS_DELAY_MS", delay_ms, 1);
    else unsetenv("PYPTO_PROGRESS_DELAY_MS");
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child has exited and closed the terminal
    out.append(buf, size_t(n));
  }
  close(master);
  int st = 0;
  waitpid(pid, &st, 0);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

TEST_CASE("bin/run shows its progress on a terminal only, and --quiet silences it", "[run][progress]") {
  // layer_norm.py: 64 tasks, tens of milliseconds (a run shorter than the progress thread's start
  // would rightly print nothing).
  static const fs::path out = build_program("layer_norm.py", "layer_progress");
  const std::string run = (out / "bin" / "run").string();
  // On a terminal, with the delay before the first line made 0 for this short run.
  auto tty = on_terminal({run, "--seed", "1"}, "0");
  INFO(tty.out);
  REQUIRE(tty.code == 0);
  CHECK_THAT(tty.out, Catch::Contains("tasks done"));
  CHECK_THAT(tty.out, Catch::Contains("\r\033[K"));  // and cleared again
  CHECK_THAT(tty.out, Catch::Contains("run: layer: 64 tasks"));
  auto quiet = on_terminal({run, "--seed", "1", "--quiet"}, "0");
  CHECK(quiet.code == 0);
  CHECK_THAT(quiet.out, !Catch::Contains("tasks done"));
  // Not a terminal: never.
  auto piped = sh(fmt::format("PYPTO_PROGRESS_DELAY_MS=0 '{}' --seed 1 2>&1 | cat", run));
  CHECK(piped.code == 0);
  CHECK_THAT(piped.out, !Catch::Contains("tasks done"));
  // The default waits a second: a short run on a terminal prints no progress line.
  auto brief = on_terminal({run, "--seed", "1"}, nullptr);
  CHECK(brief.code == 0);
  CHECK_THAT(brief.out, !Catch::Contains("tasks done"));
}
