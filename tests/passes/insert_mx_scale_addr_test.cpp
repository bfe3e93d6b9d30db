// InsertMxScaleAddr: before each MX matmul, its LeftScale / RightScale tiles are bound to its Left /
// Right data tiles (a fresh binding per matmul, even for the same operands; in the block of the
// matmul: a branch, a loop body); the acc form binds operands 2 and 4; other kernels and calls are
// left alone; on the 910B an MX matmul is an error at its line. Also the type rules the bindings
// and matmuls meet (E302 with the geometry in the message), and the memory plan that follows
// (a bound scale at its data tile's address / 16).
#include <map>

#include "ir/visitor.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr run(const ir::ProgramPtr& p, ir::Soc soc = ir::Soc::Ascend950) {
  return pass_test::run(passes::insert_mx_scale_addr_pass(), p, soc);
}

// A kernel with the operands already in their spaces (as after InferTileMemorySpace).
std::string kernel(const std::string& body) {
  return R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP8E4M3FN], s: pl.Tensor[[16, 2], pl.FP8E8M0, pl.MX_A_ZZ], b: pl.Tensor[[64, 32], pl.FP8E4M3FN], t: pl.Tensor[[2, 32], pl.FP8E8M0, pl.MX_B_NN], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 32], pl.FP32]:
        am: pl.Tile[[16, 64], pl.FP8E4M3FN, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        sm = pl.load(s, [0, 0], [16, 2], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 32], pl.FP8E4M3FN, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        tm = pl.load(t, [0, 0], [2, 32], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 64], pl.FP8E4M3FN, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        sl: pl.Tile[[16, 2], pl.FP8E8M0, pl.Mem.LeftScale] = pl.tile.move(sm, target_memory=pl.Mem.LeftScale)
        br: pl.Tile[[64, 32], pl.FP8E4M3FN, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        tr: pl.Tile[[2, 32], pl.FP8E8M0, pl.Mem.RightScale] = pl.tile.move(tm, target_memory=pl.Mem.RightScale)
)" + body + R"(        o1: pl.Tensor[[16, 32], pl.FP32] = pl.store(r, [0, 0], o)
        return o1
)";
}

ir::ProgramPtr parse(const std::string& body) {
  auto p = pass_test::parse(kernel(body));
  REQUIRE(p);
  return p;
}

const char* kBindL = "pl.Tile[[16, 2], pl.FP8E8M0, pl.Mem.LeftScale] = pl.tile.tget_scale_addr(sl, al)\n";
const char* kBindR = "pl.Tile[[2, 32], pl.FP8E8M0, pl.Mem.RightScale] = pl.tile.tget_scale_addr(tr, br)\n";
}  // namespace

TEST_CASE("each scale is bound to its data tile right before the MX matmul", "[InsertMxScaleAddr]") {
  auto before = parse("        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, sl, br, tr)\n");
  auto expected = parse(std::string("        sl_bound: ") + kBindL + "        tr_bound: " + kBindR +
                        "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, sl_bound, br, tr_bound)\n");
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("two matmuls on the same operands get a binding each; the acc form binds operands 2 and 4", "[InsertMxScaleAddr]") {
  auto before = parse(
      "        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, sl, br, tr)\n"
      "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx_acc(c, al, sl, br, tr)\n");
  auto expected = parse(std::string("        sl_bound: ") + kBindL + "        tr_bound: " + kBindR +
                        "        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, sl_bound, br, tr_bound)\n"
                        "        sl_bound_1: " + kBindL + "        tr_bound_1: " + kBindR +
                        "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx_acc(c, al, sl_bound_1, br, tr_bound_1)\n");
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("bindings stay in the branch and the loop body of their matmul", "[InsertMxScaleAddr]") {
  auto before = parse(
      "        c0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
      "        for i, (c,) in pl.range(0, 2, 1, init_values=(c0,)):\n"
      "            if n > 0:\n"
      "                d: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx_acc(c, al, sl, br, tr)\n"
      "                e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(d)\n"
      "            else:\n"
      "                e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(c)\n"
      "            r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(e)\n");
  auto expected = parse(
      std::string("        c0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
                  "        for i, (c,) in pl.range(0, 2, 1, init_values=(c0,)):\n"
                  "            if n > 0:\n"
                  "                sl_bound: ") + kBindL + "                tr_bound: " + kBindR +
      "                d: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx_acc(c, al, sl_bound, br, tr_bound)\n"
      "                e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(d)\n"
      "            else:\n"
      "                e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(c)\n"
      "            r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(e)\n");
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("kernels without MX matmuls are left alone", "[InsertMxScaleAddr]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        ar: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(am, target_memory=pl.Mem.Right)
        r: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, ar)
        o1: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o1
)");
  REQUIRE(p);
  CHECK(run(p) == p);
  CHECK(run(p, ir::Soc::Ascend910B) == p);
}

TEST_CASE("an MX matmul on the 910B is an error at its line", "[InsertMxScaleAddr]") {
  auto p = parse("        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, sl, br, tr)\n");
  try {
    run(p, ir::Soc::Ascend910B);
    FAIL("expected an error");
  } catch (const ir::CompileError& e) {
    const std::string m = e.what();
    CHECK(e.diagnostics()[0].code == "E501");
    CHECK(m.find("Ascend 950 only") != std::string::npos);
    CHECK(e.diagnostics()[0].span.line == 16);  // the matmul's line
  }
}

TEST_CASE("the MX type rules name the geometry they need", "[InsertMxScaleAddr]") {
  struct Bad {
    const char* body;
    const char* message;
  };
  const Bad cases[] = {
      // the scale pairs with the wrong data space
      {"        x: pl.Tile[[16, 2], pl.FP8E8M0, pl.Mem.LeftScale] = pl.tile.tget_scale_addr(sl, br)\n"
       "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, x, br, tr)\n",
       "LeftScale with Left"},
      // FP16 data
      {"        h: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.create([16, 64], dtype=pl.FP16, target_memory=pl.Mem.Left)\n"
       "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(h, sl, br, tr)\n",
       "multiplies FP8E4M3FN"},
      // lhs_scale with the rhs's geometry
      {"        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, tr, br, tr)\n",
       "physical rows = 2, but the MX geometry needs 16"},
      // K not a multiple of 64
      {"        h: pl.Tile[[16, 32], pl.FP8E4M3FN, pl.Mem.Left] = pl.tile.create([16, 32], dtype=pl.FP8E4M3FN, target_memory=pl.Mem.Left)\n"
       "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(h, sl, br, tr)\n",
       "K = 32"},
      // a scale tile created in LeftScale
      {"        x: pl.Tile[[16, 2], pl.FP8E8M0, pl.Mem.LeftScale] = pl.tile.create([16, 2], dtype=pl.FP8E8M0, target_memory=pl.Mem.LeftScale)\n"
       "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, x, br, tr)\n",
       "cannot create a tile in pl.Mem.LeftScale"},
      // a B-scale Mat tile moved to LeftScale (its layout is the column-major one)
      {"        x: pl.Tile[[2, 32], pl.FP8E8M0, pl.Mem.LeftScale] = pl.tile.move(tm, target_memory=pl.Mem.LeftScale)\n"
       "        r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(al, sl, br, tr)\n",
       "16 x 2 row-major"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    try {
      pass_test::parse(kernel(c.body));
      FAIL("expected an error");
    } catch (const ir::CompileError& e) {
      INFO(e.what());
      CHECK(e.diagnostics()[0].code == "E302");
      CHECK(std::string(e.what()).find(c.message) != std::string::npos);
    }
  }
}

TEST_CASE("a scale window off the MX boxes and a scale load into Vec are errors", "[InsertMxScaleAddr]") {
  const auto program = [](const std::string& load) {
    return std::string(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: pl.Tensor[[32, 4], pl.FP8E8M0, pl.MX_A_ZZ], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sm = )") + load + "\n        return o\n";
  };
  const std::pair<const char*, const char*> cases[] = {
      {"pl.load(s, [8, 0], [16, 2], target_memory=pl.Mem.Mat)", "row offset 8"},
      {"pl.load(s, [0, 1], [16, 2], target_memory=pl.Mem.Mat)", "column offset 1"},
      {"pl.load(s, [0, 0], [16, 2])", "loads into pl.Mem.Mat"},
  };
  for (const auto& [load, message] : cases) {
    INFO(load);
    try {
      pass_test::parse(program(load));
      FAIL("expected an error");
    } catch (const ir::CompileError& e) {
      CHECK(std::string(e.what()).find(message) != std::string::npos);
    }
  }
}

TEST_CASE("the memory plan puts a bound scale at its data tile's address / 16", "[InsertMxScaleAddr]") {
  // Two Left tiles live at once: the second one's scale sits under it, not at 0.
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP8E4M3FN], s: pl.Tensor[[32, 2], pl.FP8E8M0, pl.MX_A_ZZ], b: pl.Tensor[[64, 32], pl.FP8E4M3FN], t: pl.Tensor[[2, 32], pl.FP8E8M0, pl.MX_B_NN], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        top = pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        bot = pl.move(pl.load(a, [16, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        st = pl.move(pl.load(s, [0, 0], [16, 2], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        sb = pl.move(pl.load(s, [16, 0], [16, 2], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        c1 = pl.matmul_mx(top, st, pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat), pl.load(t, [0, 0], [2, 32], target_memory=pl.Mem.Mat))
        c2 = pl.matmul_mx(bot, sb, pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat), pl.load(t, [0, 0], [2, 32], target_memory=pl.Mem.Mat))
        o = pl.store(c1, [0, 0], o)
        o = pl.store(c2, [16, 0], o)
        return o
)");
  REQUIRE(p);
  auto planned = pass_test::run_named(
      {"ConvertToSSA", "FlattenCallExpr", "InferTileMemorySpace", "InsertMxScaleAddr", "InitMemRef", "MemoryReuse",
       "AllocateMemoryAddr"},
      p, ir::Soc::Ascend950);
  // The address each named tile got.
  std::map<std::string, int64_t> at;
  struct W : ir::IRVisitor {
    std::map<std::string, int64_t>* at;
    void visit_assign(const ir::AssignStmt& a) override {
      if (const auto* t = ir::as_tile(a.var->type); t && t->memref)
        if (auto v = ir::const_int_value(t->memref->offset)) (*at)[a.var->name] = *v;
      ir::IRVisitor::visit_assign(a);
    }
  } w;
  w.at = &at;
  w.visit(planned->functions[0]->body);
  REQUIRE(at.count("top"));
  REQUIRE(at.count("bot"));
  REQUIRE(at.count("st_bound"));
  REQUIRE(at.count("sb_bound"));
  CHECK(at["top"] != at["bot"]);
  CHECK(at["st_bound"] == at["top"] / 16);
  CHECK(at["sb_bound"] == at["bot"] / 16);
  CHECK(at["st"] == at["st_bound"]);  // the move fills the bound place
  CHECK(at["sb"] == at["sb_bound"]);
}
