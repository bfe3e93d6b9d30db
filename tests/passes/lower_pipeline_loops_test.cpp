// LowerPipelineLoops: a pl.pipeline(stage=F) loop becomes the sequential loop with the same
// bounds, carries and body (nested ones too), with one W501 warning per loop at its line; other
// loops are left alone.
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("pipeline loops become sequential loops, each with a warning at its line", "[LowerPipelineLoops]") {
  const std::string head =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n";
  auto before = pass_test::parse(head +
                                 "        for r in pl.pipeline(0, 64, 16, stage=2):\n"
                                 "            for c, (acc,) in pl.pipeline(0, 64, 32, stage=4, init_values=(o,)):\n"
                                 "                t = pl.load(x, [r, c], [16, 32])\n"
                                 "                acc2 = pl.store(t, [r, c], acc)\n"
                                 "                o2 = pl.yield_(acc2)\n"
                                 "        for i in pl.range(2):\n"
                                 "            t = pl.load(x, [0, 0], [16, 32])\n"
                                 "        return o\n");
  auto expected = pass_test::parse(head +
                                   "        for r in pl.range(0, 64, 16):\n"
                                   "            for c, (acc,) in pl.range(0, 64, 32, init_values=(o,)):\n"
                                   "                t = pl.load(x, [r, c], [16, 32])\n"
                                   "                acc2 = pl.store(t, [r, c], acc)\n"
                                   "                o2 = pl.yield_(acc2)\n"
                                   "        for i in pl.range(2):\n"
                                   "            t = pl.load(x, [0, 0], [16, 32])\n"
                                   "        return o\n");
  passes::PassContext ctx;
  auto after = passes::lower_pipeline_loops_pass().run(before, ctx);
  pass_test::require_equal(after, expected);
  const auto& d = ctx.diagnostics.diagnostics();
  REQUIRE(d.size() == 2);
  for (const auto& w : d) {
    CHECK(w.severity == ir::Severity::Warning);
    CHECK(w.code == "W501");
  }
  CHECK(d[0].span.line == 8);  // the inner loop is lowered first, inside its parent
  CHECK(d[0].message.find("pl.pipeline(stage=4)") != std::string::npos);
  CHECK(d[1].span.line == 7);
  // Nothing left to lower: no warnings, the program itself.
  passes::PassContext again;
  CHECK(passes::lower_pipeline_loops_pass().run(after, again) == after);
  CHECK(again.diagnostics.diagnostics().empty());
}
