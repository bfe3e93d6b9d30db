// Opt-in compatibility check: the C++ that pypto generates (kernels/aiv/*.cpp, kernels/aic/*.cpp,
// orchestration/*.cpp) must compile against the REAL pto-isa CPU headers and simpler's runtime
// headers, not only against our clean-room runtime/include. Each file is compiled with
// -fsyntax-only the way the reference compiles kernels for its simulator (__CPU_SIM, core macro,
// the same include dirs; output-format.md §7).
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

// The real headers, laid out as in the reference's simulator build (a2a3, runtime
// tensormap_and_ringbuffer): kernels see pto-isa plus simpler's task_interface (tensor.h),
// the runtime's common/ (intrinsic.h) and their dependencies; orchestration sees
// pto_orchestration_api.h and the runtime headers it includes.
HeaderSet real_headers(const fs::path& pto_isa, const fs::path& simpler) {
  const fs::path rt_root = simpler / "src/a2a3/runtime";
  const fs::path rt = rt_root / "tensormap_and_ringbuffer";
  const fs::path common = simpler / "src/common";
  auto s = [](const fs::path& p) { return p.string(); };
  HeaderSet h;
  h.name = "real pto-isa + simpler";
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

// Hand-written probes in the generated-code style (output-format.md §2, §4): they prove that the
// flags and include dirs are right, independently of the emitter.
constexpr const char* kProbeAiv = R"cpp(// probe: vector kernel
#include <cstdint>
#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#if defined(__CPU_SIM)
#define __aicore__
#else
#define __aicore__ [aicore]
#endif
#endif
#include <pto/pto-inst.hpp>
#include "tensor.h"
#include "intrinsic.h"
using namespace pto;

using Blk = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                 CompactMode::Null>;
using Col = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                 CompactMode::Null>;
using GBlk = GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND>;

static __aicore__ void probe_vec(__gm__ float* a, __gm__ float* out, float k, int64_t n, int32_t blk) {
#if defined(__DAV_VEC__)
  set_mask_norm();
  set_vector_mask(-1, -1);
  Blk ta(16, 64);
  TASSIGN(ta, (uint64_t)0);
  Blk tb(16, 64);
  TASSIGN(tb, (uint64_t)4096);
  Col tr(16, 1);
  TASSIGN(tr, (uint64_t)8192);
  for (int64_t i = 0; i < n; i += 1) {
    GBlk ga(a + (blk + i) * 1024);
    TLOAD(ta, ga);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(tb, ta, k);
    pipe_barrier(PIPE_V);
    TROWMAX(tr, tb, ta);
    pipe_barrier(PIPE_V);
    TROWEXPANDSUB(tb, tb, tr);
    pipe_barrier(PIPE_V);
    TEXP(tb, tb);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    GBlk go(out + (blk + i) * 1024);
    TSTORE(go, tb);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
  }
#endif
  pipe_barrier(PIPE_ALL);
  return;
}

extern "C" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t* args) {
#if !defined(__CPU_SIM) && !defined(__COSTMODEL)
  set_atomic_none();
#endif
  __gm__ ChipTensor* a_d = reinterpret_cast<__gm__ ChipTensor*>(args[0]);
  __gm__ ChipTensor* out_d = reinterpret_cast<__gm__ ChipTensor*>(args[1]);
  __gm__ float* a = reinterpret_cast<__gm__ float*>(a_d->buffer.addr) + a_d->start_offset;
  __gm__ float* out = reinterpret_cast<__gm__ float*>(out_d->buffer.addr) + out_d->start_offset;
  union { uint64_t u64; float val; } k_bits;
  k_bits.u64 = static_cast<uint64_t>(args[2]);
  int64_t n = static_cast<int64_t>(a_d->shapes[0]) / 16;
  probe_vec(a, out, k_bits.val, n, get_block_idx(args));
}
)cpp";

constexpr const char* kProbeAic = R"cpp(// probe: cube kernel
#include <cstdint>
#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#if defined(__CPU_SIM)
#define __aicore__
#else
#define __aicore__ [aicore]
#endif
#endif
#include <pto/pto-inst.hpp>
#include "tensor.h"
using namespace pto;

static __aicore__ void probe_cube(__gm__ half* a, __gm__ half* b, __gm__ float* c) {
#if defined(__DAV_CUBE__)
  using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null,
                    CompactMode::Null>;
  using LeftT = Tile<TileType::Left, half, 32, 32, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null,
                     CompactMode::Null>;
  using RightT = Tile<TileType::Right, half, 32, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512,
                      PadValue::Null, CompactMode::Null>;
  using AccT = Tile<TileType::Acc, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024, PadValue::Null,
                    CompactMode::Null>;
  using GIn = GlobalTensor<half, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>;
  using GOut = GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>;
  MatT ma(32, 32);
  TASSIGN(ma, (uint64_t)0);
  MatT mb(32, 32);
  TASSIGN(mb, (uint64_t)2048);
  LeftT l(32, 32);
  TASSIGN(l, (uint64_t)0);
  RightT r(32, 32);
  TASSIGN(r, (uint64_t)0);
  AccT acc(32, 32);
  TASSIGN(acc, (uint64_t)0);
  GIn ga(a), gb(b);
  GOut gc(c);
  TLOAD(ma, ga);
  TLOAD(mb, gb);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TMOV(l, ma);
  TMOV(r, mb);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  TMATMUL(acc, l, r);
  TMATMUL_ACC(acc, acc, l, r);
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  TSTORE(gc, acc);
#endif
  pipe_barrier(PIPE_ALL);
  return;
}

extern "C" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t* args) {
#if !defined(__CPU_SIM) && !defined(__COSTMODEL)
  set_atomic_none();
#endif
  __gm__ ChipTensor* a_d = reinterpret_cast<__gm__ ChipTensor*>(args[0]);
  __gm__ ChipTensor* b_d = reinterpret_cast<__gm__ ChipTensor*>(args[1]);
  __gm__ ChipTensor* c_d = reinterpret_cast<__gm__ ChipTensor*>(args[2]);
  probe_cube(reinterpret_cast<__gm__ half*>(a_d->buffer.addr) + a_d->start_offset,
             reinterpret_cast<__gm__ half*>(b_d->buffer.addr) + b_d->start_offset,
             reinterpret_cast<__gm__ float*>(c_d->buffer.addr) + c_d->start_offset);
}
)cpp";

constexpr const char* kProbeOrch = R"cpp(// probe: orchestration
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default")))
PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& orch_args) {
  (void)orch_args;
  return PTO2OrchestrationConfig{.expected_arg_count = 3};
}

__attribute__((visibility("default")))
void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {
  const ChipTensor& ext_a = orch_args.tensor(0).ref();
  const ChipTensor& ext_out = orch_args.tensor(1).ref();
  float k = from_u64<float>(orch_args.scalar(0));
  int64_t rows = (int64_t)orch_args.tensor(0).ref().shapes[0];
  PTO2_SCOPE() {
    uint32_t tmp_ci_shapes[2] = {16, 64};
    TensorCreateInfo tmp_ci(tmp_ci_shapes, 2, DataType::FLOAT32);
    TaskOutputTensors alloc_0 = alloc_tensors(tmp_ci);
    const ChipTensor& tmp = alloc_0.get_ref(0);
    for (int64_t i = 0; i < rows; i += 16) {
      PTO2_SCOPE() {
        CoreTaskArgs params_t0;
        params_t0.add_input(ext_a);
        params_t0.add_output(tmp);
        params_t0.add_scalar(to_u64(k));
        rt_submit_aiv_task(0, params_t0);
        CoreTaskArgs params_t1;
        params_t1.add_input(tmp);
        params_t1.add_inout(ext_out);
        rt_submit_aiv_task(1, params_t1);
      }
    }
  }
}

}  // extern "C"
)cpp";

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

void check_compiles(const fs::path& src, Kind kind, const HeaderSet& h) {
  const std::string cmd = compile_command(src, kind, h);
  const auto r = run(cmd, fs::path(src.string() + ".compat.log"));
  INFO("against " << h.name << ":\n" << cmd << "\n" << r.output);
  CHECK(r.status == 0);
}

std::vector<fs::path> cpp_files(const fs::path& dir) {
  std::vector<fs::path> v;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".cpp") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
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
  const fs::path dir = fs::path(PYPTO_TEST_WORK_DIR) / "probes";
  fs::create_directories(dir);
  const struct {
    const char* file;
    const char* text;
    Kind kind;
  } probes[] = {{"probe_aiv.cpp", kProbeAiv, Kind::Aiv},
                {"probe_aic.cpp", kProbeAic, Kind::Aic},
                {"probe_orch.cpp", kProbeOrch, Kind::Orchestration}};
  for (const auto& p : probes) {
    std::ofstream(dir / p.file) << p.text;
    for (const auto& h : {real_headers(c.pto_isa, c.simpler), our_headers()}) check_compiles(dir / p.file, p.kind, h);
  }
}

TEST_CASE("generated kernels and orchestration compile against the real pto-isa and simpler", "[compat]") {
  const Config c = config();
  if (!c.enabled) {
    WARN("skipped: " << c.why_not);
    SUCCEED();
    return;
  }
  require_usable(c);
  const HeaderSet real = real_headers(c.pto_isa, c.simpler);
  std::vector<fs::path> programs;
  for (const auto& e : fs::directory_iterator(PYPTO_TEST_PROGRAMS)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("e2e_", 0) == 0 && e.path().extension() == ".py") programs.push_back(e.path());
  }
  std::sort(programs.begin(), programs.end());
  REQUIRE(!programs.empty());
  for (const auto& prog : programs) {
    const std::string stem = prog.stem().string();
    INFO("program " << prog.string());
    const fs::path out = fs::path(PYPTO_TEST_WORK_DIR) / stem;
    fs::remove_all(out);
    fs::create_directories(out.parent_path());
    const std::string build =
        quote(PYPTO_BIN) + " build " + quote(prog.string()) + " -o " + quote(out.string()) + " --emit-only";
    const auto b = run(build, fs::path(PYPTO_TEST_WORK_DIR) / (stem + ".build.log"));
    INFO(build << "\n" << b.output);
    REQUIRE(b.status == 0);
    const auto aiv = cpp_files(out / "kernels/aiv");
    const auto aic = cpp_files(out / "kernels/aic");
    const auto orch = cpp_files(out / "orchestration");
    CHECK(aiv.size() + aic.size() > 0);
    CHECK(orch.size() > 0);
    for (const auto& f : aiv) check_compiles(f, Kind::Aiv, real);
    for (const auto& f : aic) check_compiles(f, Kind::Aic, real);
    for (const auto& f : orch) check_compiles(f, Kind::Orchestration, real);
  }
}
