// OutlineIncoreScopes (class a): InCore functions pass; an InCore scope is "not supported yet".
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("InCore scope is reported at its span", "[OutlineIncoreScopes]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            o = pl.add(x, x)
        return o
)");
  try {
    pass_test::run(passes::outline_incore_scopes_pass(), p);
    FAIL("expected an error");
  } catch (const ir::CompileError& e) {
    CHECK(e.diagnostics().at(0).message.find("not supported yet") != std::string::npos);
    CHECK(e.diagnostics().at(0).span.line == 8);
  }
}

TEST_CASE("kernels written as InCore functions pass unchanged", "[OutlineIncoreScopes]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o2
)");
  CHECK(pass_test::run(passes::outline_incore_scopes_pass(), p) == p);
}
