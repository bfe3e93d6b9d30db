// DSL functions made by Python functions run at compile time ("nested factories"): a module-level
// `op = _bind()` whose body picks one of two @pl.jit.inline definitions by a module constant (and
// its import from another file), the same choice made by a module-level `if`, and a @pl.program
// factory that gets its kernels from builder functions (`k = make_kernel(rows, scale)`). Checks which function is built, that one (def,
// closure) is built once, the closure values in the IR, determinism, and the diagnostics: a value
// read from the environment, a builder body outside the constant subset (located at the statement),
// one def built with two different closures.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "ir/ir.h"
#include "ir/printer.h"
#include "parse_helpers.h"
#include "parser/frontend.h"

namespace fs = std::filesystem;
using namespace pypto;

namespace {

using ptest::TempTree;

ir::ProgramPtr parse_path(const std::string& path, parser::FrontendOptions o = {}) {
  ir::DiagnosticSink sink;
  return parser::parse_file(path, o, sink);
}

std::vector<ir::Diagnostic> errors_path(const std::string& path, parser::FrontendOptions o = {}) {
  ir::DiagnosticSink sink;
  try {
    parser::parse_file(path, o, sink);
  } catch (const ir::CompileError& e) {
    return e.diagnostics();
  }
  return {};
}

std::vector<std::string> names(const ir::ProgramPtr& p) {
  std::vector<std::string> out;
  for (const auto& f : p->functions) out.push_back(f->name);
  return out;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ops.py: `op` is whichever inline implementation IMPL selects, bound by a builder at import.
std::string ops_module(const std::string& impl_line, const std::string& extra_stmt = "") {
  return "import os\n\nimport numpy as np\nimport pypto.language as pl\n\n" + impl_line + R"(


@pl.jit.inline
def _fast(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]):
    t = pl.load(x, [0, 0], [16, 64])
    pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out


@pl.jit.inline
def _slow(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]):
    t = pl.load(x, [0, 0], [16, 64])
    pl.store(pl.add(t, t), [0, 0], out)
    return out


def _bind():
)" + extra_stmt + R"(    if IMPL == "fast":
        @pl.jit.inline
        def op(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]):
            _fast(x, out)
            return out
    else:
        @pl.jit.inline
        def op(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]):
            _slow(x, out)
            return out
    return op


op = _bind()
)";
}

const char* kModel = R"(import pypto.language as pl

import ops as O
from ops import op


@pl.jit
def entry(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    op(x, out)
    O.op(x, out)
    return out
)";

}  // namespace

TEST_CASE("a builder run at compile time returns the DSL function a module constant selects; imports reach it",
          "[parser][factory]") {
  TempTree t;
  t.write("ops.py", ops_module("IMPL = \"fast\""));
  const std::string model = t.write("model.py", kModel);
  auto p = parse_path(model);
  // Built once although it is called twice, under two names; the other implementation is not built.
  CHECK(names(p) == std::vector<std::string>{"_fast", "entry", "op"});
  CHECK(p->find("op")->type == ir::FunctionType::Inline);
  CHECK(has(ir::print_function(*p->find("op")), "self._fast(x, out)"));
  const std::string entry = ir::print_function(*p->find("entry"));
  const auto first = entry.find("self.op(x, out)");
  CHECK((first != std::string::npos && entry.find("self.op(x, out)", first + 1) != std::string::npos));
  CHECK(ir::print_program(*parse_path(model)) == ir::print_program(*p));  // deterministic

  parser::FrontendOptions o;
  o.defines = {{"ops.IMPL", "'slow'"}};
  auto q = parse_path(model, o);
  CHECK(names(q) == std::vector<std::string>{"_slow", "entry", "op"});
  CHECK(has(ir::print_function(*q->find("op")), "self._slow(x, out)"));

  // The selector read from the environment: -D it, as for any such value, at the `if` that needs it.
  t.write("ops.py", ops_module("IMPL = os.environ.get(\"OPS_IMPL\", \"fast\").lower()"));
  auto e = errors_path(model);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E202");
  CHECK(has(e[0].message, "pass -D ops.IMPL=VALUE"));
  CHECK(fs::path(e[0].span.file->path).filename() == "ops.py");
  CHECK(e[0].span.line == 24);
  CHECK(names(parse_path(model, o)) == std::vector<std::string>{"_slow", "entry", "op"});

  // A builder body outside the constant subset: reported at the use, with the statement noted.
  t.write("ops.py", ops_module("IMPL = \"fast\"", "    bias = np.zeros(4)\n"));
  e = errors_path(model);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E202");
  CHECK(e[0].message == "cannot evaluate op at compile time: the function it calls leaves the constant subset pypto "
                        "evaluates");
  REQUIRE(e[0].notes.size() == 1);
  CHECK(fs::path(e[0].notes[0].first.file->path).filename() == "ops.py");
  CHECK(e[0].notes[0].first.line == 24);
  CHECK(e[0].notes[0].second == "this statement is outside the constant subset");
}

namespace {

// A @pl.program factory whose kernels come from a builder (one per configuration), plus a kernel
// of its own that the orchestration calls as a sibling.
const char* kBuilderFactory = R"(import pypto.language as pl


def make_scale(rows: int, scale: float):
    @pl.function(type=pl.FunctionType.InCore)
    def scale_kernel(x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [rows, 64])
        pl.store(pl.mul(t, scale), [0, 0], out)
        return out

    return scale_kernel


def build(rows: int = 16, second: float = 2.0):
    half = rows // 2

    @pl.function(type=pl.FunctionType.InCore)
    def copy_half(x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [half, 64])
        pl.store(t, [0, 0], out)
        return out

    _a = make_scale(rows, 2.0)
    _b = make_scale(rows, second)

    @pl.program
    class Scaled:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            out = copy_half(x, out)
            out = _a(x, out)
            out = _b(x, out)
            return out

    return Scaled
)";

}  // namespace

TEST_CASE("a @pl.program factory uses the kernels builder functions return", "[parser][factory]") {
  parser::FrontendOptions o;
  o.entry = "build";
  o.factory_args = {{"rows", "32"}};
  auto p = ptest::parse(kBuilderFactory, o);
  // make_scale(32, 2.0) twice: one function; its closure's values are in its body.
  CHECK(names(p) == std::vector<std::string>{"copy_half", "main", "scale_kernel"});
  const std::string k = ir::print_function(*p->find("scale_kernel"));
  CHECK(has(k, "x: pl.Tensor[[32, 64], pl.FP32]"));
  CHECK(has(k, "pl.tile.muls(t, 2.0)"));
  CHECK(has(ir::print_function(*p->find("copy_half")), "pl.tile.load(x, [0, 0], [16, 64])"));
  const std::string m = ir::print_function(*p->find("main"));
  CHECK(has(m, "self.copy_half(x, out)"));
  CHECK(has(m, "self.scale_kernel(x, out)"));
  CHECK(ir::print_program(*ptest::parse(kBuilderFactory, o)) == ir::print_program(*p));

  // Two closures of one def in one program: one error, at the def (no cascade at the calls).
  o.factory_args = {{"second", "3.0"}};
  auto e = ptest::errors(kBuilderFactory, o);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E201");
  CHECK(e[0].message == "DSL function 'scale_kernel' is built twice with different closures");
  CHECK(e[0].span.line == 6);

  // A builder body outside the constant subset: the factory error points at that statement.
  std::string bad = kBuilderFactory;
  bad.replace(bad.find("    @pl.function(type=pl.FunctionType.InCore)\n    def scale_kernel"), 0,
              "    import numpy\n    scale = numpy.float32(scale)\n");
  o.factory_args = {};
  e = ptest::errors(bad, o);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E108");
  CHECK(e[0].message == "factory 'build' cannot be run at compile time: this statement leaves the constant subset "
                        "pypto evaluates");
  CHECK(e[0].span.line == 6);
  REQUIRE(e[0].notes.size() == 1);
  CHECK(e[0].notes[0].first.line == 16);
  CHECK(e[0].notes[0].second == "while running factory 'build'");
}

TEST_CASE("a module-level if on a constant selects which DSL definition a name has", "[parser][factory]") {
  const std::string src = R"(import pypto.language as pl

WIDE = False

if WIDE:
    @pl.jit.inline
    def row_op(x: pl.Tensor[[1, 128], pl.FP32], out: pl.Tensor[[1, 128], pl.FP32]):
        t = pl.load(x, [0, 0], [1, 128])
        pl.store(t, [0, 0], out)
        return out
else:
    @pl.jit.inline
    def row_op(x: pl.Tensor[[1, 128], pl.FP32], out: pl.Tensor[[1, 128], pl.FP32]):
        t = pl.load(x, [0, 0], [1, 64])
        pl.store(t, [0, 0], out)
        return out


@pl.jit
def entry(x: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[1, 128], pl.FP32]]):
    row_op(x, out)
    return out
)";
  auto p = ptest::parse(src);
  CHECK(names(p) == std::vector<std::string>{"entry", "row_op"});
  CHECK(has(ir::print_function(*p->find("row_op")), "pl.tile.load(x, [0, 0], [1, 64])"));
  parser::FrontendOptions o;
  o.defines = {{"WIDE", "True"}};
  CHECK(has(ir::print_function(*ptest::parse(src, o)->find("row_op")), "pl.tile.load(x, [0, 0], [1, 128])"));

  std::string env = src;
  env.replace(env.find("WIDE = False"), 12, "import os\nWIDE = os.environ.get('WIDE') == '1'");
  auto e = ptest::errors(env);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E202");
  CHECK(has(e[0].message, "pass -D WIDE=VALUE"));
  CHECK(e[0].span.line == 6);  // the condition
}
