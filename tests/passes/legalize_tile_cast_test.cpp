// LegalizeTileCast: tile.cast pairs the SoC's TCVT converts stay; others become the shortest chain
// of native conversions through types that keep the values (INT32 -> FP16 on 950 via FP32, FP32 ->
// INT8 on 910B via FP16, BF16 -> FP16 on 910B via FP32), the round mode on every hop; casts to the
// same type and pairs without a chain are E501 at their line.
#include "pass_test_util.h"

using namespace pypto;

namespace {

// One kernel casting a [16, 32] tile of `from` to `to` with mode `mode`, storing the result.
std::string kernel(const std::string& from, const std::string& to, const std::string& body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, x: pl.Tensor[[16, 32], pl." + from + "], o: pl.Out[pl.Tensor[[16, 32], pl." + to +
         "]]) -> pl.Tensor[[16, 32], pl." + to + "]:\n"
         "        t: pl.Tile[[16, 32], pl." + from + ", pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32])\n" + body +
         "        r: pl.Tensor[[16, 32], pl." + to + "] = pl.tile.store(c, [0, 0], o)\n        return r\n";
}

ir::ProgramPtr legalize(const std::string& text, ir::Soc soc) {
  return pass_test::run(passes::legalize_tile_cast_pass(), pass_test::parse(text), soc);
}

}  // namespace

TEST_CASE("native pairs are left alone on both SoCs", "[LegalizeTileCast]") {
  for (auto [from, to] : {std::pair{"FP32", "FP16"}, {"FP32", "BF16"}, {"FP16", "FP32"}, {"FP32", "INT32"},
                          {"BF16", "FP32"}, {"INT32", "FP32"}}) {
    INFO(from << " -> " << to);
    auto p = pass_test::parse(kernel(from, to, std::string("        c: pl.Tile[[16, 32], pl.") + to +
                                                   ", pl.Mem.Vec] = pl.tile.cast(t, target_type=pl." + to + ", mode=\"rint\")\n"));
    for (auto soc : {ir::Soc::Ascend910B, ir::Soc::Ascend950}) CHECK(pass_test::run(passes::legalize_tile_cast_pass(), p, soc) == p);
  }
}

TEST_CASE("INT32 -> FP16 is native on 910B and goes through FP32 on 950", "[LegalizeTileCast]") {
  const std::string before = kernel("INT32", "FP16",
                                    "        c: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16, mode=\"round\")\n");
  auto p = pass_test::parse(before);
  CHECK(pass_test::run(passes::legalize_tile_cast_pass(), p, ir::Soc::Ascend910B) == p);
  pass_test::require_equal(
      legalize(before, ir::Soc::Ascend950),
      pass_test::parse(kernel("INT32", "FP16",
                              "        c_FP32: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP32, mode=\"round\")\n"
                              "        c: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.cast(c_FP32, target_type=pl.FP16, mode=\"round\")\n")));
}

TEST_CASE("FP32 -> INT8 goes through FP16 and BF16 -> FP16 through FP32 on 910B, each hop in the cast's mode", "[LegalizeTileCast]") {
  pass_test::require_equal(
      legalize(kernel("FP32", "INT8",
                      "        c: pl.Tile[[16, 32], pl.INT8, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.INT8, mode=\"trunc\")\n"),
               ir::Soc::Ascend910B),
      pass_test::parse(kernel("FP32", "INT8",
                              "        c_FP16: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16, mode=\"trunc\")\n"
                              "        c: pl.Tile[[16, 32], pl.INT8, pl.Mem.Vec] = pl.tile.cast(c_FP16, target_type=pl.INT8, mode=\"trunc\")\n")));
  const std::string bf = kernel("BF16", "FP16",
                                "        c: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16, mode=\"rint\")\n");
  pass_test::require_equal(
      legalize(bf, ir::Soc::Ascend910B),
      pass_test::parse(kernel("BF16", "FP16",
                              "        c_FP32: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP32, mode=\"rint\")\n"
                              "        c: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.cast(c_FP32, target_type=pl.FP16, mode=\"rint\")\n")));
  auto p = pass_test::parse(bf);
  CHECK(pass_test::run(passes::legalize_tile_cast_pass(), p, ir::Soc::Ascend950) == p);  // native there
  // INT8 -> FP32: FP16 holds every INT8 value, so it may carry them.
  pass_test::require_equal(
      legalize(kernel("INT8", "FP32", "        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP32)\n"),
               ir::Soc::Ascend910B),
      pass_test::parse(kernel("INT8", "FP32",
                              "        c_FP16: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16)\n"
                              "        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(c_FP16, target_type=pl.FP32)\n")));
}

TEST_CASE("a cast to the same type and a pair without a chain are rejected at their line", "[LegalizeTileCast]") {
  auto same = pass_test::compile_error_of([] {
    legalize(kernel("FP32", "FP32", "        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP32)\n"),
             ir::Soc::Ascend910B);
  });
  CHECK(same.find("'pl.cast' of a FP32 tile to FP32 is no conversion") != std::string::npos);
  // 910B converts nothing into UINT32.
  auto none = pass_test::compile_error_of([] {
    legalize(kernel("FP32", "UINT32", "        c: pl.Tile[[16, 32], pl.UINT32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.UINT32)\n"),
             ir::Soc::Ascend910B);
  });
  CHECK(none.find("'pl.cast' from FP32 to UINT32 is not supported on 910b") != std::string::npos);
  try {
    legalize(kernel("FP32", "FP32", "        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP32)\n"),
             ir::Soc::Ascend910B);
    FAIL("expected an error");
  } catch (const ir::CompileError& e) {
    CHECK(e.diagnostics().at(0).span.line == 8);
  }
}
