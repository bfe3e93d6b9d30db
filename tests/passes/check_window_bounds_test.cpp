// CheckWindowBounds: windows inside their operand leave the program unchanged (Before ==
// Expected), also at the last iteration of a loop and through a local offset; a slice reaching
// past its tensor at a loop's last iteration (the issue's `xin[r : r + ROWS, :]` over
// `range(0, 2 * ROWS, ROWS)`), a load at a constant offset past the end, a negative offset and a
// store past its output are E510 errors at the op naming the loop value; windows under an `if`
// with loop-dependent offsets, and unreadable offsets, are left to the interpreter / runtime.
#include <fmt/format.h>

#include "pass_test_util.h"

using namespace pypto;

namespace {

std::string orch(const std::string& body) {
  return "import pypto.language as pl\n\nROWS = 16\nCOLS = 32\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def main(self, xin: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]])"
         " -> pl.Tensor[[ROWS, COLS], pl.FP32]:\n" + body + "        return out\n";
}

std::string kernel(const std::string& body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]], n: pl.Scalar[pl.INDEX])"
         " -> pl.Tensor[[64, 32], pl.FP32]:\n" + body + "        return out\n";
}

passes::Pass pipeline_to_check() { return passes::check_window_bounds_pass(); }

ir::ProgramPtr prepared(const std::string& text) {
  return pass_test::run_named({"ConvertToSSA", "Simplify"}, pass_test::parse(text));
}

// "E510 line L: message" of the error the pass raises ("" when it raises none).
std::string error_of(const std::string& text) {
  auto p = prepared(text);
  try {
    pass_test::run(pipeline_to_check(), p);
  } catch (const ir::CompileError& e) {
    const auto& d = e.diagnostics().front();
    return fmt::format("{} line {}: {}", d.code, d.span.line, d.message);
  }
  return "";
}

}  // namespace

TEST_CASE("windows inside their operand leave the program unchanged", "[CheckWindowBounds]") {
  for (const std::string& text : {
           orch("        for r in pl.range(0, ROWS, 8):\n"
                "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                "                out = pl.assemble(out, pl.mul(xin[r : r + 8, :], 2.0), [r, 0])\n"),
           kernel("        for b in pl.range(4):\n            r = b * 16\n"
                  "            t = pl.load(x, [r, 0], [16, 32])\n            out = pl.store(t, [r, 0], out)\n"),
           // Guarded by an if, or at an offset the pass cannot read: not judged here.
           kernel("        for b in pl.range(4):\n            if b < 3:\n"
                  "                t = pl.load(x, [(b + 1) * 16, 0], [16, 32])\n                out = pl.store(t, [0, 0], out)\n"),
           kernel("        t = pl.load(x, [n, 0], [16, 32])\n        out = pl.store(t, [0, 0], out)\n"),
       }) {
    INFO(text);
    auto before = prepared(text);
    pass_test::require_equal(pass_test::run(pipeline_to_check(), before), prepared(text));
  }
}

TEST_CASE("a window outside its operand is E510 at the op, naming the loop value", "[CheckWindowBounds]") {
  // The case: the second iteration (r = 16) reads rows 16..31 of a 16-row tensor.
  std::string msg = error_of(orch("        for r in pl.range(0, 2 * ROWS, ROWS):\n"
                                  "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                                  "                out = pl.mul(xin[r : r + ROWS, :], 2.0)\n"));
  INFO(msg);
  CHECK(msg.find("E510 line 12: ") == 0);
  CHECK(msg.find("pl.tensor.slice reaches element 31 of dimension 0 (when r = 16), but the operand has extent 16") !=
        std::string::npos);

  msg = error_of(kernel("        t = pl.load(x, [56, 0], [16, 32])\n        out = pl.store(t, [0, 0], out)\n"));
  INFO(msg);
  CHECK(msg.find("pl.tile.load reaches element 71 of dimension 0, but the operand has extent 64 there (offset 56 + extent 16)") !=
        std::string::npos);

  msg = error_of(kernel("        for b in pl.range(4):\n            t = pl.load(x, [b * 16 - 8, 0], [16, 32])\n"
                        "            out = pl.store(t, [0, 0], out)\n"));
  INFO(msg);
  CHECK(msg.find("pl.tile.load starts at offset -8 in dimension 0 (when b = 0), below 0") != std::string::npos);

  msg = error_of(kernel("        t = pl.load(x, [0, 0], [16, 32])\n        for c in pl.range(0, 64, 8):\n"
                        "            out = pl.store(t, [c, 0], out)\n"));
  INFO(msg);
  CHECK(msg.find("pl.tile.store reaches element 71 of dimension 0 (when c = 56)") != std::string::npos);
}

TEST_CASE("a store of a tile with a valid shape is checked on its valid region", "[CheckWindowBounds]") {
  // A [16, 64] tile whose valid region is [16, 32] (a padded load, as pypto-lib's hc_pre does)
  // stored at column 0 of a [64, 32] output: inside. The same tile without a valid shape: past it.
  CHECK(error_of(kernel("        t = pl.load(x, [0, 0], [16, 64], valid_shape=[16, 32])\n"
                        "        out = pl.store(t, [0, 0], out)\n")) == "");
  const std::string msg = error_of(kernel("        t = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)\n"
                                          "        out = pl.store(t, [0, 0], out)\n"));
  CHECK(msg.find("E510") != std::string::npos);
  CHECK(msg.find("pl.tile.store reaches element 63 of dimension 1") != std::string::npos);
}

TEST_CASE("an assemble of a source with a valid shape is checked on its valid region", "[CheckWindowBounds]") {
  // out[0:16, 0:32] = a [16, 64] window whose valid region is [16, 32] (pypto-lib's hc_pre writes
  // its padded [T, 8] result into a [T, 4] output this way): inside.
  CHECK(error_of(kernel("        w = pl.full([16, 64], dtype=pl.FP32, value=1.0)\n"
                        "        v = pl.set_validshape(w, 16, 32)\n"
                        "        out = pl.assemble(out, v, [0, 0])\n")) == "");
  // (Without it, the assemble's own type rule refuses the [16, 64] source at the front end.)
}
