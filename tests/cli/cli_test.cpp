// The `pypto` command as a user runs it: exit codes (0 ok, 1 program errors, 2 usage errors),
// --help/--version, check / ir / diff / build, -D overrides, JSON diagnostics, pass dumps,
// deterministic and atomic project output, install layout; OUT directories pypto must not replace
// (exit 2, left as they were), hostile kernel names that still build, incremental regeneration.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli/cli_util.h"

namespace fs = std::filesystem;

namespace {

using namespace clitest;

const char* kBadProgram = R"(import pypto.language as pl

@pl.jit.incore
def k(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    t = pl.load(x, [0, 0], [64, 128])
    t += 1
    pl.store(y, [0, 0], out)
    return out
)";

}  // namespace

TEST_CASE("--help explains every command with examples; --version prints the version", "[cli]") {
  auto h = pypto("--help");
  CHECK(h.code == 0);
  for (const char* cmd : {"check", "ir", "diff", "build"}) CHECK(h.out.find(cmd) != std::string::npos);
  CHECK(h.out.find("Examples:") != std::string::npos);
  auto b = pypto("build --help");
  CHECK(b.code == 0);
  CHECK(b.out.find("--emit-only") != std::string::npos);
  CHECK(b.out.find("--soc") != std::string::npos);
  auto v = pypto("--version");
  CHECK(v.code == 0);
  CHECK(v.out.rfind("pypto ", 0) == 0);
}

TEST_CASE("usage errors exit 2", "[cli]") {
  CHECK(pypto("").code == 2);
  CHECK(pypto("frobnicate").code == 2);
  CHECK(pypto("check").code == 2);                                       // missing FILE
  CHECK(pypto("build " + program("e2e_square.py")).code == 2);           // missing -o
  CHECK(pypto("build " + program("e2e_square.py") + " -o x --soc 123").code == 2);
  auto r = pypto("ir " + program("e2e_square.py") + " --passes NoSuchPass");
  CHECK(r.code == 2);
  CHECK(r.out.find("ConvertToSSA") != std::string::npos);  // lists the valid names
  CHECK(pypto("check " + program("e2e_square.py") + " -D NOEQUALS").code == 2);
}

TEST_CASE("check accepts every test program and reports several located errors at once", "[cli]") {
  for (const auto& e : fs::recursive_directory_iterator(PYPTO_TEST_PROGRAMS)) {
    if (e.path().extension() != ".py") continue;
    auto r = pypto(fmt::format("check '{}'", e.path().string()));
    INFO(e.path().string() << "\n" << r.out);
    CHECK(r.code == 0);
  }
  std::string bad = write_file("bad.py", kBadProgram);
  auto r = pypto("check '" + bad + "'");
  CHECK(r.code == 1);
  CHECK(r.out.find("error[E001]: Unsupported statement type: AugAssign") != std::string::npos);
  CHECK(r.out.find("bad.py:6:5") != std::string::npos);
  CHECK(r.out.find("error[E200]: Undefined variable 'y'") != std::string::npos);
  CHECK(r.out.find("bad.py:7:14") != std::string::npos);
  CHECK(r.out.find("    t += 1") != std::string::npos);  // the source line
  CHECK(r.out.find("^^^^^^") != std::string::npos);      // caret under the span
  CHECK(r.out.find("= help:") != std::string::npos);
  CHECK(r.out.find("aborting due to 2 previous errors") != std::string::npos);
}

TEST_CASE("--diagnostics-format json prints machine-readable diagnostics", "[cli]") {
  std::string bad = write_file("bad_json.py", kBadProgram);
  auto r = pypto("check '" + bad + "' --diagnostics-format json");
  CHECK(r.code == 1);
  CHECK(r.out.find("\"code\": \"E001\"") != std::string::npos);
  CHECK(r.out.find("\"line\": 6") != std::string::npos);
  CHECK(r.out.find("\"col\": 5") != std::string::npos);
  CHECK(r.out.find("aborting") == std::string::npos);  // no human summary mixed into JSON
}

TEST_CASE("unreadable input is a diagnostic, not a crash", "[cli]") {
  auto missing = pypto("check '" + work("does_not_exist.py").string() + "'");
  CHECK(missing.code == 1);
  CHECK(missing.out.find("cannot read") != std::string::npos);
  std::string bin = write_file("latin1.py", "x = '\xff\xfe'\n");
  auto r = pypto("check '" + bin + "'");
  CHECK(r.code == 1);
  CHECK(r.out.find("UTF-8") != std::string::npos);
}

TEST_CASE("ir prints text that reads back to the same text, before and after the pipeline", "[cli]") {
  for (const char* name : {"e2e_softmax.py", "e2e_row_offset.py", "e2e_matmul.py"}) {
    for (const char* passes : {"", " --passes all"}) {
      auto first = pypto(fmt::format("ir {}{}", program(name), passes));
      REQUIRE(first.code == 0);
      std::string again = write_file(fmt::format("reread_{}{}", passes[0] ? "all_" : "", name), first.out);
      auto second = pypto(fmt::format("ir '{}'", again));
      INFO(name << passes << "\n" << second.out);
      REQUIRE(second.code == 0);
      CHECK(second.out == first.out);
    }
  }
}

TEST_CASE("ir --dump-passes writes the IR after each pass, replacing the directory", "[cli]") {
  fs::path dir = work("ir_dumps");
  fs::remove_all(dir);
  REQUIRE(pypto(fmt::format("ir {} --passes all --dump-passes '{}'", program("e2e_chain.py"), dir.string())).code == 0);
  REQUIRE(fs::exists(dir / "05_ConvertToSSA.py"));
  std::ofstream(dir / "notes.txt") << "the user's";
  auto r = pypto(fmt::format("ir {} --passes ConvertToSSA,Simplify --dump-passes '{}'", program("e2e_chain.py"), dir.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(fs::exists(dir / "01_ConvertToSSA.py"));
  CHECK(fs::exists(dir / "02_Simplify.py"));
  CHECK_FALSE(fs::exists(dir / "05_ConvertToSSA.py"));  // a dump of the earlier run: gone
  CHECK(slurp(dir / "notes.txt") == "the user's");       // not pypto's: kept
  CHECK(slurp(dir / "02_Simplify.py") == r.out);  // the last dump is what ir prints
  // A directory pypto did not write is refused (usage error), and left as it was.
  fs::path mine = work("ir_dumps_mine");
  fs::create_directories(mine);
  std::ofstream(mine / "keep.txt") << "keep";
  auto refused = pypto(fmt::format("ir {} --passes all --dump-passes '{}'", program("e2e_chain.py"), mine.string()));
  CHECK(refused.code == 2);
  CHECK(refused.out.find("refusing to replace '" + mine.string() + "'") != std::string::npos);
  CHECK(std::distance(fs::directory_iterator(mine), fs::directory_iterator()) == 1);
  CHECK(pypto(fmt::format("ir {} --dump-passes '{}'", program("e2e_chain.py"), dir.string())).code == 2);  // needs --passes
}

TEST_CASE("-D overrides a module constant", "[cli]") {
  auto def = pypto("ir " + program("e2e_softmax.py"));
  auto big = pypto("ir " + program("e2e_softmax.py") + " -D ROWS=32");
  REQUIRE(def.code == 0);
  REQUIRE(big.code == 0);
  CHECK(def.out.find("[[64, 128], pl.FP32]") != std::string::npos);
  CHECK(big.out.find("[[32, 128], pl.FP32]") != std::string::npos);
  CHECK(big.out.find("[[64, 128], pl.FP32]") == std::string::npos);
}

TEST_CASE("diff: equal programs exit 0, different ones exit 1 naming the first mismatch", "[cli]") {
  auto ir = pypto("ir " + program("e2e_chain.py"));
  REQUIRE(ir.code == 0);
  std::string a = write_file("diff_a.py", ir.out);
  // Rename the local `t` everywhere: names do not matter to structural equality.
  std::string renamed = std::regex_replace(ir.out, std::regex("\\bt\\b"), "tile_renamed");
  REQUIRE(renamed != ir.out);
  std::string b = write_file("diff_b.py", renamed);
  auto same = pypto(fmt::format("diff '{}' '{}'", a, b));
  INFO(same.out);
  CHECK(same.code == 0);
  std::string changed = ir.out;
  changed.replace(changed.find("3.0"), 3, "4.0");
  std::string c = write_file("diff_c.py", changed);
  auto diff = pypto(fmt::format("diff '{}' '{}'", a, c));
  CHECK(diff.code == 1);
  CHECK(diff.out.find("3") != std::string::npos);
  CHECK(diff.out.find("4") != std::string::npos);
  CHECK(diff.out.find("diff_c.py:") != std::string::npos);
}

TEST_CASE("build --emit-only writes the project deterministically and --dump-passes the IR per pass", "[cli]") {
  fs::path out = work("square_out");
  fs::remove_all(out);
  auto r1 = pypto(fmt::format("build {} -o '{}' --emit-only --dump-passes", program("e2e_square.py"), out.string()));
  INFO(r1.out);
  REQUIRE(r1.code == 0);
  for (const char* f : {"kernels/aiv/square_tile.cpp", "orchestration/square.cpp", "kernel_config.py", "build.ninja",
                        "compile_commands.json", "README.md", "runner/program_table.cpp"})
    CHECK(fs::exists(out / f));
  CHECK(fs::exists(out / "passes_dump" / "02_InlineFunctions.py"));
  size_t dumps = 0;
  for (const auto& e : fs::directory_iterator(out / "passes_dump")) dumps += e.path().extension() == ".py";
  CHECK(dumps >= 15);
  auto first = tree(out);
  REQUIRE(pypto(fmt::format("build {} -o '{}' --emit-only --dump-passes", program("e2e_square.py"), out.string())).code == 0);
  CHECK(tree(out) == first);  // byte-identical
}

TEST_CASE("build --time-report prints each phase's wall time and the peak RSS", "[cli]") {
  fs::path out = work("time_report_out");
  fs::remove_all(out);
  auto r = pypto(fmt::format("build {} -o '{}' --emit-only --time-report", program("e2e_square.py"), out.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(fs::exists(out / "build.ninja"));
  for (const char* row : {"phase", "front end (read, parse, check, build IR)", "emitters", "write OUT", "total", "peak RSS"})
    CHECK(r.out.find(row) != std::string::npos);
  // Every pass is accounted for: its own row, or the row of those under 1 % of the total.
  CHECK((r.out.find("pass InsertPipeSync") != std::string::npos || r.out.find("other passes (each < 1 %)") != std::string::npos));
  CHECK(r.out.find("ninja (") == std::string::npos);  // --emit-only: no ninja row
  CHECK(r.out.find("printing IR") == std::string::npos);
  // The IR printed for --dump-passes has its own row, not a pass's.
  auto dumped = pypto(fmt::format("build {} -o '{}' --emit-only --dump-passes --time-report", program("e2e_square.py"),
                                  out.string()));
  INFO(dumped.out);
  CHECK(dumped.out.find("printing IR (--dump-passes / --report)") != std::string::npos);
  // Without the flag nothing is printed.
  auto quiet = pypto(fmt::format("build {} -o '{}' --emit-only", program("e2e_square.py"), out.string()));
  CHECK(quiet.out.find("peak RSS") == std::string::npos);
}

TEST_CASE("a failed build leaves the previous output untouched and writes nothing else", "[cli]") {
  fs::path out = work("keep_out");
  fs::remove_all(out);
  REQUIRE(pypto(fmt::format("build {} -o '{}' --emit-only", program("e2e_chain.py"), out.string())).code == 0);
  std::string bad = write_file("keep_bad.py", kBadProgram);
  auto before = tree(out);
  auto siblings_before = std::distance(fs::directory_iterator(out.parent_path()), fs::directory_iterator());
  CHECK(pypto(fmt::format("build '{}' -o '{}' --emit-only", bad, out.string())).code == 1);
  CHECK(tree(out) == before);
  CHECK(std::distance(fs::directory_iterator(out.parent_path()), fs::directory_iterator()) == siblings_before);
}

TEST_CASE("tiles that do not fit on chip fail at address allocation with the numbers", "[cli]") {
  std::string big = write_file("too_big.py", R"(import pypto.language as pl

@pl.jit.incore
def k(x: pl.Tensor[[192, 128], pl.FP32], out: pl.Out[pl.Tensor[[192, 128], pl.FP32]]):
    t = pl.load(x, [0, 0], [192, 128])
    v = pl.recip(t)
    pl.store(pl.add(v, t), [0, 0], out)
    return out

@pl.jit
def main(x: pl.Tensor[[192, 128], pl.FP32], out: pl.Out[pl.Tensor[[192, 128], pl.FP32]]):
    out = k(x, out)
    return out
)");
  auto r = pypto(fmt::format("build '{}' -o '{}' --emit-only", big, work("too_big_out").string()));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("Function 'k': Vec buffer usage") != std::string::npos);
  CHECK(r.out.find("Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes)") != std::string::npos);
  CHECK(r.out.find("too_big.py:") != std::string::npos);
  CHECK_FALSE(fs::exists(work("too_big_out")));
  // Two 96 KiB tiles live at once fit the 950's larger UB (240 KiB).
  CHECK(pypto(fmt::format("build '{}' -o '{}' --emit-only --soc 950", big, work("too_big_950").string())).code == 0);
}

TEST_CASE("passes lists the pipeline in order, with contracts under -v", "[cli]") {
  auto r = pypto("passes");
  CHECK(r.code == 0);
  auto ssa = r.out.find("ConvertToSSA"), alloc = r.out.find("AllocateMemoryAddr"), dirs = r.out.find("DeriveCallDirections");
  REQUIRE(ssa != std::string::npos);
  REQUIRE(alloc != std::string::npos);
  REQUIRE(dirs != std::string::npos);
  CHECK(ssa < alloc);
  CHECK(alloc < dirs);
  auto v = pypto("passes -v");
  CHECK(v.out.find("produces    {SSAForm}") != std::string::npos);
  CHECK(v.out.find("requires") != std::string::npos);
}

TEST_CASE("--color: never when piped by default, on request with always", "[cli]") {
  std::string bad = write_file("bad_color.py", kBadProgram);
  auto plain = pypto("check '" + bad + "'");
  CHECK(plain.out.find("\x1b[") == std::string::npos);
  auto forced = pypto("check '" + bad + "' --color always");
  CHECK(forced.out.find("\x1b[") != std::string::npos);
  CHECK(pypto("check '" + bad + "' --color sometimes").code == 2);
}

TEST_CASE("build refuses an OUT that is a user's directory, holds the input or is the working directory", "[cli]") {
  const fs::path dir = work("user_dir");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "model.py") << slurp(fs::path(PYPTO_TEST_PROGRAMS) / "e2e_softmax.py");
  std::ofstream(dir / "notes.txt") << "my notes";
  const auto before = tree(dir);
  auto here = pypto_in(dir, "build model.py -o . --emit-only");
  INFO(here.out);
  CHECK(here.code == 2);
  CHECK(here.out.find("error: refusing to write '.'") != std::string::npos);
  CHECK(here.out.find("is the working directory") != std::string::npos);
  auto abs = pypto(fmt::format("build '{}' -o '{}' --emit-only", (dir / "model.py").string(), dir.string()));
  CHECK(abs.code == 2);
  CHECK(abs.out.find("contains the input file") != std::string::npos);
  const fs::path link = work("user_dir_link");
  fs::remove(link);
  fs::create_directory_symlink(dir, link);
  auto via_link = pypto(fmt::format("build '{}' -o '{}' --emit-only", (dir / "model.py").string(), link.string()));
  CHECK(via_link.code == 2);
  CHECK(via_link.out.find("(= '" + fs::canonical(dir).string() + "')") != std::string::npos);
  auto above = pypto_in(dir, "build model.py -o .. --emit-only");  // contains the working directory
  CHECK(above.code == 2);
  auto other = pypto(fmt::format("build {} -o '{}' --emit-only", program("e2e_softmax.py"), dir.string()));
  CHECK(other.code == 2);
  CHECK(other.out.find("not written by pypto") != std::string::npos);
  CHECK(tree(dir) == before);
  // A subdirectory is fine, and so is writing it again (it carries pypto's marker).
  CHECK(pypto_in(dir, "build model.py -o out --emit-only").code == 0);
  CHECK(pypto_in(dir, "build model.py -o out --emit-only").code == 0);
  CHECK(fs::exists(dir / "out" / ".pypto-project"));
  CHECK(slurp(dir / "notes.txt") == "my notes");
}

TEST_CASE("generated projects are byte-identical whatever -o is", "[cli]") {
  const fs::path a = work("where/a/p"), b = work("where/b c/q");
  fs::remove_all(work("where"));
  REQUIRE(pypto(fmt::format("build {} -o '{}' --emit-only", program("e2e_tensor_level.py"), a.string())).code == 0);
  fs::create_directories(b.parent_path());
  REQUIRE(pypto_in(b.parent_path(), fmt::format("build {} -o q --emit-only", program("e2e_tensor_level.py"))).code == 0);
  auto ta = tree(a), tb = tree(b);
  CHECK(ta.at("compile_commands.json").find(a.string()) != std::string::npos);
  ta.erase("compile_commands.json");
  tb.erase("compile_commands.json");
  CHECK(ta == tb);
}

// name_hint= must be an identifier (the front end rejects "../x" or "a b", as the reference does;
// tests/emit/project_names_test.cpp sets such names on the IR directly): the awkward names left
// are a 300-character one, runtime symbols and names that collide with the orchestration's.
TEST_CASE("awkward kernel names build and run; regenerating keeps ninja incremental", "[cli][ninja]") {
  const std::string src = write_file("hostile/hostile.py", R"(import pypto.language as pl

@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="escaped"):
            a = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="main"):
            b = pl.add(a, 2.0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint=")" + std::string(300, 'n') + R"("):
            c = pl.add(b, 3.0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="kernel_entry"):
            out = pl.mul(c, 2.0)
        return out
)");
  const fs::path root = work("hostile/deep/er");
  const fs::path out = root / "p";
  fs::remove_all(root);
  fs::create_directories(root);
  auto r = pypto(fmt::format("build '{}' -o '{}' -j 2", src, out.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(std::distance(fs::directory_iterator(root), fs::directory_iterator()) == 1);  // only p/
  CHECK_FALSE(fs::exists(work("hostile/escaped.cpp")));
  CHECK(shell(fmt::format("'{}/bin/run' --seed 1 2>&1", out.string())).code == 0);
  std::map<std::string, fs::file_time_type> times;
  for (const auto& [rel, text] : tree(out)) times[rel] = fs::last_write_time(out / rel);

  auto again = pypto(fmt::format("build '{}' -o '{}'", src, out.string()));
  CHECK(again.code == 0);
  CHECK(again.out.find("no work to do") != std::string::npos);
  for (const auto& [rel, t] : times) CHECK(fs::last_write_time(out / rel) == t);

  // One kernel changes: only it is rewritten and recompiled.
  std::string text = slurp(src);
  text.replace(text.find("3.0"), 3, "4.0");
  std::ofstream(src) << text;
  auto one = pypto(fmt::format("build '{}' -o '{}'", src, out.string()));
  CHECK(one.code == 0);
  size_t compiles = 0;
  for (size_t pos = one.out.find("CXX"); pos != std::string::npos; pos = one.out.find("CXX", pos + 1)) ++compiles;
  CHECK(compiles == 1);
  size_t rewritten = 0;  // of the generated files (the kernels library is rebuilt from the new object)
  for (const auto& [rel, t] : times)
    if (rel.rfind("lib/", 0) != 0) rewritten += fs::last_write_time(out / rel) != t;
  CHECK(rewritten == 1);
  CHECK(fs::last_write_time(out / "lib" / "libkernels.a") != times.at("lib/libkernels.a"));
}

TEST_CASE("ops lists every registered op with its pipe and pto-isa spelling, as text, JSON and a summary", "[cli]") {
  auto all = pypto("ops");
  REQUIRE(all.code == 0);
  const size_t n = nlohmann::json::parse(pypto("ops --json").out).size();
  CHECK(n > 200);
  CHECK(all.out.find(fmt::format("\n{} ops\n", n)) != std::string::npos);
  CHECK(all.out.find("tile.sort32") != std::string::npos);
  CHECK(all.out.find("TSORT32") != std::string::npos);
  auto one = pypto("ops pl.tile.cmp --json");
  REQUIRE(one.code == 0);
  auto j = nlohmann::json::parse(one.out);
  REQUIRE(j.size() == 1);
  CHECK(j[0]["name"] == "tile.cmp");
  CHECK(j[0]["pipe"] == "V");
  CHECK(j[0]["spelling"] == "TCMP");
  CHECK(j[0]["scalar_form"] == "tile.cmps");
  auto tensor = nlohmann::json::parse(pypto("ops tensor.row_sum --json").out);
  CHECK(tensor[0]["tile_form"] == "tile.row_sum");
  CHECK(tensor[0]["emitted"] == true);
  auto fam = pypto("ops --family pld");
  CHECK(fam.code == 0);
  CHECK(fam.out.find("pld.tensor.put") != std::string::npos);
  CHECK(fam.out.find("tile.add") == std::string::npos);
  auto sum = pypto("ops --summary");
  CHECK(sum.out.find("| tile | ") != std::string::npos);
  auto bad = pypto("ops tile.no_such_op");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("no op named 'tile.no_such_op'") != std::string::npos);
}
