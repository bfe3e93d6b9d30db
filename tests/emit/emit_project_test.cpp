// write_project / render_project on whole programs: the file set, build.ninja and
// compile_commands.json, determinism (byte-identical re-emit), and safe replacement (a failed
// emit leaves the previous project untouched; a successful one drops the stale files it
// generated and nothing else).
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "emit/emit_options.h"
#include "emit_test_util.h"
#include "ir/soc.h"

using namespace emit_test;
using namespace pypto;
namespace fs = std::filesystem;

namespace {

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = read_file(e.path().string());
  return out;
}

// The value of `name = ...` in build.ninja.
std::string ninja_var(const std::string& n, const std::string& name) {
  const auto l = lines_starting(n, {name + " = "});
  return l.empty() ? std::string("<missing>") : l[0].substr(name.size() + 3);
}

}  // namespace

TEST_CASE("project file set and build.ninja", "[emit]") {
  auto p = compile_program("e2e_chain.py");
  emit::EmitOptions o;
  o.cxx = "g++-13";
  o.launcher = "ccache";
  o.soc = ir::Soc::Ascend950;
  const std::string out = std::string(PYPTO_TEST_WORK_DIR) + "/fileset";
  const auto files = emit::render_project(*p, o, out);
  std::set<std::string> names;
  for (const auto& [k, v] : files) names.insert(k);
  CHECK(names == std::set<std::string>{"README.md", "build.ninja", "compile_commands.json", "kernel_config.py",
                                       "kernels/aiv/scale.cpp", "kernels/aiv/shift.cpp", "orchestration/chain.cpp",
                                       "runner/program_table.cpp"});
  const std::string& n = files.at("build.ninja");
  INFO(n);
  CHECK(n.find("\ncxx = g++-13\n") != std::string::npos);
  CHECK(n.find("\nlauncher = ccache\n") != std::string::npos);
  CHECK(n.find("\nruntime = " + std::string(PYPTO_SOURCE_DIR) + "/runtime\n") != std::string::npos);
  CHECK(n.find("-D__CPU_SIM -DPYPTO_SOC_950 -I$runtime/include") != std::string::npos);
  CHECK(n.find("\nkernelflags = -Wno-attributes\n") != std::string::npos);
  CHECK(n.find("\nkernelpch = \n") != std::string::npos);  // g++-13 did not build pypto's PCH
  CHECK(n.find("command = $launcher $cxx $cxxflags $kernelflags $kernelpch -D__DAV_VEC__ -Dkernel_entry=$entry") != std::string::npos);
  CHECK(n.find("command = $launcher $cxx $cxxflags $kernelflags $kernelpch -D__DAV_CUBE__ -Dkernel_entry=$entry") != std::string::npos);
  CHECK(n.find("build obj/kernels/aiv/scale.o: aiv kernels/aiv/scale.cpp\n  entry = pypto_kernel_scale\n") != std::string::npos);
  CHECK(n.find("build obj/orchestration/chain.o: cxx orchestration/chain.cpp\n") != std::string::npos);
  CHECK(n.find("build obj/runner/program_table.o: cxx runner/program_table.cpp\n") != std::string::npos);
  // The runtime is not compiled here: bin/run links the project's 4 objects and the prebuilt
  // runner + runtime libraries, which exist.
  CHECK(n.find("$runtime/src") == std::string::npos);
  CHECK(n.find("obj/runtime/") == std::string::npos);
  CHECK(lines_starting(n, {"build "}).size() == 6);  // 4 compiles + 1 link + the kernels library
  const std::string prebuilt = ninja_var(n, "prebuilt");
  CHECK(fs::is_regular_file(prebuilt + "/lib/libpypto_runtime.a"));
  CHECK(fs::is_regular_file(prebuilt + "/lib/libpypto_runner.a"));
  const auto link = lines_starting(n, {"build bin/run: link "});
  REQUIRE(link.size() == 1);
  CHECK(count_of(link[0], ".o") == 4);
  CHECK(link[0].find(".o $prebuilt/lib/libpypto_runner.a $prebuilt/lib/libpypto_runtime.a") != std::string::npos);
  CHECK(n.find("command = $cxx $in -o $out $linkflags") != std::string::npos);
  CHECK(ninja_var(n, "linkflags") == "-pthread -ldl");  // the runtime library links nothing else
  CHECK(n.find("\ndefault bin/run lib/libkernels.a\n") != std::string::npos);
  CHECK(n.find("\nbuild lib/libkernels.a: ar obj/kernels/aiv/") != std::string::npos);
  // compile_commands.json: one entry per compile, in the project directory.
  const std::string& cc = files.at("compile_commands.json");
  CHECK(count_of(cc, "\"directory\": \"" + out + "\"") == 4);
  CHECK(cc.find("-Wno-attributes -D__DAV_VEC__ -Dkernel_entry=pypto_kernel_shift -c kernels/aiv/shift.cpp -o obj/kernels/aiv/shift.o") !=
        std::string::npos);
  CHECK(cc.find("-include") == std::string::npos);
  // README names the two commands, relative to the project directory.
  CHECK(files.at("README.md").find("\n    ninja && bin/run --seed 1 --outputs results\n") != std::string::npos);
  CHECK(files.at("README.md").find(out) == std::string::npos);
}

TEST_CASE("kernels use the prebuilt PCH only with the compiler that built it", "[emit]") {
  auto p = compile_program("e2e_chain.py");
  const std::string out = std::string(PYPTO_TEST_WORK_DIR) + "/pch";
  emit::EmitOptions o;
  const std::string pch_root = emit::prebuilt_dir(o) + "/pch";
  const std::string built_by = lines_of(read_file(pch_root + "/compiler")).at(0);
  REQUIRE(fs::is_regular_file(built_by));
  for (auto soc : {ir::Soc::Ascend910B, ir::Soc::Ascend950}) {
    o.soc = soc;
    o.cxx = built_by;
    const std::string header = pch_root + "/" + std::string(ir::soc_info(soc).cli_name) + "/pypto_kernel_pch.h";
    CHECK(fs::is_regular_file(header + ".gch"));
    CHECK(emit::kernel_pch(o) == header);
    const std::string n = emit::render_project(*p, o, out).at("build.ninja");
    INFO(n);
    CHECK(ninja_var(n, "kernelpch") == "-include " + header + " -Winvalid-pch -Wno-stringop-overflow");
    // Every kernel depends on the .gch (GCC's depfile does not name it); other compiles do not.
    CHECK(n.find("build obj/kernels/aiv/scale.o: aiv kernels/aiv/scale.cpp | " + header + ".gch\n") != std::string::npos);
    CHECK(n.find("build obj/runner/program_table.o: cxx runner/program_table.cpp\n") != std::string::npos);
  }
  // The same compiler through a symlink still matches; any other compiler gets no PCH.
  const fs::path link = fs::path(PYPTO_TEST_WORK_DIR) / "cxx-link";
  fs::create_directories(link.parent_path());
  fs::remove(link);
  fs::create_symlink(built_by, link);
  o.cxx = link.string();
  CHECK_FALSE(emit::kernel_pch(o).empty());
  for (const char* other : {"clang++-no-such", "g++-13", "ccache c++", "/no/such/c++"}) {
    o.cxx = other;
    CHECK(emit::kernel_pch(o).empty());
  }
}

TEST_CASE("emit is deterministic and replaces the project safely", "[emit]") {
  const fs::path work = PYPTO_TEST_WORK_DIR;
  const fs::path out = work / "atomic";
  fs::remove_all(out);
  auto chain = compile_program("e2e_chain.py");
  emit::write_project(*chain, emit::EmitOptions{}, out.string());
  REQUIRE(fs::exists(out / "kernels/aiv/scale.cpp"));
  auto p = compile_program("e2e_softmax.py");
  emit::write_project(*p, emit::EmitOptions{}, out.string());  // another program into the same OUT
  auto first = snapshot(out);
  CHECK(first.size() == 8);  // one kernel, six other files, the marker
  CHECK(first.count(".pypto-project") == 1);
  CHECK_FALSE(fs::exists(out / "kernels/aiv/scale.cpp"));  // the first program's files are gone

  // Same input → byte-identical files (also from an independent compile of the same source).
  auto p2 = compile_program("e2e_softmax.py");
  auto rendered = emit::render_project(*p2, emit::EmitOptions{}, out.string());
  first.erase(".pypto-project");
  CHECK(rendered == first);
  fs::create_directories(out / "obj");
  { std::ofstream(out / "notes.txt") << "the user's"; }
  emit::write_project(*p2, emit::EmitOptions{}, out.string());
  auto again = snapshot(out);
  CHECK(again.at("notes.txt") == "the user's");  // not generated by pypto: left alone
  again.erase("notes.txt");
  again.erase(".pypto-project");
  CHECK(again == first);
  CHECK(fs::exists(out / "obj"));  // build outputs survive

  // A failing emit (here: no runtime) leaves the previous project as it was, and no temp dirs.
  { std::ofstream(out / "marker.txt") << "keep me"; }
  auto before = snapshot(out);
  emit::EmitOptions bad;
  bad.runtime_dir = (work / "no-such-runtime").string();
  CHECK_THROWS_AS(emit::write_project(*p2, bad, out.string()), ir::CompileError);
  CHECK(snapshot(out) == before);
  for (const auto& e : fs::directory_iterator(work))
    CHECK(e.path().filename().string().find("pypto-tmp") == std::string::npos);

  // A failing kernel does not touch it either: here an op without a kernel form that reached the
  // emitter because CheckKernelForms was left out of the pipeline (an internal error).
  std::vector<std::string> all_but_check;
  for (const auto& n : passes::pass_names())
    if (n != "CheckKernelForms") all_but_check.push_back(n);
  pypto::ir::DiagnosticSink sink;
  auto deferred_src = parser::parse_source(std::make_shared<ir::SourceFile>("deferred.py", R"(import pypto.language as pl

@pl.program
class Sl:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        pl.system.fence()
        return pl.store(t, [0, 0], out, [32, 128])

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        out = self.k(x, out)
        return out
)"), {}, sink);
  passes::PassContext ctx;
  auto deferred_prog = passes::run_passes(deferred_src, all_but_check, ctx);
  try {
    emit::write_project(*deferred_prog, emit::EmitOptions{}, out.string());
    FAIL("expected an InternalError");
  } catch (const ir::InternalError& e) {
    CHECK(e.stage() == "kernel emitter");
    INFO(e.what());
    CHECK(std::string(e.what()).find("pl.system.fence") != std::string::npos);
    CHECK(e.span().line == 8);  // the fence
  }
  CHECK(snapshot(out) == before);
}

TEST_CASE("every test program either emits or is rejected with a located CompileError", "[emit]") {
  for (const auto& e : fs::recursive_directory_iterator(PYPTO_TEST_PROGRAMS)) {
    if (e.path().extension() != ".py") continue;
    const std::string name = fs::relative(e.path(), PYPTO_TEST_PROGRAMS).string();  // forms/ included
    ir::ProgramPtr p;
    try {
      p = compile_program(name);
    } catch (const std::exception&) {
      continue;  // rejected before the emitter: not this test's concern
    }
    INFO(name);
    try {
      const auto files = emit::render_project(*p, emit::EmitOptions{}, std::string(PYPTO_TEST_WORK_DIR) + "/all");
      CHECK(files.count("build.ninja") == 1);
    } catch (const ir::CompileError& err) {
      REQUIRE_FALSE(err.diagnostics().empty());
      CHECK_FALSE(err.diagnostics()[0].message.empty());
    }
  }
}

TEST_CASE("the generated README lists the entry's parameters as bin/run sees them", "[emit]") {
  auto p = compile_program("e2e_elementwise.py");
  const auto files = emit::render_project(*p, emit::EmitOptions{}, (fs::path(PYPTO_TEST_WORK_DIR) / "readme").string());
  const std::string& r = files.at("README.md");
  INFO(r);
  CHECK(r.find("| `x` | FP32[64, 128] | In | read from `--inputs DIR/` `x.npy` (<f4) |") != std::string::npos);
  CHECK(r.find("| `alpha` | Scalar FP32 | In | `--scalar alpha=VALUE` |") != std::string::npos);
  CHECK(r.find("| `z` | FP32[64, 128] | Out | written to `--outputs DIR/` `z.npy` (<f4) |") != std::string::npos);
}

TEST_CASE("the emitters verify the properties they require once, before rendering", "[emit]") {
  // The front end's IR, without the pipeline: not SSA-converted, not planned.
  pypto::ir::DiagnosticSink sink;
  const std::string path = std::string(PYPTO_TEST_PROGRAMS) + "/e2e_chain.py";
  auto raw = pypto::parser::parse_source(std::make_shared<pypto::ir::SourceFile>(path, read_file(path)), {}, sink);
  try {
    emit::render_project(*raw, emit::EmitOptions{}, std::string(PYPTO_TEST_WORK_DIR) + "/unplanned");
    FAIL("rendered unplanned IR");
  } catch (const pypto::ir::InternalError& e) {
    CHECK(e.stage() == "emit");
    CHECK(std::string(e.what()).find("run the full pass pipeline") != std::string::npos);
  }
  CHECK(emit::emit_required_properties().contains(pypto::ir::Property::AllocatedMemoryAddr));
  CHECK(emit::emit_required_properties().contains(pypto::ir::Property::TensorAllocsPlanned));
}
