// SkewCrossCorePipeline: a pipeline loop whose body sends one tile and then receives one runs its
// sending part D iterations ahead (prologue, steady loop of step D, epilogue), D from the stage
// count, the trip count and the FIFO's depth; a scalar the receiving part needs is recomputed
// there; a body that receives first, sends twice, or a stage=1 loop runs in order (pl.range); a
// pipeline loop without crossings is left to LowerPipelineLoops.
#include "pass_test_util.h"

using namespace pypto;

namespace {

ir::ProgramPtr run(const ir::ProgramPtr& p) { return pass_test::run(passes::skew_cross_core_pipeline_pass(), p); }

std::string kernel(const std::string& body, const std::string& prologue = "") {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.AIV)\n"
         "    def k(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):\n" +
         prologue + body + "        return\n";
}

const std::string T = "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]";
const std::string O = "pl.Tensor[[64, 64], pl.FP32]";

// The sending part of iteration `i` (an index expression) and the receiving part, at `indent`.
std::string produce(const std::string& i, const std::string& n, const std::string& indent) {
  return indent + "qa" + n + ": " + T + " = pl.load(q, [" + i + ", 0], [16, 64])\n" + indent + "rs" + n + ": " + T +
         " = pl.add(qa" + n + ", qa" + n + ")\n" + indent + "pl.tile.tpush_to_aic(rs" + n + ")\n";
}
std::string consume(const std::string& i, const std::string& n, const std::string& indent) {
  return indent + "e" + n + ": " + T + " = pl.tile.tpop_from_aic()\n" + indent + "oi" + n + ": " + T + " = pl.add(e" +
         n + ", e" + n + ")\n" + indent + "o" + n + ": " + O + " = pl.store(oi" + n + ", [" + i + ", 0], out)\n";
}
const std::string kPipe =
    "        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), pl.const(0, pl.INT32), dir_mask=3, slot_size=4096, "
    "slot_num=2)\n";

}  // namespace

TEST_CASE("a round trip's sends run two iterations ahead", "[SkewCrossCorePipeline]") {
  auto before = pass_test::parse(kernel("        for i in pl.pipeline(0, 4, 1, stage=2):\n" + produce("i", "", "            ") +
                                        consume("i", "", "            ")));
  auto expected = pass_test::parse(kernel(
      produce("0", "", "        ") + produce("1", "1", "        ") + "        for i in pl.range(2, 4, 2):\n" +
      produce("i", "2", "            ") + produce("i + 1", "3", "            ") + consume("i - 2", "", "            ") +
      consume("i - 1", "1", "            ") + consume("2", "2", "        ") + consume("3", "3", "        ")));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("a FIFO of two slots lets the sends run one iteration ahead; a scalar the receive needs is recomputed",
          "[SkewCrossCorePipeline]") {
  const std::string off = "            off: pl.Scalar[pl.INDEX] = i * 16\n";
  auto before = pass_test::parse(kernel(
      "        for i in pl.pipeline(0, 4, 1, stage=3):\n" + off + produce("off", "", "            ") +
          consume("off", "", "            "),
      kPipe));
  auto off_at = [](const std::string& n, const std::string& i, const std::string& indent) {
    return indent + "off" + n + ": pl.Scalar[pl.INDEX] = " + i + " * 16\n";
  };
  auto expected = pass_test::parse(kernel(
      off_at("", "pl.const(0, pl.INDEX)", "        ") + produce("off", "", "        ") + "        for i in pl.range(1, 4, 1):\n" +
          off_at("1", "i", "            ") + produce("off1", "1", "            ") + off_at("2", "(i - 1)", "            ") +
          consume("off2", "", "            ") + off_at("3", "pl.const(3, pl.INDEX)", "        ") + consume("off3", "1", "        "),
      kPipe));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("an odd trip count takes depth 1; a carried value threads through the receiving parts",
          "[SkewCrossCorePipeline]") {
  const std::string head = "import pypto.language as pl\n\n@pl.program\nclass P:\n"
                           "    @pl.function(type=pl.FunctionType.AIV)\n"
                           "    def k(self, q: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[" + O + "]) -> " + O + ":\n";
  auto before = pass_test::parse(head + "        for i, (acc,) in pl.pipeline(0, 3, 1, stage=2, init_values=(out,)):\n" +
                                 produce("i", "", "            ") + "            e: " + T +
                                 " = pl.tile.tpop_from_aic()\n            acc1: " + O +
                                 " = pl.store(e, [i, 0], acc)\n            r = pl.yield_(acc1)\n        return r\n");
  auto expected = pass_test::parse(
      head + produce("0", "", "        ") + "        for i, (acc,) in pl.range(1, 3, 1, init_values=(out,)):\n" +
      produce("i", "1", "            ") + "            e: " + T + " = pl.tile.tpop_from_aic()\n            acc1: " + O +
      " = pl.store(e, [i - 1, 0], acc)\n            r_swp = pl.yield_(acc1)\n        e1: " + T +
      " = pl.tile.tpop_from_aic()\n        acc2: " + O + " = pl.store(e1, [2, 0], r_swp)\n        r: " + O +
      " = acc2\n        return r\n");
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("receive-first bodies, two sends and stage=1 run in order; loops without crossings stay pipelines",
          "[SkewCrossCorePipeline]") {
  const std::string recv_first = consume("i", "", "            ") + produce("i", "", "            ");
  const std::string two_sends = produce("i", "", "            ") + produce("i", "1", "            ") +
                                consume("i", "", "            ");
  for (const auto& [body, stage] : {std::pair{recv_first, 2}, {two_sends, 2}, {produce("i", "", "            ") +
                                                                                  consume("i", "", "            "), 1}}) {
    INFO(body);
    auto before = pass_test::parse(kernel("        for i in pl.pipeline(0, 4, 1, stage=" + std::to_string(stage) + "):\n" + body));
    auto expected = pass_test::parse(kernel("        for i in pl.range(0, 4, 1):\n" + body));
    pass_test::require_equal(run(before), expected);
  }
  auto plain = pass_test::parse(kernel("        for i in pl.pipeline(0, 4, 1, stage=2):\n" +
                                       std::string("            qa: ") + T + " = pl.load(q, [i, 0], [16, 64])\n" +
                                       "            o1: " + O + " = pl.store(qa, [i, 0], out)\n"));
  CHECK(run(plain) == plain);
}
