// CheckOrchestrationForms: an orchestration the PTO2 back end can write is unchanged (Before ==
// Expected); each form it cannot write yet is an E501 error naming the form (while loop, tensor
// creation with a non-ND layout, slice with a valid_shape, a tile op, a scope other than a
// runtime scope, an unused creation or element read).
#include "pass_test_util.h"

using namespace pypto;

namespace {
std::string orchestration(const std::string& body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def main(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX]):\n" + body + "        return\n";
}
std::string error_of(const std::string& body) {
  auto p = pass_test::parse(orchestration(body));
  return pass_test::compile_error_of([&] { pass_test::run(passes::check_orchestration_forms_pass(), p); });
}
}  // namespace

TEST_CASE("an orchestration the back end can write is unchanged", "[CheckOrchestrationForms]") {
  const std::string body =
      "        t: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)\n"
      "        v: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.slice(x, [8, 16], [0, 0])\n"
      "        d: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)\n";
  auto before = pass_test::parse(orchestration(body));
  auto expected = pass_test::parse(orchestration(body));
  pass_test::require_equal(pass_test::run(passes::check_orchestration_forms_pass(), before), expected);
}

TEST_CASE("orchestration forms the back end cannot write are E501 errors naming the form", "[CheckOrchestrationForms]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        while n > 0:\n            n = n - 1\n", "a while loop"},
      {"        t = pl.create_tensor([16, 16], dtype=pl.FP32, layout=pl.TensorLayout.NZ)\n",
       "pl.tensor.create with a non-ND layout"},
      {"        v = pl.tensor.slice(x, [8, 16], [0, 0], [4, 16])\n", "pl.tensor.slice with a valid_shape"},
      {"        with pl.at(level=pl.Level.CORE_GROUP):\n            y = pl.add(x, x)\n", "a "},
      {"        pl.create_tensor([16, 16], dtype=pl.FP32)\n", "pl.tensor.create with an unused result"},
      {"        pl.tensor.read(x, [0, 0])\n", "pl.tensor.read with an unused result"},
  };
  for (const auto& [body, what] : cases) {
    const std::string msg = error_of(body);
    INFO(body << "\n→ " << msg);
    CHECK(msg.find(what) != std::string::npos);
    CHECK(msg.find("is not supported yet in orchestration code") != std::string::npos);
  }
}
