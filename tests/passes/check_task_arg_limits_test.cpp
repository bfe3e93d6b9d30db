// CheckTaskArgLimits: a program within the runtime ABI's argument limits is unchanged (Before ==
// Expected); a kernel with 33 tensor parameters or 17 scalar parameters is an E903 error naming
// the counts and the limit; the SoC description's limits equal the runtime's ABI constants.
#include <fmt/format.h>

#include "pass_test_util.h"
#include "pto_orchestration_api.h"

using namespace pypto;

namespace {
// A program whose AIV kernel takes `tensors` tensor and `scalars` scalar parameters.
std::string program(int tensors, int scalars) {
  std::string params;
  for (int i = 0; i < tensors; ++i) params += fmt::format(", t{}: pl.Tensor[[16, 16], pl.FP32]", i);
  for (int i = 0; i < scalars; ++i) params += fmt::format(", s{}: pl.Scalar[pl.INT32]", i);
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIV)\n"
         "    def k(self" + params + "):\n        return\n";
}
}  // namespace

TEST_CASE("a program within the limits is unchanged", "[CheckTaskArgLimits]") {
  auto before = pass_test::parse(program(32, 16));
  auto expected = pass_test::parse(program(32, 16));
  pass_test::require_equal(pass_test::run(passes::check_task_arg_limits_pass(), before), expected);
}

TEST_CASE("a kernel over the task limits is an E903 error", "[CheckTaskArgLimits]") {
  for (auto [t, s] : {std::pair{33, 0}, std::pair{1, 17}}) {
    auto p = pass_test::parse(program(t, s));
    const std::string msg = pass_test::compile_error_of([&] { pass_test::run(passes::check_task_arg_limits_pass(), p); });
    INFO(msg);
    CHECK(msg.find(fmt::format("has {} tensor and {} scalar parameters", t, s)) != std::string::npos);
    CHECK(msg.find("at most 32 tensors and 16 scalars") != std::string::npos);
  }
}

TEST_CASE("the SoC limits are the runtime ABI's constants", "[CheckTaskArgLimits]") {
  for (auto soc : {ir::Soc::Ascend910B, ir::Soc::Ascend950}) {
    const auto& info = ir::soc_info(soc);
    CHECK(info.task_tensor_args == CORE_MAX_TENSOR_ARGS);
    CHECK(info.task_scalar_args == CORE_MAX_SCALAR_ARGS);
    CHECK(info.entry_tensor_args == CHIP_MAX_TENSOR_ARGS);
    CHECK(info.entry_scalar_args == CHIP_MAX_SCALAR_ARGS);
  }
}
