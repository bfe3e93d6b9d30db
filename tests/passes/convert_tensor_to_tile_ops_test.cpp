// ConvertTensorToTileOps (class a): tile kernels pass; tensor ops inside kernels are rejected.
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("tensor op inside a kernel is not supported yet", "[ConvertTensorToTileOps]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.add(x, x)
        return y
)");
  try {
    pass_test::run(passes::convert_tensor_to_tile_ops_pass(), p);
    FAIL("expected an error");
  } catch (const ir::CompileError& e) {
    CHECK(e.diagnostics().at(0).message.find("'pl.tensor.add' inside a kernel is not supported yet") != std::string::npos);
    CHECK(e.diagnostics().at(0).span.line == 8);
  }
}

TEST_CASE("tensor ops in orchestration functions are fine", "[ConvertTensorToTileOps]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], pl.FP32)
        return t
)");
  CHECK(pass_test::run(passes::convert_tensor_to_tile_ops_pass(), p) == p);
}
