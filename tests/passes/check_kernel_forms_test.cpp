// CheckKernelForms: a kernel the tile backend can write is unchanged (Before == Expected); each
// form it cannot write yet is an E501 error at its line naming the form (while, break, dynamic
// load window, clamp, smaller load valid_shape, unused tile-op result, transpose without tmp,
// non-literal store offsets).
#include <fmt/format.h>

#include "pass_test_util.h"

using namespace pypto;

namespace {
std::string kernel(const std::string& body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIV)\n"
         "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]])"
         " -> pl.Tensor[[16, 16], pl.FP32]:\n" + body + "        return o\n";
}
std::string error_of(const std::string& body) {
  auto p = pass_test::parse(kernel(body));
  return pass_test::compile_error_of([&] { pass_test::run(passes::check_kernel_forms_pass(), p); });
}
}  // namespace

TEST_CASE("a kernel the backend can write is unchanged", "[CheckKernelForms]") {
  const std::string body =
      "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])\n"
      "        for i in pl.range(0, 4):\n"
      "            s: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(t, t)\n"
      "            r: pl.Tensor[[16, 16], pl.FP32] = pl.store(s, [0, 0], o)\n"
      "        pl.system.bar_all()\n";
  auto before = pass_test::parse(kernel(body));
  auto expected = pass_test::parse(kernel(body));
  pass_test::require_equal(pass_test::run(passes::check_kernel_forms_pass(), before), expected);
}

TEST_CASE("forms the backend cannot write are E501 errors naming the form", "[CheckKernelForms]") {
  const std::string load = "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        while n > 0:\n            n = n - 1\n", "a while loop"},
      {"        for i in pl.range(0, 4):\n            break\n", "break"},
      {"        t = pl.load(x, [0, 0], [n, 16])\n", "pl.tile.load with a dynamic window shape"},
      {"        t = pl.load(x, [0, 0], [16, 16], clamp=True)\n", "pl.tile.load(clamp=True)"},
      {"        t = pl.load(x, [0, 0], [16, 16], [8, 16])\n", "pl.tile.load with a valid_shape smaller than its shape"},
      {load + "        pl.add(t, t)\n", "pl.tile.add with an unused result"},
      {load + "        u = pl.tile.transpose(t, 0, 1)\n", "pl.tile.transpose without a tmp tile"},
  };
  for (const auto& [body, what] : cases) {
    const std::string msg = error_of(body);
    INFO(body << "\n→ " << msg);
    CHECK(msg.find(what + " is not supported yet in a kernel") != std::string::npos);
  }
}
