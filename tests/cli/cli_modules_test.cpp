// The `pypto` command on real-program layouts: `check` on a file with several entries (each
// reported, a failing one named), a helper module without an entry, -I and -D MODULE.NAME from
// the command line, and --depfile (Make/Ninja syntax, every source read, written only on success);
// an entry another entry calls is checked through its caller; a warning shared by several entries
// is printed once; W014 (a tensor bound to a smaller declared parameter by its leading elements).
#include <algorithm>

#include "cli/cli_util.h"

using namespace clitest;

namespace {

const char* kConfig = "ROWS = 32\nCOLS = 64\n";

const char* kTwoEntries = R"(import pypto.language as pl
from config import ROWS, COLS


@pl.jit.incore
def double(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    t = pl.load(x, [0, 0], [ROWS, COLS])
    pl.store(pl.add(t, t), [0, 0], out)
    return out


@pl.jit
def first(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    out = double(x, out)
    return out


@pl.jit
def second(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    out = double(x, out)
    return out
)";

}  // namespace

TEST_CASE("check reports every entry of a file, and checks a helper module as a module", "[cli][modules]") {
  write_file("mods/config.py", kConfig);
  std::string two = write_file("mods/two.py", kTwoEntries);
  auto r = pypto("check '" + two + "'");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("first: ok (2 functions)") != std::string::npos);
  CHECK(r.out.find("second: ok (2 functions)") != std::string::npos);
  CHECK(r.out.find("2 of 2 entries ok") != std::string::npos);

  // One entry that fails: the others are still checked, the failing one is named, exit 1.
  std::string text = kTwoEntries;
  const size_t at = text.rfind("out = double(x, out)");
  text.replace(at, 20, "out = double(y, out)");
  const auto line = 1 + std::count(text.begin(), text.begin() + long(at), '\n');
  std::string broken = write_file("mods/broken.py", text);
  r = pypto("check '" + broken + "'");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("first: ok") != std::string::npos);
  CHECK(r.out.find("second: failed") != std::string::npos);
  CHECK(r.out.find(fmt::format("broken.py:{}:18", line)) != std::string::npos);  // the error is located
  CHECK(r.out.find("1 of 2 entries ok") != std::string::npos);

  // A module of DSL helpers and constants without an entry passes with a note.
  std::string helpers = write_file("mods/helpers.py", R"(import pypto.language as pl
from config import ROWS


@pl.jit.inline
def scale(t, f: float):
    return pl.mul(t, f)
)");
  r = pypto("check '" + helpers + "'");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("no entry, checked as a module (1 DSL function") != std::string::npos);
  // ... and one whose import cannot be found fails, at the import.
  std::string lost = write_file("mods/lost.py", "import pypto.language as pl\nfrom nowhere import X\n");
  r = pypto("check '" + lost + "'");
  CHECK(r.code == 1);
  CHECK(r.out.find("lost.py:2:1") != std::string::npos);
  CHECK(r.out.find("cannot find module 'nowhere'") != std::string::npos);
}

TEST_CASE("check: a bare entry called by a typed entry is checked through it; shared warnings print once",
          "[cli][modules]") {
  // `inner` has bare parameters (its shapes come from a call); the host entry `host` calls it with
  // typed ones.
  // `scale4` declares [4, 64] and is passed [32, 64] by both entries: W014, printed once.
  std::string file = write_file("mods/through.py", R"(import pypto.language as pl


@pl.jit.incore
def scale4(x: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):
    t = pl.load(x, [0, 0], [4, 64])
    pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out


@pl.jit
def inner(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = scale4(x, out)
    return out


@pl.jit.host
def host(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):
    out = inner(x, out)
    return out


@pl.jit
def other(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):
    out = scale4(x, out)
    return out
)");
  auto r = pypto("check '" + file + "'");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("host: ok (3 functions)") != std::string::npos);
  CHECK(r.out.find("inner: ok (checked through entry 'host', which calls it)") != std::string::npos);
  CHECK(r.out.find("3 of 3 entries ok") != std::string::npos);
  CHECK(r.out.find("E103") == std::string::npos);
  // The same W014 arises in `inner` (through host) and in `other`, at two call sites: two
  // warnings, each once, each located at its argument.
  CHECK(r.out.find("warning[W014]: argument 'x' of 'scale4' is pl.Tensor[[32, 64], pl.FP32] but the parameter is "
                   "declared pl.Tensor[[4, 64], pl.FP32]: 'scale4' sees the argument's first 256 elements") !=
        std::string::npos);
  size_t w014 = 0;
  for (size_t at = r.out.find("W014"); at != std::string::npos; at = r.out.find("W014", at + 1)) ++w014;
  CHECK(w014 == 2);
  CHECK(r.out.find("through.py:13:18") != std::string::npos);
  CHECK(r.out.find("through.py:25:18") != std::string::npos);

  // Checked alone, the bare entry still says how to type it.
  r = pypto("check '" + file + "' --entry inner");
  CHECK(r.code == 1);
  CHECK(r.out.find("E103") != std::string::npos);
  CHECK(r.out.find("entry 'host' calls 'inner' with typed arguments") != std::string::npos);

  // A parameter larger than the argument cannot be its leading elements: an error.
  std::string text = slurp(file);
  text.replace(text.find("[[4, 64], pl.FP32], out"), 7, "[[64, 64");
  std::string big = write_file("mods/through_big.py", text);
  r = pypto("check '" + big + "' --entry other");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("argument 1 ('x') of 'scale4': expected Tensor[[64, 64], FP32], got Tensor[[32, 64], FP32]") !=
        std::string::npos);
}

TEST_CASE("check: an entry that waits for its caller is checked ahead on an idle core, and reported as before",
          "[cli][modules]") {
  // Two entries: `host` calls `inner`, which has bare parameters. With two cores, `inner` is
  // checked beside `host` (its E103 is found then); `host` passes and holds it, so `inner` is
  // reported as checked through it and its own failure is dropped.
  const char* kPair = R"(import pypto.language as pl


@pl.jit.incore
def scale(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    t = pl.load(x, [0, 0], [32, 64])
    pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out


@pl.jit
def inner(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = scale(x, out)
    return out


@pl.jit.host
def host(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    out = inner(x, out)
    return out
)";
  std::string file = write_file("mods/pair.py", kPair);
  for (int i = 0; i < 3; ++i) {
    auto r = pypto("check '" + file + "'");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("host: ok (3 functions)") != std::string::npos);
    CHECK(r.out.find("inner: ok (checked through entry 'host', which calls it)") != std::string::npos);
    CHECK(r.out.find("E103") == std::string::npos);
  }
  // The caller fails (a wrong dtype in its body): the callee's own check, made ahead, is reported.
  std::string text = kPair;
  text.replace(text.find("out = inner(x, out)"), 19, "out = inner(x, out, 3)");
  std::string bad = write_file("mods/pair_bad.py", text);
  auto r = pypto("check '" + bad + "'");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("host: failed") != std::string::npos);
  CHECK(r.out.find("inner: failed") != std::string::npos);
  CHECK(r.out.find("E103") != std::string::npos);  // inner's bare parameters, from its own check
  CHECK(r.out.find("0 of 2 entries ok") != std::string::npos);
  CHECK(r.out.find("host: failed") < r.out.find("inner: failed"));
}

TEST_CASE("-I and -D MODULE.NAME on the command line; --depfile lists every source read", "[cli][modules]") {
  write_file("inc/lib/config.py", kConfig);
  std::string main = write_file("inc/app/model.py", kTwoEntries);
  auto r = pypto("check '" + main + "' --entry first");
  CHECK(r.code == 1);
  CHECK(r.out.find("cannot find module 'config'") != std::string::npos);
  CHECK(r.out.find("-I DIR") != std::string::npos);

  const fs::path lib = work("inc/lib");
  const fs::path dep = work("inc/out.d");
  fs::remove(dep);
  r = pypto("check '" + main + "' --entry first -I '" + lib.string() + "' -D config.ROWS=16 --depfile '" +
            dep.string() + "'");
  INFO(r.out);
  CHECK(r.code == 0);
  std::string d = slurp(dep);
  CHECK(d.rfind(main + ":", 0) == 0);  // target: the checked file
  CHECK(d.find("app/model.py") != std::string::npos);
  CHECK(d.find("lib/config.py") != std::string::npos);

  // build: the target is OUT/build.ninja; the IR took -D config.ROWS=16.
  const fs::path out = work("inc/proj");
  fs::remove_all(out);
  r = pypto("build '" + main + "' --entry first -I '" + lib.string() + "' -D config.ROWS=16 --emit-only -o '" +
            out.string() + "' --depfile '" + dep.string() + "'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  d = slurp(dep);
  CHECK(d.rfind((out / "build.ninja").string() + ":", 0) == 0);
  CHECK(d.find("lib/config.py") != std::string::npos);
  CHECK(slurp(out / "kernels" / "aiv" / "double.cpp").find("Vec_float_16x64") != std::string::npos);

  // A failing build leaves no depfile behind (and no temporary).
  fs::remove(dep);
  r = pypto("build '" + main + "' --entry first --emit-only -o '" + out.string() + "' --depfile '" + dep.string() + "'");
  CHECK(r.code == 1);
  CHECK(!fs::exists(dep));
  CHECK(!fs::exists(dep.string() + ".tmp"));

  // Paths with spaces are escaped as Make and Ninja read them.
  std::string spaced = write_file("inc/my dir/model.py", kTwoEntries);
  write_file("inc/my dir/config.py", kConfig);
  r = pypto("check '" + spaced + "' --entry first --depfile '" + dep.string() + "'");
  REQUIRE(r.code == 0);
  CHECK(slurp(dep).find("my\\ dir/config.py") != std::string::npos);
}

TEST_CASE("check: entries run in parallel are reported in source order, each error before its entry's line",
          "[cli][modules]") {
  write_file("mods/config.py", kConfig);
  std::string text = kTwoEntries;
  text += R"(

@pl.jit
def third(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    out = double(z, out)
    return out
)";
  const size_t at = text.find("out = double(x, out)");
  text.replace(at, 20, "out = double(w, out)");
  std::string three = write_file("mods/three.py", text);
  // Five runs: the entries are checked on several threads, the report must not depend on which
  // finishes first.
  std::string first_out;
  for (int run = 0; run < 5; ++run) {
    auto r = pypto("check '" + three + "'");
    INFO(r.out);
    CHECK(r.code == 1);
    const size_t w = r.out.find("'w'"), first = r.out.find("first: failed"), second = r.out.find("second: ok"),
                 z = r.out.find("'z'"), third = r.out.find("third: failed"), total = r.out.find("1 of 3 entries ok");
    REQUIRE(w != std::string::npos);
    REQUIRE(z != std::string::npos);
    CHECK(w < first);
    CHECK(first < second);
    CHECK(second < z);
    CHECK(z < third);
    CHECK(third < total);
    CHECK(total != std::string::npos);
    if (run == 0) first_out = r.out;
    CHECK(r.out == first_out);
  }
}
