// Modules: programs spread over several files (a config module, a package with relative imports,
// -I search paths, -D MODULE.NAME), the constant evaluator over config code (dataclasses with
// properties and replace(), helper functions, comprehensions, dicts), and their diagnostics
// (missing module / name, a cycle of constants, a value read from sys.argv, a failed assert).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "ir/ir.h"
#include "parser/const_eval.h"
#include "parse_helpers.h"
#include "parser/frontend.h"

namespace fs = std::filesystem;
using namespace pypto;

namespace {

// A fresh directory under the system temp dir, removed at the end of the test.
using ptest::TempTree;

ir::ProgramPtr parse(const std::string& path, parser::FrontendOptions o = {}, std::vector<std::string>* read = nullptr) {
  ir::DiagnosticSink sink;
  o.files_read = read;
  return parser::parse_file(path, o, sink);
}

std::vector<ir::Diagnostic> errors(const std::string& path, parser::FrontendOptions o = {}) {
  return ptest::file_errors(path, o);
}

using ptest::dims;

const char* kConfig = R"(from dataclasses import dataclass, replace

import pypto.language as pl


@dataclass(frozen=True)
class Tiling:
    rows: int
    cols: int = 64

    @property
    def elems(self) -> int:
        return self.rows * self.cols


def ceil_div(a, b):
    return (a + b - 1) // b


BASE = Tiling(rows=16)
WIDE = replace(BASE, cols=128)
B = 4
SIZES = [ceil_div(n, 8) for n in (8, 9, 16)]
TABLE = {"small": 32, "big": 64}
DTYPE = pl.FP32
)";

}  // namespace

TEST_CASE("a program takes constants from a config module", "[parser][modules]") {
  TempTree t;
  t.write("config.py", kConfig);
  std::string main = t.write("model.py", R"(import pypto.language as pl
import config as C
from config import B, BASE as T, WIDE, SIZES, TABLE, DTYPE

R = T.rows * B


@pl.jit.incore
def k(x: pl.Tensor[[R, WIDE.cols], DTYPE], y: pl.Tensor[[SIZES[1], TABLE["big"]], pl.FP32],
      z: pl.Tensor[[C.BASE.elems, C.ceil_div(100, 30)], pl.FP32]):
    return x
)");
  std::vector<std::string> read;
  auto p = parse(main, {}, &read);
  CHECK(dims(p, "k", 0) == std::vector<int64_t>{64, 128});
  CHECK(ir::as_tensor(p->find("k")->params[0]->type)->dtype == ir::DataType::FP32);
  CHECK(dims(p, "k", 1) == std::vector<int64_t>{2, 64});
  CHECK(dims(p, "k", 2) == std::vector<int64_t>{1024, 4});
  REQUIRE(read.size() == 2);  // the depfile's sources: main file first
  CHECK(fs::path(read[0]).filename() == "model.py");
  CHECK(fs::path(read[1]).filename() == "config.py");

  // -D config.B overrides the module's constant; a bare -D only the main module's.
  parser::FrontendOptions o;
  o.defines = {{"config.B", "2"}};
  CHECK(dims(parse(main, o), "k", 0) == std::vector<int64_t>{32, 128});
  o.defines = {{"R", "8"}};
  CHECK(dims(parse(main, o), "k", 0) == std::vector<int64_t>{8, 128});
}

TEST_CASE("DSL functions of another module and of a package", "[parser][modules]") {
  TempTree t;
  t.write("pkg/__init__.py", "");
  t.write("pkg/consts.py", "N = 32\n");
  t.write("pkg/kernels/__init__.py", "");
  t.write("pkg/kernels/scale.py", R"(import pypto.language as pl
from ..consts import N


@pl.jit.incore
def scale(x: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    t = pl.load(x, [0, 0], [N, N])
    pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out
)");
  std::string main = t.write("pkg/model.py", R"(import pypto.language as pl
from .consts import N
from .kernels.scale import scale as twice
from .kernels import scale as mod


@pl.jit
def entry(x: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    out = twice(x, out)
    out = mod.scale(x, out)
    return out
)");
  auto p = parse(main);
  REQUIRE(p->find("scale"));
  CHECK(p->find("scale")->type == ir::FunctionType::InCore);
  CHECK(dims(p, "scale", 0) == std::vector<int64_t>{32, 32});
  // The callee keeps its own file in its spans.
  CHECK(fs::path(p->find("scale")->span.file->path).filename() == "scale.py");
}

TEST_CASE("-I adds a module search path", "[parser][modules]") {
  TempTree t;
  t.write("shared/sizes.py", "ROWS = 48\n");
  std::string main = t.write("app/model.py", R"(import pypto.language as pl
from sizes import ROWS


@pl.jit.incore
def k(x: pl.Tensor[[ROWS, 16], pl.FP32]):
    return x
)");
  auto e = errors(main);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E206");
  CHECK(e[0].message == "cannot find module 'sizes'");
  CHECK(e[0].span.line == 2);  // the import statement
  CHECK(e[0].hint.find("-I DIR") != std::string::npos);
  parser::FrontendOptions o;
  o.include_dirs = {(t.root / "shared").string()};
  CHECK(dims(parse(main, o), "k", 0) == std::vector<int64_t>{48, 16});
}

TEST_CASE("module diagnostics: missing name, cycles, argv, asserts", "[parser][modules]") {
  TempTree t;
  t.write("a.py", "from b import Y\nX = Y + 1\n");
  t.write("b.py", "from a import X\nY = X + 1\nZ = 3\n");
  t.write("variant.py", R"(import sys

def _pick():
    return sys.argv[1] if len(sys.argv) > 1 else "pro"

ACTIVE = _pick()
SIZE = {"pro": 64, "flash": 32}[ACTIVE]
)");
  t.write("checked.py", R"(def tile(n):
    assert n % 16 == 0, f"tile {n} is not a multiple of 16"
    return n

T = tile(40)
)");
  auto kern = [&](const std::string& name, const std::string& import, const std::string& dim) {
    return t.write(name, "import pypto.language as pl\n" + import +
                             "\n\n@pl.jit.incore\ndef k(x: pl.Tensor[[" + dim + ", 16], pl.FP32]):\n    return x\n");
  };
  auto e = errors(kern("m1.py", "from b import W", "W"));
  REQUIRE(!e.empty());
  CHECK(e[0].message == "cannot import name 'W' from 'b'");

  e = errors(kern("m2.py", "from a import X", "X"));
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E202");
  CHECK(e[0].message.find("defined in terms of itself") != std::string::npos);

  e = errors(kern("m3.py", "from variant import SIZE", "SIZE"));
  REQUIRE(!e.empty());
  CHECK(e[0].message.find("pass -D variant.ACTIVE=VALUE") != std::string::npos);
  parser::FrontendOptions o;
  o.defines = {{"variant.ACTIVE", "flash"}};  // a bare word is a string
  CHECK(dims(parse(kern("m3.py", "from variant import SIZE", "SIZE"), o), "k", 0) == std::vector<int64_t>{32, 16});

  e = errors(kern("m4.py", "from checked import T", "T"));
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E305");
  CHECK(e[0].message == "assertion failed: tile 40 is not a multiple of 16");
  CHECK(fs::path(e[0].span.file->path).filename() == "checked.py");
  CHECK(e[0].span.line == 2);
}

TEST_CASE("constant evaluator: comprehensions, dicts, slices, f-strings, budgets", "[const_eval][modules]") {
  auto ev = [](const std::string& text) {
    return parser::eval_expression_text(text, "test", [](const std::string&, TSNode) { return std::nullopt; });
  };
  CHECK(ev("sum(x * x for x in range(4))").as_int() == 14);
  CHECK(ev("[i for i in range(10) if i % 3 == 0][-1]").as_int() == 9);
  CHECK(ev("{k: v * 2 for k, v in {'a': 1, 'b': 2}.items()}['b']").as_int() == 4);
  CHECK(ev("(1, 2, 3, 4, 5)[1:4:2]").repr() == "(2, 4)");
  CHECK(ev("'abcdef'[::-2]").as_str() == "fdb");
  CHECK(ev("f'{3}x{2.5:.2f}'").as_str() == "3x2.50");
  CHECK(std::get<bool>(ev("1 < 2 < 3 and 'a' in 'cat' and None is None").v));
  CHECK(ev("max([3, 9, 4])").as_int() == 9);
  CHECK(ev("divmod(-7, 2)").repr() == "(-4, 1)");
  CHECK(ev("round(2.5)").as_int() == 2);  // banker's rounding, as Python
  CHECK_THROWS_AS(ev("len(range(10**7))"), ir::CompileError);  // bounded, not a hang
  // The step budget (2,000,000) bounds one top-level evaluation: three comprehensions of 700,000
  // steps evaluated one after another on this thread each pass (steps are not carried over), while
  // nested comprehensions share their outermost one's budget (an inner one does not reset it).
  for (int i = 0; i < 3; ++i) CHECK(ev("sum([k % 3 for k in range(700000)])").as_int() == 699999);
  CHECK_THROWS_AS(ev("sum(sum(1 for j in range(1500)) for i in range(1500))"), ir::CompileError);
}
