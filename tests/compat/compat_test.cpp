// Opt-in compatibility check: the C++ that pypto generates (kernels/aiv/*.cpp, kernels/aic/*.cpp,
// orchestration/*.cpp) must compile against the REAL pto-isa CPU headers and simpler's runtime
// headers, not only against our clean-room runtime/include. Each file is compiled with
// -fsyntax-only the way the reference compiles kernels for its simulator (__CPU_SIM, core macro,
// the same include dirs; output-format.md §7), for both SoCs (910b → simpler's a2a3 runtime, 950 →
// a5). The hand-written probes in probes/ (same layout as a generated project) cover the API
// surface beyond what the e2e programs use and are compiled against both header sets.
//
// Enabled by configuring CMake with -DPYPTO_COMPAT_PTO_ISA=<pto-isa checkout at cd4a3d3f> and
// -DPYPTO_COMPAT_SIMPLER=<simpler checkout> (tests/compat/CMakeLists.txt turns them into the
// compile definitions below); without them the test prints "skipped" and passes. The compiler is
// $PYPTO_COMPAT_CXX (default clang++-16; pto-isa's CPU headers need C++20 and clang >= 15 or
// GCC >= 13), extra flags may be added with $PYPTO_COMPAT_CXXFLAGS.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef PYPTO_COMPAT_PTO_ISA_DIR
#define PYPTO_COMPAT_PTO_ISA_DIR ""
#endif
#ifndef PYPTO_COMPAT_SIMPLER_DIR
#define PYPTO_COMPAT_SIMPLER_DIR ""
#endif

namespace fs = std::filesystem;

namespace {

std::string quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

struct RunResult {
  int status;
  std::string output;
};

// Runs a shell command, capturing stdout+stderr through a log file.
RunResult run(const std::string& cmd, const fs::path& log) {
  int st = std::system((cmd + " > " + quote(log.string()) + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, ss.str()};
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : fallback;
}

// How to compile one kind of generated file against one set of headers.
struct HeaderSet {
  std::string name;
  std::vector<std::string> kernel_includes;
  std::vector<std::string> orch_includes;
};

// The real headers, laid out as in the reference's simulator build (runtime
// tensormap_and_ringbuffer of simpler's `arch` tree: a2a3 for 910B, a5 for 950): kernels see
// pto-isa plus simpler's task_interface (tensor.h), the runtime's common/ (intrinsic.h) and their
// dependencies; orchestration sees pto_orchestration_api.h and the runtime headers it includes.
HeaderSet real_headers(const fs::path& pto_isa, const fs::path& simpler, const std::string& arch) {
  const fs::path rt_root = simpler / "src" / arch / "runtime";
  const fs::path rt = rt_root / "tensormap_and_ringbuffer";
  const fs::path common = simpler / "src/common";
  auto s = [](const fs::path& p) { return p.string(); };
  HeaderSet h;
  h.name = "real pto-isa + simpler (" + arch + ")";
  h.kernel_includes = {s(pto_isa / "include"),      s(pto_isa / "include/pto"), s(simpler / "simpler_setup/incore"),
                       s(common / "platform/include"), s(rt / "runtime"),      s(rt / "common"),
                       s(rt_root),                    s(common),                s(common / "task_interface")};
  h.orch_includes = {s(rt / "orchestration"), s(rt / "runtime"), s(rt / "common"), s(rt_root),
                     s(common),               s(common / "task_interface"),       s(common / "platform/include")};
  return h;
}

HeaderSet our_headers() {
  const std::string inc = (fs::path(PYPTO_SOURCE_DIR) / "runtime/include").string();
  return {"pypto runtime/include", {inc}, {inc}};
}

enum class Kind { Aiv, Aic, Orchestration };

std::string compiler() { return env_or("PYPTO_COMPAT_CXX", "clang++-16"); }

std::string compile_command(const fs::path& src, Kind kind, const HeaderSet& h) {
  const std::string cxx = compiler();
  std::string cmd = quote(cxx) + " -fsyntax-only -std=c++20";
  // pto-isa's cpu/TReduceIdx.hpp has a static_assert(false, ...) in a primary class template
  // (accepted since P2593: clang >= 17, GCC >= 13). clang-16 rejects it while parsing the
  // template; delayed template parsing defers template bodies to their instantiation, which keeps
  // every check on the generated code (it has no templates of its own) and on instantiated
  // pto-isa templates.
  if (kind != Kind::Orchestration && fs::path(cxx).filename().string().find("clang") != std::string::npos)
    cmd += " -fdelayed-template-parsing";
  if (kind == Kind::Aiv) cmd += " -D__CPU_SIM -D__DAV_VEC__";
  if (kind == Kind::Aic) cmd += " -D__CPU_SIM -D__DAV_CUBE__";
  for (const auto& d : kind == Kind::Orchestration ? h.orch_includes : h.kernel_includes) cmd += " -I" + quote(d);
  const std::string extra = env_or("PYPTO_COMPAT_CXXFLAGS", "");
  if (!extra.empty()) cmd += " " + extra;
  return cmd + " " + quote(src.string());
}

struct Config {
  bool enabled = false;
  std::string why_not;
  fs::path pto_isa, simpler;
};

Config config() {
  Config c;
  c.pto_isa = PYPTO_COMPAT_PTO_ISA_DIR;
  c.simpler = PYPTO_COMPAT_SIMPLER_DIR;
  if (c.pto_isa.empty() || c.simpler.empty()) {
    c.why_not = "configure with -DPYPTO_COMPAT_PTO_ISA=<pto-isa checkout> -DPYPTO_COMPAT_SIMPLER=<simpler checkout> "
                "to check generated code against the real headers (see README)";
    return c;
  }
  c.enabled = true;
  return c;
}

// A configured but unusable setup is a failure (the user asked for the check), not a skip.
void require_usable(const Config& c) {
  const fs::path must_exist[] = {
      c.pto_isa / "include/pto/pto-inst.hpp",
      c.simpler / "src/common/task_interface/tensor.h",
      c.simpler / "src/a2a3/runtime/tensormap_and_ringbuffer/common/intrinsic.h",
      c.simpler / "src/a2a3/runtime/tensormap_and_ringbuffer/orchestration/pto_orchestration_api.h",
  };
  for (const auto& p : must_exist) {
    INFO("missing " << p.string() << ": PYPTO_COMPAT_PTO_ISA / PYPTO_COMPAT_SIMPLER must point at checkouts");
    REQUIRE(fs::exists(p));
  }
  fs::create_directories(PYPTO_TEST_WORK_DIR);
  auto r = run(quote(compiler()) + " --version", fs::path(PYPTO_TEST_WORK_DIR) / "cxx_version.log");
  INFO("compiler '" << compiler() << "' not usable (install clang-16 or set PYPTO_COMPAT_CXX):\n" << r.output);
  REQUIRE(r.status == 0);
}

std::vector<fs::path> cpp_files(const fs::path& dir) {
  std::vector<fs::path> v;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".cpp") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

// Compiles every kernels/aiv, kernels/aic and orchestration .cpp of a project directory (a
// generated one or the probes) against one header set; logs go to log_dir.
void check_project(const fs::path& project, const HeaderSet& h, const fs::path& log_dir) {
  fs::create_directories(log_dir);
  const struct {
    const char* sub;
    Kind kind;
  } parts[] = {{"kernels/aiv", Kind::Aiv}, {"kernels/aic", Kind::Aic}, {"orchestration", Kind::Orchestration}};
  size_t kernels = 0, orchestrations = 0;
  for (const auto& part : parts) {
    for (const auto& src : cpp_files(project / part.sub)) {
      (part.kind == Kind::Orchestration ? orchestrations : kernels) += 1;
      const std::string cmd = compile_command(src, part.kind, h);
      const auto r = run(cmd, log_dir / (src.stem().string() + ".log"));
      INFO("compiling " << src.string() << " against " << h.name << ":\n" << cmd << "\n" << r.output);
      CHECK(r.status == 0);
    }
  }
  INFO("project " << project.string());
  CHECK(kernels > 0);
  CHECK(orchestrations > 0);
}

}  // namespace

TEST_CASE("hand-written probes compile against the real headers and ours", "[compat]") {
  const Config c = config();
  if (!c.enabled) {
    WARN("skipped: " << c.why_not);
    SUCCEED();
    return;
  }
  require_usable(c);
  // The probes use a2a3's launch_spec.set_block_num(); simpler's a5 runtime calls it set_core_num().
  const fs::path probes = fs::path(PYPTO_SOURCE_DIR) / "tests/compat/probes";
  const fs::path logs = fs::path(PYPTO_TEST_WORK_DIR) / "probes";
  check_project(probes, real_headers(c.pto_isa, c.simpler, "a2a3"), logs / "real");
  check_project(probes, our_headers(), logs / "ours");
}

TEST_CASE("generated kernels and orchestration compile against the real pto-isa and simpler", "[compat]") {
  const Config c = config();
  if (!c.enabled) {
    WARN("skipped: " << c.why_not);
    SUCCEED();
    return;
  }
  require_usable(c);
  std::vector<fs::path> programs;
  // Programs of the 950 only: the MX matmul (TMATMUL_MX, ScaleLeft / ScaleRight tiles, MX_A_ZZ /
  // MX_B_NN GlobalTensors).
  const auto only_950 = [](const fs::path& p) { return p.filename() == "mx_matmul.py"; };
  for (const auto& e : fs::directory_iterator(PYPTO_TEST_PROGRAMS)) {
    const std::string name = e.path().filename().string();
    // The e2e programs and the mixed AIC + AIV kernels (TPipe / TPUSH / TPOP / TFREE, MixedKernels),
    // and programs with a form no e2e one has: TMRGSORT's list form with its template arguments
    // (topk_rows), mutable ChipTensor loop carries (ping_pong), add_output(TensorCreateInfo)
    // (runtime_outputs), SYNCALL in both forms and rt_available_aiv_count (syncall_blocks), TLOAD
    // into a GetTileOffset window of a Mat tile (gather_rows_l1), a window of an Acc tile in a
    // kernel of its own (matmul_valid_rows).
    const bool listed = name.rfind("e2e_", 0) == 0 || name.rfind("mixed_", 0) == 0 || name == "topk_rows.py" ||
                        name == "ping_pong.py" || name == "runtime_outputs.py" || name == "syncall_blocks.py" ||
                        name == "gather_rows_l1.py" || name == "matmul_valid_rows.py" || only_950(e.path());
    if (listed && e.path().extension() == ".py") programs.push_back(e.path());
  }
  std::sort(programs.begin(), programs.end());
  REQUIRE(!programs.empty());
  // pypto --soc → simpler's architecture tree.
  const std::pair<const char*, const char*> targets[] = {{"910b", "a2a3"}, {"950", "a5"}};
  for (const auto& [soc, arch] : targets) {
    const HeaderSet real = real_headers(c.pto_isa, c.simpler, arch);
    for (const auto& prog : programs) {
      if (only_950(prog) && std::string(soc) != "950") continue;
      const std::string name = prog.stem().string() + "_" + soc;
      const fs::path out = fs::path(PYPTO_TEST_WORK_DIR) / name;
      fs::remove_all(out);
      const std::string build = quote(PYPTO_BIN) + " build " + quote(prog.string()) + " -o " + quote(out.string()) +
                                " --soc " + soc + " --emit-only";
      const auto b = run(build, fs::path(PYPTO_TEST_WORK_DIR) / (name + ".build.log"));
      INFO(build << "\n" << b.output);
      REQUIRE(b.status == 0);
      check_project(out, real, fs::path(PYPTO_TEST_WORK_DIR) / (name + ".logs"));
    }
  }
}
