// SkewCrossCorePipeline: a pipeline loop whose body sends one tile and then receives one runs its
// sending part D iterations ahead (prologue, steady loop of step D, epilogue), D from the stage
// count, the trip count and the FIFO's depth, each group of D sends with its loads first (buffers
// of their own) where they fit, else in order with W503; a scalar the receiving part needs is
// recomputed there; a body that receives first, sends twice, or a stage=1 loop runs in order
// (pl.range); a pipeline loop without crossings is left to LowerPipelineLoops.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "pass_test_util.h"
#include "passes/memref_util.h"

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
// The sending part split at its load: the load, and the compute + send after it.
std::string produce_load(const std::string& i, const std::string& n, const std::string& indent) {
  return indent + "qa" + n + ": " + T + " = pl.load(q, [" + i + ", 0], [16, 64])\n";
}
std::string produce_rest(const std::string& n, const std::string& indent) {
  return indent + "rs" + n + ": " + T + " = pl.add(qa" + n + ", qa" + n + ")\n" + indent + "pl.tile.tpush_to_aic(rs" + n +
         ")\n";
}
std::string consume(const std::string& i, const std::string& n, const std::string& indent) {
  return indent + "e" + n + ": " + T + " = pl.tile.tpop_from_aic()\n" + indent + "oi" + n + ": " + T + " = pl.add(e" +
         n + ", e" + n + ")\n" + indent + "o" + n + ": " + O + " = pl.store(oi" + n + ", [" + i + ", 0], out)\n";
}
const std::string kPipe =
    "        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), pl.const(0, pl.INT32), dir_mask=3, slot_size=4096, "
    "slot_num=2)\n";

}  // namespace

TEST_CASE("a round trip's sends run two iterations ahead, each group of sends with its loads first",
          "[SkewCrossCorePipeline]") {
  auto before = pass_test::parse(kernel("        for i in pl.pipeline(0, 4, 1, stage=2):\n" + produce("i", "", "            ") +
                                        consume("i", "", "            ")));
  const std::string in8 = "        ", in12 = "            ";
  auto expected = pass_test::parse(kernel(
      produce_load("0", "", in8) + produce_load("1", "1", in8) + produce_rest("", in8) + produce_rest("1", in8) +
      "        for i in pl.range(2, 4, 2):\n" + produce_load("i", "2", in12) + produce_load("i + 1", "3", in12) +
      produce_rest("2", in12) + produce_rest("3", in12) + consume("i - 2", "", in12) + consume("i - 1", "1", in12) +
      consume("2", "2", in8) + consume("3", "3", in8)));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("sends whose loads do not fit twice stay in order, with W503", "[SkewCrossCorePipeline]") {
  // Each send loads 128 KiB into Vec (192 KiB on the 910B): two loads at once do not fit.
  const std::string big = "pl.Tile[[256, 128], pl.FP32, pl.Mem.Vec]";
  auto src = [&](const std::string& body) {
    return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
           "    @pl.function(type=pl.FunctionType.AIV)\n"
           "    def k(self, q: pl.Tensor[[1024, 128], pl.FP32], out: pl.Out[pl.Tensor[[1024, 128], pl.FP32]]):\n" +
           body + "        return\n";
  };
  auto send = [&](const std::string& i, const std::string& n, const std::string& in) {
    return in + "qa" + n + ": " + big + " = pl.load(q, [" + i + ", 0], [256, 128])\n" + in + "rs" + n + ": " + big +
           " = pl.add(qa" + n + ", qa" + n + ")\n" + in + "pl.tile.tpush_to_aic(rs" + n + ")\n";
  };
  auto recv = [&](const std::string& i, const std::string& n, const std::string& in) {
    return in + "e" + n + ": " + T + " = pl.tile.tpop_from_aic()\n" + in + "o" + n +
           ": pl.Tensor[[1024, 128], pl.FP32] = pl.store(e" + n + ", [" + i + ", 0], out)\n";
  };
  auto before = pass_test::parse(src("        for i in pl.pipeline(0, 4, 1, stage=2):\n" + send("i", "", "            ") +
                                     recv("i", "", "            ")));
  const std::string in8 = "        ", in12 = "            ";
  auto expected = pass_test::parse(src(send("0", "", in8) + send("1", "1", in8) + "        for i in pl.range(2, 4, 2):\n" +
                                       send("i", "2", in12) + send("i + 1", "3", in12) + recv("i - 2", "", in12) +
                                       recv("i - 1", "1", in12) + recv("2", "2", in8) + recv("3", "3", in8)));
  passes::PassContext ctx;
  pass_test::require_equal(passes::run_passes(before, {"SkewCrossCorePipeline"}, ctx), expected);
  bool warned = false;
  for (const auto& d : ctx.diagnostics.diagnostics())
    warned = warned || (d.code == "W503" && d.message.find("the 2 sends that run ahead share their buffers") != std::string::npos);
  CHECK(warned);
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

TEST_CASE("after memory planning the sends of one group hold their L0 tiles in buffers of their own",
          "[SkewCrossCorePipeline]") {
  // mixed_pipeline_skew.py: the cube half's steady loop makes two sends (D = 2); each moves its Q
  // block into Left and K into Right. Before the loads-first order both sends shared one Left and
  // one Right buffer, so the second move waited for the first matmul.
  std::ifstream in(std::filesystem::path(PYPTO_TEST_PROGRAMS) / "mixed_pipeline_skew.py");
  std::stringstream ss;
  ss << in.rdbuf();
  passes::PassContext ctx;
  auto out = passes::run_pipeline(pass_test::parse(ss.str(), "mixed_pipeline_skew.py"), ctx);
  ir::FunctionPtr aic;
  for (const auto& f : out->functions)
    if (f->type == ir::FunctionType::AIC) aic = f;
  REQUIRE(aic);
  const ir::ForStmt* steady = nullptr;
  for (const auto& st : ir::flatten_body(aic->body))
    if (const auto* f = ir::as<ir::ForStmt>(st); f && !steady) steady = f;
  REQUIRE(steady);
  std::map<ir::MemorySpace, std::set<int64_t>> offsets;
  std::map<ir::MemorySpace, int> tiles;
  for (const auto& st : ir::flatten_body(steady->body)) {
    const auto* a = ir::as<ir::AssignStmt>(st);
    const auto* c = a ? ir::as<ir::Call>(a->value) : nullptr;
    if (c && c->is_op("tile.tpop_from_aiv")) break;  // the receiving parts
    const auto* t = a ? ir::as_tile(a->var->type) : nullptr;
    if (!t || !t->space || (*t->space != ir::MemorySpace::Left && *t->space != ir::MemorySpace::Right)) continue;
    const ir::MemRef* m = passes::memref_of(a->var->type);
    REQUIRE(m);
    const auto off = ir::const_int_value(m->offset);
    REQUIRE(off);
    offsets[*t->space].insert(*off);
    ++tiles[*t->space];
  }
  CHECK(tiles[ir::MemorySpace::Left] == 2);
  CHECK(tiles[ir::MemorySpace::Right] == 2);
  CHECK(offsets[ir::MemorySpace::Left].size() == 2);
  CHECK(offsets[ir::MemorySpace::Right].size() == 2);
}
