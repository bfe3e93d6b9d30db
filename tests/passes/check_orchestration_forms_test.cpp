// CheckOrchestrationForms: an orchestration the PTO2 back end can write is unchanged (Before ==
// Expected; a slice with a valid_shape is one); each form it cannot write yet is an E501 error
// naming the form (tensor creation with a non-ND layout, a tile op, a scope other than a
// runtime scope, an unused creation or element read, the shared rules: tuple
// values, float modulo), calls to non-kernels, a second orchestration function, entry parameters
// the program table cannot describe (runtime-less element types, rank 6) and dynamic dimensions
// no parameter carries, each at its line.
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
      "        w = pl.tensor.slice(x, [8, 16], [8, 0], [4, 16])\n"  // a valid_shape: metadata for kernels
      "        d: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)\n";
  auto before = pass_test::parse(orchestration(body));
  auto expected = pass_test::parse(orchestration(body));
  pass_test::require_equal(pass_test::run(passes::check_orchestration_forms_pass(), before), expected);
}

TEST_CASE("orchestration forms the back end cannot write are E501 errors naming the form", "[CheckOrchestrationForms]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        t = pl.create_tensor([16, 16], dtype=pl.FP32, layout=pl.TensorLayout.NZ)\n",
       "pl.tensor.create with a non-ND layout"},
      {"        with pl.at(level=pl.Level.CORE_GROUP):\n            y = pl.add(x, x)\n", "a "},
      {"        pl.create_tensor([16, 16], dtype=pl.FP32)\n", "pl.tensor.create with an unused result"},
      {"        pl.tensor.read(x, [0, 0])\n", "pl.tensor.read with an unused result"},
      {"        a = pl.create_tensor([16, 16], dtype=pl.FP32)\n        if n > 0:\n            c = pl.yield_(a)\n"
       "        else:\n            c = pl.yield_(x)\n        pl.tensor.write(c, [0, 0], 1.0)\n",
       "an if whose arms yield different tensors for 'c' ('a' and 'x')"},
      {"        for i, (acc,) in pl.range(4, init_values=(x,)):\n            a = pl.create_tensor([16, 16], dtype=pl.FP32)\n"
       "            r = pl.yield_(a)\n        pl.tensor.write(r, [0, 0], 1.0)\n",
       "a loop whose carried tensor 'acc' changes buffer ('x' becomes 'a')"},
      {"        tp = (x, x)\n", "a tuple value bound to a variable"},
      {"        s: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 0])\n        s2: pl.Scalar[pl.FP32] = s % 2.0\n"
       "        pl.tensor.write(x, [0, 0], s2)\n",
       "modulo of floating-point scalars"},
  };
  for (const auto& [body, what] : cases) {
    const std::string msg = error_of(body);
    INFO(body << "\n→ " << msg);
    CHECK(msg.find(what) != std::string::npos);
    CHECK(msg.find("is not supported yet in orchestration code") != std::string::npos);
  }
}

TEST_CASE("calls to functions other than kernels and a second orchestration function are E501 errors", "[CheckOrchestrationForms]") {
  const std::string text = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def helper(self, x: pl.Tensor[[16, 16], pl.FP32]):
        return

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]):
        self.helper(x)
        return
)";
  auto p = pass_test::parse(text);
  const std::string msg = pass_test::compile_error_of([&] { pass_test::run(passes::check_orchestration_forms_pass(), p); });
  CHECK(msg.find("a second Orchestration function ('main' after 'helper') is not supported yet in orchestration code") !=
        std::string::npos);
  // A call to a function that is not an AIV / AIC kernel (a Group function).
  auto q = pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Group)
    def g(self, x: pl.Tensor[[16, 16], pl.FP32]):
        return

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]):
        self.g(x)
        return
)");
  const std::string msg2 = pass_test::compile_error_of([&] { pass_test::run(passes::check_orchestration_forms_pass(), q); });
  CHECK(msg2.find("a call to 'g' (function type Group) is not supported yet in orchestration code") !=
        std::string::npos);
}

TEST_CASE("a kernel call with more results than the kernel has Out / InOut parameters is an E501 error", "[CheckOrchestrationForms]") {
  // The kernel declares a result but returns none (a mutant the emitter used to meet).
  auto p = pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]):
        y = self.k(x)
        return
)");
  const std::string msg = pass_test::compile_error_of([&] { pass_test::run(passes::check_orchestration_forms_pass(), p); });
  CHECK(msg.find("a call to 'k', which returns 1 tensor(s) but has 0 Out / InOut parameter(s) is not supported yet in "
                 "orchestration code") != std::string::npos);
}

TEST_CASE("entry parameters the program table cannot describe are E501 errors at the parameter", "[CheckOrchestrationForms]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x: pl.Tensor[[16, 16], pl.INT4]", "an entry parameter of element type INT4 ('x')"},
      {"x: pl.Tensor[[1, 1, 1, 1, 16, 16], pl.FP32]", "an entry tensor of rank 6 ('x'; the runtime describes rank 1..5)"},
      {"n: pl.Scalar[pl.FP8E5M2]", "an entry parameter of element type FP8E5M2 ('n')"},
  };
  for (const auto& [param, what] : cases) {
    auto p = pass_test::parse("import pypto.language as pl\n\n@pl.program\nclass P:\n"
                              "    @pl.function(type=pl.FunctionType.Orchestration)\n    def main(self,\n             " +
                              param + "):\n        return\n");
    const auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::check_orchestration_forms_pass(), p); });
    INFO(param << " → " << d.message);
    CHECK(d.code == "E501");
    CHECK(d.message == what + " is not supported yet in orchestration code");
    CHECK(d.span.line == 7);
  }
}

TEST_CASE("a dynamic dimension no orchestration parameter carries is an E501 error at its use", "[CheckOrchestrationForms]") {
  auto p = pass_test::parse(R"(import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]):
        for i in pl.range(0, N):
            pl.tensor.write(x, [0, 0], 1.0)
        return
)");
  const auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::check_orchestration_forms_pass(), p); });
  CHECK(d.code == "E501");
  CHECK(d.message == "the dynamic dimension 'N' where no parameter's shape carries it is not supported yet in orchestration code");
  CHECK(d.span.line == 9);
}

TEST_CASE("in-place arrays: reads of the latest value pass; a stale read, an uncarried update in a loop and a read "
          "outside the creating block are E501 errors",
          "[CheckOrchestrationForms][array]") {
  // The latest value read, a copy read before the next update, the array carried through a loop.
  CHECK(error_of("        a = pl.array.create(4, pl.TASK_ID)\n"
                 "        t0 = pl.system.task_invalid()\n"
                 "        b = pl.array.update_element(a, 0, t0)\n"
                 "        c = b\n"
                 "        e = pl.array.get_element(c, 0)\n"
                 "        for i, (d,) in pl.range(4, init_values=(c,)):\n"
                 "            d2 = pl.array.update_element(d, i, e)\n"
                 "            d3 = pl.yield_(d2)\n"
                 "        f = pl.array.get_element(d3, 1)\n") == "");
  // A loop carrying the array its body made (each iteration waits on the previous one's tasks):
  // the slots are copied into the carried array at the end of the iteration.
  CHECK(error_of("        a = pl.array.create(4, pl.TASK_ID)\n"
                 "        for i, (prev,) in pl.range(3, init_values=(a,)):\n"
                 "            nxt = pl.array.create(4, pl.TASK_ID)\n"
                 "            t = pl.array.get_element(prev, 0)\n"
                 "            nxt2 = pl.array.update_element(nxt, 0, t)\n"
                 "            r = pl.yield_(nxt2)\n"
                 "        g = pl.array.get_element(r, 0)\n") == "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        a = pl.array.create(4, pl.INT32)\n"
       "        b = pl.array.create(4, pl.INT32)\n"
       "        for i, (d,) in pl.range(4, init_values=(a,)):\n"
       "            d3 = pl.yield_(b)\n",
       "a loop that carries one array in and another out"},
      {"        a = pl.array.create(4, pl.TASK_ID)\n"
       "        t0 = pl.system.task_invalid()\n"
       "        b = pl.array.update_element(a, 0, t0)\n"
       "        e = pl.array.get_element(a, 0)\n",
       "a read of 'a', an older value of the array updated in place since"},
      {"        a = pl.array.create(4, pl.INT32)\n"
       "        for i in pl.range(4):\n"
       "            b = pl.array.update_element(a, i, 1)\n",
       "an update, inside a loop, of 'a', an array the loop does not carry"},
      {"        a = pl.array.create(4, pl.INT32)\n"
       "        for i, (d,) in pl.range(4, init_values=(a,)):\n"
       "            d2 = pl.array.update_element(d, i, 1)\n"
       "            d3 = pl.yield_(d2)\n"
       "        e = pl.array.get_element(a, 0)\n",
       "a read of 'a', an older value"},
      {"        if n > 0:\n"
       "            a = pl.array.create(4, pl.INT32)\n"
       "            e = pl.array.get_element(a, 0)\n"
       "        f = pl.array.get_element(a, 1)\n",
       "a read of 'a' outside the loop / if / scope body that created the array"},
      {"        a = pl.array.create(4, pl.INT32)\n"
       "        pl.array.update_element(a, 0, 1)\n",
       "pl.array.update_element with an unused result"},
  };
  for (const auto& [body, want] : cases) {
    INFO(body);
    const std::string e = error_of(body);
    CHECK_THAT(e, Catch::Contains(want) && Catch::Contains("is not supported yet in orchestration code"));
  }
}
