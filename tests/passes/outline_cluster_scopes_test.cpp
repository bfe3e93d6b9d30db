// OutlineClusterScopes: a pl.spmd scope around one kernel call becomes the call's launch spec
// (core_num; sync_start, allow_early_resolve; deps= / `as tid` make it a submit); a pl.cluster
// scope around one kernel dispatch goes; a body with two kernels, a predicate, a pl.cluster scope
// around two kernels and a pl.spmd in a kernel are E501 errors at the scope.
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr run(const ir::ProgramPtr& p) { return pass_test::run(passes::outline_cluster_scopes_pass(), p); }
const char* kKernel = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [b * 16, 0], [16, 16])
        out_1: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [b * 16, 0], out)
        return out_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
)";
ir::ProgramPtr program(const std::string& body) { return pass_test::parse(std::string(kKernel) + body); }
}  // namespace

TEST_CASE("a pl.spmd scope around one kernel call becomes the call's block count", "[OutlineClusterScopes]") {
  auto before = program(
      "        with pl.spmd(4):\n"
      "            out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n"
      "        return out_1\n");
  // The SPMD dispatch pl.spmd_submit writes: its TaskId (unused here) ends the results.
  auto expected = program(
      "        r = pl.spmd_submit(self.k, x, out, core_num=4)\n"
      "        out_1: pl.Tensor[[64, 16], pl.FP32] = r[0]\n"
      "        k_task: pl.Scalar[pl.TASK_ID] = r[1]\n"
      "        return out_1\n");
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("a pl.cluster scope around one kernel dispatch goes, the dispatch stays", "[OutlineClusterScopes]") {
  // Around a pl.spmd: the launch spec as without the cluster.
  auto spmd = program(
      "        with pl.cluster():\n"
      "            with pl.spmd(4):\n"
      "                out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n"
      "        return out_1\n");
  auto bare = program(
      "        with pl.spmd(4):\n"
      "            out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n"
      "        return out_1\n");
  pass_test::require_equal(run(spmd), run(bare));
  // Around one kernel call: the call.
  auto call = program(
      "        with pl.cluster():\n"
      "            out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n"
      "        return out_1\n");
  pass_test::require_equal(run(call), program("        out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n        return out_1\n"));
}

TEST_CASE("deps=, `as tid`, sync_start= and allow_early_resolve= on the pl.spmd go to a submit", "[OutlineClusterScopes]") {
  auto before = program(
      "        with pl.manual_scope():\n"
      "            t0 = pl.system.task_invalid()\n"
      "            with pl.spmd(4, sync_start=True, allow_early_resolve=True, deps=[t0]) as tid:\n"
      "                out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n"
      "        return out_1\n");
  auto got = run(before);
  // The call: a submit of 4 blocks with every option, its TaskId bound to tid.
  const auto* scope = ir::as<ir::ScopeStmt>(ir::flatten_body(got->find("main")->body)[0]);
  REQUIRE(scope);
  auto stmts = ir::flatten_body(scope->body);
  REQUIRE(stmts.size() == 4);  // t0, the submit, out_1, tid
  const auto* call = ir::as<ir::Call>(ir::as<ir::AssignStmt>(stmts[1])->value);
  REQUIRE(call);
  REQUIRE(call->dispatch);
  CHECK(call->dispatch->submit);
  CHECK(ir::const_int_value(call->dispatch->core_num) == 4);
  CHECK(call->dispatch->sync_start);
  CHECK(call->dispatch->allow_early_resolve);
  REQUIRE(call->dispatch->deps.size() == 1);
  CHECK(ir::as<ir::Var>(call->dispatch->deps[0])->name == "t0");
  CHECK(ir::as<ir::AssignStmt>(stmts[2])->var->name == "out_1");
  CHECK(ir::as<ir::AssignStmt>(stmts[3])->var->name == "tid");
  CHECK(ir::as<ir::TupleGetItem>(ir::as<ir::AssignStmt>(stmts[3])->value)->index == 1);
}

TEST_CASE("pl.spmd forms without a launch spec of one kernel are E501 errors at the scope", "[OutlineClusterScopes]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        with pl.spmd(4):\n"
       "            n: pl.Scalar[pl.INDEX] = 3\n"
       "            out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n"
       "        return out_1\n",
       "a statement in a pl.spmd body outside its kernel"},
      {"        with pl.cluster():\n"
       "            out_1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out)\n"
       "            out_2: pl.Tensor[[64, 16], pl.FP32] = self.k(x, out_1)\n"
       "        return out_2\n",
       "a pl.cluster scope with more than one kernel"},
  };
  for (const auto& c : cases) {
    const std::string& body = c.first;
    const std::string& want = c.second;
    INFO(body);
    const auto d = pass_test::first_diagnostic_of([&] { run(program(body)); });
    CHECK_THAT(d.message, Catch::Contains(want) && Catch::Contains("is not supported yet by the pass pipeline"));
    CHECK(d.code == "E501");
    CHECK(d.span.line == (want.rfind("a pl.cluster scope", 0) == 0 ? 15 : 16));  // the scope / the statement
  }
}
