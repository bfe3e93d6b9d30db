// MaterializeTensorStrides: packed row-major strides on params and locals.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("packed strides for every tensor", "[MaterializeTensorStrides]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8, 16], pl.FP32]) -> pl.Tensor[[4, 8, 16], pl.FP32]:
        t: pl.Tensor[[32, 16], pl.FP32] = pl.create_tensor([32, 16], pl.FP32)
        return x
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8, 16], pl.FP32, pl.TensorView(stride=[128, 16, 1])]) -> pl.Tensor[[4, 8, 16], pl.FP32]:
        t: pl.Tensor[[32, 16], pl.FP32, pl.TensorView(stride=[16, 1])] = pl.create_tensor([32, 16], pl.FP32)
        return x
)");
  auto after = pass_test::run(passes::materialize_tensor_strides_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TensorStridesMaterialized}, sink));
  pass_test::require_equal(after, expected);
}
