// build.ninja / compile_commands.json writer (ninja_emitter.h).
#include "emit/ninja_emitter.h"

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "emit/kernel_emitter.h"
#include "ir/diagnostic.h"

namespace fs = std::filesystem;

namespace pypto::emit {

using namespace ir;

namespace {

// The compile flags, in one place: build.ninja (through the template's variables) and
// compile_commands.json spell the same commands.
std::string common_flags(const EmitOptions& opts) {
  return std::string("-std=c++20 -O2 -pthread -D__CPU_SIM") + (opts.soc == Soc::Ascend950 ? " -DPYPTO_SOC_950" : "");
}
// Kernels keep the hardware entry's always_inline attribute; renamed with -Dkernel_entry=... to
// link several into one CPU executable, it cannot be inlined, which GCC would warn about.
constexpr const char* kKernelFlags = "-Wno-attributes";
constexpr const char* kAivDefine = "-D__DAV_VEC__";
constexpr const char* kAicDefine = "-D__DAV_CUBE__";

// A ninja variable value: only `$` is special there (spaces and colons are literal).
std::string ninja_value(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\n') {
      o += ' ';
      continue;
    }
    if (c == '$') o += '$';
    o += c;
  }
  return o;
}

struct Compile {
  std::string rule;    // aiv / aic / cxx
  std::string src;     // ninja path, relative to the project
  std::string obj;
  std::string entry;   // kernels only
};

// What bin/run links after the project's objects, in this order (the runner's main() needs the
// program table from the objects, both need the runtime library).
constexpr const char* kRuntimeLibs[] = {"libpypto_runner.a", "libpypto_runtime.a"};
// What the runtime library itself links (CMakeLists.txt, pypto_runtime_library): threads for the
// executor, dlopen for OpenBLAS (loaded at run time). Highway is used header-only.
constexpr const char* kRuntimeLinkFlags = "-pthread -ldl";
// With the kernel PCH: a stale .gch must be visible (-Winvalid-pch). GCC 12 loses the
// system-header mark of libstdc++ code read from a PCH and then reports its known
// -Wstringop-overflow false positive for std::string concatenation (GCC PR 105651) in every kernel.
constexpr const char* kPchFlags = "-Winvalid-pch -Wno-stringop-overflow";

}  // namespace

BuildFiles emit_build_files(const Function& orch, const std::vector<const Function*>& kernels, const ProjectNames& names,
                            const EmitOptions& opts, const std::string& out_dir_abs) {
  const std::string rt = runtime_dir(opts);
  if (!fs::exists(fs::path(rt) / "include" / "pypto_rt" / "program.h"))
    throw CompileError("E901", orch.span, fmt::format("the pypto runtime was not found at '{}'", rt),
                       "pass the runtime directory explicitly (it contains include/)");
  const std::string pre = prebuilt_dir(opts);
  for (const char* lib : kRuntimeLibs)
    if (!fs::exists(fs::path(pre) / "lib" / lib))
      throw CompileError("E901", orch.span,
                         fmt::format("the prebuilt pypto runtime library '{}/lib/{}' was not found", pre, lib),
                         "build pypto's own targets first (cmake --build build --target pypto), or reinstall pypto");
  const std::string pch = kernel_pch(opts);
  std::vector<Compile> cs;
  for (const Function* k : kernels) {
    const std::string core = kernel_core_dir(*k);
    const std::string& stem = names.stem(*k);
    cs.push_back({core, fmt::format("kernels/{}/{}.cpp", core, stem), fmt::format("obj/kernels/{}/{}.o", core, stem),
                  names.entry_symbol(*k)});
  }
  const std::string& orch_stem = names.stem(orch);
  cs.push_back({"cxx", fmt::format("orchestration/{}.cpp", orch_stem), fmt::format("obj/orchestration/{}.o", orch_stem), ""});
  cs.push_back({"cxx", "runner/program_table.cpp", "obj/runner/program_table.o", ""});
  // Shell-quoted only when the runtime's path needs it (then spelled out instead of $runtime).
  const std::string inc = rt + "/include";
  const std::string runtime_include = shell_word(inc) == inc ? "$runtime/include" : ninja_value(shell_word(inc));

  BuildFiles out;
  out.build_ninja = fill_template(
      load_template(opts, "build.ninja.in"),
      {{"name", orch.name}, {"cxx", ninja_value(opts.cxx.empty() ? "c++" : opts.cxx)},
       {"launcher", ninja_value(opts.launcher)}, {"runtime", ninja_value(rt)}, {"runtime_include", runtime_include},
       {"prebuilt", ninja_value(pre)}, {"cxxflags", common_flags(opts)}, {"kernelflags", kKernelFlags},
       {"kernelpch", pch.empty() ? std::string() : ninja_value(fmt::format("-include {} {}", shell_word(pch), kPchFlags))},
       {"aiv_define", kAivDefine}, {"aic_define", kAicDefine}, {"linkflags", kRuntimeLinkFlags}});
  std::vector<std::string> objs, kernel_objs;
  // GCC's depfile of a compile that used a PCH names neither the .gch nor the headers in it: a
  // kernel depends on the .gch explicitly, so a rebuilt pypto runtime recompiles the kernels.
  for (const auto& c : cs) {
    out.build_ninja += fmt::format("build {}: {} {}{}\n", ninja_escape_path(c.obj), c.rule, ninja_escape_path(c.src),
                                   c.entry.empty() || pch.empty() ? "" : " | " + ninja_escape_path(pch + ".gch"));
    if (!c.entry.empty()) out.build_ninja += fmt::format("  entry = {}\n", c.entry);
    objs.push_back(ninja_escape_path(c.obj));
    if (!c.entry.empty()) kernel_objs.push_back(ninja_escape_path(c.obj));
  }
  for (const char* lib : kRuntimeLibs) objs.push_back(fmt::format("$prebuilt/lib/{}", lib));
  out.build_ninja += fmt::format("\nbuild bin/run: link {}\n", fmt::join(objs, " "));
  // The kernels alone, for a build that links them into its own host program (CMake's
  // pypto_add_program exposes it as <target>_kernels): entries are pypto_kernel_<name>.
  if (!kernel_objs.empty())
    out.build_ninja += fmt::format("build lib/libkernels.a: ar {}\n", fmt::join(kernel_objs, " "));
  out.build_ninja += kernel_objs.empty() ? "\ndefault bin/run\n" : "\ndefault bin/run lib/libkernels.a\n";

  // compile_commands.json: the same commands, spelled out, without the launcher and the kernel PCH
  // (clang-based tools cannot read a GCC .gch; kernels include the same headers themselves).
  const std::string flags = fmt::format("{} -I{}", common_flags(opts), shell_word(inc));
  nlohmann::ordered_json db = nlohmann::ordered_json::array();
  for (const auto& c : cs) {
    const std::string& file = c.src;
    std::string extra;
    if (c.rule == "aiv" || c.rule == "aic")
      extra = fmt::format(" {} {} -Dkernel_entry={}", kKernelFlags, c.rule == "aiv" ? kAivDefine : kAicDefine, c.entry);
    const std::string cmd = fmt::format("{} {}{} -c {} -o {}", opts.cxx.empty() ? "c++" : opts.cxx, flags, extra,
                                        shell_word(file), shell_word(c.obj));
    db.push_back({{"directory", out_dir_abs}, {"command", cmd}, {"file", file}, {"output", c.obj}});
  }
  out.compile_commands = db.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  return out;
}

}  // namespace pypto::emit
