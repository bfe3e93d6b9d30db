// Module-level assignments to another module's globals (`config.TP = 2`), with Python's order of
// execution: an assignment made before a module is imported changes what that module's top level
// sees, the assigned module's own derived constants keep their old values, DSL code (traced after
// every import ran) sees the last value, `-D config.TP=...` wins over all, and assignments pypto
// cannot follow (in a function, setattr, `+=`) give a located warning W013.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "ir/ir.h"
#include "parse_helpers.h"
#include "parser/frontend.h"

namespace fs = std::filesystem;
using namespace pypto;

namespace {

using ptest::TempTree;

ir::ProgramPtr parse(const std::string& path, parser::FrontendOptions o = {}, ir::DiagnosticSink* out = nullptr) {
  ir::DiagnosticSink sink;
  auto p = parser::parse_file(path, o, out ? *out : sink);
  return p;
}

using ptest::dims;

const char* kConfig = R"(TP = 4
BATCH = 32
PER_RANK = BATCH // TP
)";

// rope.py's top level runs after main.py's `config.TP = 2`: B_MAX = 32 // 2.
const char* kRope = R"(import pypto.language as pl
from config import BATCH, TP
B_MAX = BATCH // TP


@pl.jit.inline
def rope(x: pl.Tensor[[B_MAX, 64], pl.FP32]):
    return x
)";

}  // namespace

TEST_CASE("an assignment to a module global before an import changes what the imported module sees",
          "[parser][modules][overrides]") {
  TempTree t;
  t.write("config.py", kConfig);
  t.write("rope.py", kRope);
  // Before the assignment, `early` captures the old TP; config.PER_RANK was computed by config
  // itself with TP = 4; the entry signature and the body are traced after all imports (TP = 2).
  std::string main = t.write("main.py", R"(import pypto.language as pl
import config
from config import TP as early
config.TP = 2
from rope import rope, B_MAX


@pl.jit
def entry(x: pl.Tensor[[config.BATCH // config.TP, 64], pl.FP32], y: pl.Tensor[[config.PER_RANK, 8], pl.FP32],
          z: pl.Tensor[[B_MAX, 4], pl.FP32], w: pl.Tensor[[early, 4], pl.FP32]):
    r = rope(x)
    n = config.TP
    return r
)");
  auto p = parse(main);
  CHECK(dims(p, "rope", 0) == std::vector<int64_t>{16, 64});
  CHECK(dims(p, "entry", 0) == std::vector<int64_t>{16, 64});
  CHECK(dims(p, "entry", 1) == std::vector<int64_t>{8, 8});  // config's own derived constant: 32 // 4
  CHECK(dims(p, "entry", 2) == std::vector<int64_t>{16, 4});
  CHECK(dims(p, "entry", 3) == std::vector<int64_t>{4, 4});  // bound before the assignment

  // -D config.TP wins over the assignment (and config computes PER_RANK from it).
  parser::FrontendOptions o;
  o.defines = {{"config.TP", "8"}};
  auto q = parse(main, o);
  CHECK(dims(q, "rope", 0) == std::vector<int64_t>{4, 64});
  CHECK(dims(q, "entry", 0) == std::vector<int64_t>{4, 64});
  CHECK(dims(q, "entry", 1) == std::vector<int64_t>{4, 8});
  // In a -D value the variable itself is the module's own definition (TP = 4, not main's 2), and a
  // name another -D sets has that value, whatever the order of the flags.
  o.defines = {{"config.TP", "TP * 4"}};
  CHECK(dims(parse(main, o), "entry", 0) == std::vector<int64_t>{2, 64});
  o.defines = {{"config.TP", "BATCH // 4"}, {"config.BATCH", "64"}};
  CHECK(dims(parse(main, o), "entry", 0) == std::vector<int64_t>{4, 64});
  CHECK(dims(parse(main, o), "entry", 1) == std::vector<int64_t>{4, 8});
}

TEST_CASE("assignments from several modules apply in execution order", "[parser][modules][overrides]") {
  TempTree t;
  t.write("config.py", kConfig);
  t.write("rope.py", kRope);
  // moe runs (as main's first import) before main's own assignment; its value is computed in moe,
  // at its time, from config.BATCH as then assigned by moe itself.
  t.write("moe.py", R"(import config
EP = 4
config.BATCH = 64
config.TP = EP * 2
)");
  std::string main = t.write("main.py", R"(import pypto.language as pl
import moe
import config
config.BATCH = config.BATCH * 2
from rope import rope


@pl.jit
def entry(x: pl.Tensor[[config.BATCH // config.TP, 64], pl.FP32]):
    r = rope(x)
    return r
)");
  auto p = parse(main);
  // BATCH: 32 -> 64 (moe) -> 128 (main); TP: 4 -> 8 (moe); rope's B_MAX = 128 // 8.
  CHECK(dims(p, "rope", 0) == std::vector<int64_t>{16, 64});
  CHECK(dims(p, "entry", 0) == std::vector<int64_t>{16, 64});
}

TEST_CASE("assignments pypto does not follow give a located warning", "[parser][modules][overrides]") {
  TempTree t;
  t.write("config.py", kConfig);
  std::string main = t.write("main.py", R"(import pypto.language as pl
import config


def tweak():
    config.TP = 1


config.BATCH += 1
setattr(config, "TP", 3)


def _helper():
    return 0


_helper.__name__ = "helper"


@pl.jit
def entry(x: pl.Tensor[[config.PER_RANK, 64], pl.FP32]):
    return x
)");
  ir::DiagnosticSink sink;
  auto p = parse(main, {}, &sink);
  CHECK(dims(p, "entry", 0) == std::vector<int64_t>{8, 64});
  std::vector<ir::Diagnostic> w;
  for (const auto& d : sink.diagnostics())
    if (d.code == "W013") w.push_back(d);
  REQUIRE(w.size() == 3);  // not for `_helper.__name__` (not a module)
  CHECK(w[0].span.line == 6);
  CHECK(w[0].message.find("inside function 'tweak' of config.TP") != std::string::npos);
  CHECK(w[1].span.line == 9);
  CHECK(w[1].message.find("augmented assignment of config.BATCH") != std::string::npos);
  CHECK(w[2].span.line == 10);
  CHECK(w[2].message.find("setattr of config.TP") != std::string::npos);
  CHECK(w[0].hint.find("-D config.TP=VALUE") != std::string::npos);
}

TEST_CASE("an assigned value that is not a compile-time constant is a located error", "[parser][modules][overrides]") {
  TempTree t;
  t.write("config.py", kConfig);
  std::string main = t.write("main.py", R"(import pypto.language as pl
import config
import os
config.TP = int(os.environ["TP"])


@pl.jit
def entry(x: pl.Tensor[[config.TP, 64], pl.FP32]):
    return x
)");
  std::vector<ir::Diagnostic> e;
  try {
    parse(main);
  } catch (const ir::CompileError& err) {
    e = err.diagnostics();
  }
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E202");
  CHECK(e[0].message == "cannot evaluate the value assigned to config.TP at compile time");
  CHECK(e[0].span.line == 4);
  CHECK(e[0].hint.find("-D config.TP=VALUE") != std::string::npos);
  parser::FrontendOptions o;
  o.defines = {{"config.TP", "16"}};
  CHECK(dims(parse(main, o), "entry", 0) == std::vector<int64_t>{16, 64});
}

TEST_CASE("a global that is not a compile-time constant is reported at each of its uses",
          "[parser][modules][overrides]") {
  // The global's failed evaluation is remembered (module_scan.cpp, ModuleInfo::global): later
  // lookups rethrow it, each at its own site, and with its hint.
  TempTree t;
  std::string main = t.write("main.py", R"(import os
import pypto.language as pl

N = int(os.environ["N"])


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def a(self, x: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.InCore)
    def b(self, x: pl.Tensor[[64, N], pl.FP32]) -> pl.Tensor[[64, N], pl.FP32]:
        return x
)");
  ir::DiagnosticSink sink;
  std::vector<ir::Diagnostic> e;
  try {
    parser::parse_file(main, {}, sink);
  } catch (const ir::CompileError& err) {
    e = err.diagnostics();
  }
  for (const auto& d : sink.diagnostics()) e.push_back(d);
  std::vector<std::pair<uint32_t, uint32_t>> sites;
  for (const auto& d : e) {
    CHECK(d.code == "E202");
    CHECK(d.hint.find("-D N=VALUE") != std::string::npos);
    sites.emplace_back(d.span.line, d.span.col);
  }
  CHECK(sites == std::vector<std::pair<uint32_t, uint32_t>>{{10, 31}, {10, 63}, {14, 35}, {14, 67}});
}
