// MaterializeTensorStrides: packed strides for views without them (bare tensors stay bare); a view keeps its source's
// strides and a kernel parameter takes those its call sites hand it; layouts a kernel cannot read as
// one ND view (disagreeing call sites, a transposed view, a reshape of a strided view) are E501.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("a view without strides gets its layout's packed ones; a bare tensor stays bare", "[MaterializeTensorStrides]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8, 16], pl.FP32], d: pl.Tensor[[2, 4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)],
             n: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.ND)],
             p: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(stride=[], pad=pl.PadValue.zero)]) -> pl.Tensor[[4, 8, 16], pl.FP32]:
        t: pl.Tensor[[32, 16], pl.FP32] = pl.create_tensor([32, 16], pl.FP32)
        return x
)");
  // DN: the last two dims column-major; a default ND view says nothing: dropped; a pad stays.
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8, 16], pl.FP32], d: pl.Tensor[[2, 4, 8], pl.FP32, pl.TensorView(stride=[32, 1, 4], layout=pl.TensorLayout.DN)],
             n: pl.Tensor[[8, 16], pl.FP32],
             p: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(stride=[16, 1], pad=pl.PadValue.zero)]) -> pl.Tensor[[4, 8, 16], pl.FP32]:
        t: pl.Tensor[[32, 16], pl.FP32] = pl.create_tensor([32, 16], pl.FP32)
        return x
)");
  auto after = pass_test::run(passes::materialize_tensor_strides_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TensorStridesMaterialized}, sink));
  pass_test::require_equal(after, expected);
  CHECK(pass_test::run(passes::materialize_tensor_strides_pass(), after) == after);  // idempotent
}

namespace {

// A kernel over a [16, 64] block and an orchestration handing it `arg` (a view of x: [16, 256]).
std::string program(const std::string& arg, const std::string& kernel_x_view = "", const std::string& local_view = "",
                    const std::string& extra_call = "") {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, xb: pl.Tensor[[16, 64], pl.FP32" + kernel_x_view + "], o: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1])]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
         "        t = pl.load(xb, [0, 0], [16, 64])\n        o = pl.store(t, [0, 0], o)\n        return o\n\n"
         "    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def main(self, x: pl.Tensor[[16, 256], pl.FP32, pl.TensorView(stride=[256, 1])], o: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1])]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
         "        v: pl.Tensor[[16, 64], pl.FP32" + local_view + "] = " + arg + "\n"
         "        o = self.k(v, o)\n" + extra_call + "        return o\n";
}

}  // namespace

TEST_CASE("a view keeps its source's strides, and the kernel it is handed to reads them", "[MaterializeTensorStrides]") {
  // A column block of a [16, 256] tensor: strides (256, 1), on the view and on the kernel parameter.
  pass_test::require_equal(
      pass_test::run(passes::materialize_tensor_strides_pass(), pass_test::parse(program("pl.slice(x, [16, 64], [0, 128])"))),
      pass_test::parse(program("pl.slice(x, [16, 64], [0, 128])", ", pl.TensorView(stride=[256, 1])",
                               ", pl.TensorView(stride=[256, 1])")));
}

TEST_CASE("views a kernel cannot read as one ND layout are E501 at their line", "[MaterializeTensorStrides]") {
  auto err = [](const std::string& text) {
    return pass_test::first_diagnostic_of([&] { pass_test::run(passes::materialize_tensor_strides_pass(), pass_test::parse(text)); });
  };
  // Two call sites with different layouts for one parameter.
  auto d = err(program("pl.slice(x, [16, 64], [0, 128])", "", "",
                       "        w: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)\n        o = self.k(w, o)\n"));
  CHECK(d.code == "E501");
  CHECK(d.span.line == 16);  // the second call
  CHECK(d.message.find("different layouts for parameter 'xb'") != std::string::npos);
  // A transposed view: innermost stride 16.
  const std::string tr =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def k(self, xb: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
      "        t = pl.load(xb, [0, 0], [16, 64])\n        o = pl.store(t, [0, 0], o)\n        return o\n\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
      "        v = pl.transpose(x, 0, 1)\n        o = self.k(v, o)\n        return o\n";
  d = err(tr);
  CHECK(d.span.line == 14);
  CHECK(d.message.find("strides [1, 16]: its innermost stride is not 1") != std::string::npos);
  // A reshape of a column block is no view.
  d = err(program("pl.slice(x, [16, 64], [0, 64])\n        r = pl.reshape(v, [64, 16])"));
  CHECK(d.span.line == 14);
  CHECK(d.message.find("pl.reshape of a strided view (strides [256, 1])") != std::string::npos);
}

TEST_CASE("a kernel parameter viewed DN gets DN packed strides, also when it is called", "[MaterializeTensorStrides]") {
  const std::string text = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)]):
        return

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)]):
        self.k(x)
        return
)";
  auto after = pass_test::run(passes::materialize_tensor_strides_pass(), pass_test::parse(text));
  for (const char* f : {"k", "main"}) {
    INFO(f);
    const auto* t = ir::as_tensor(after->find(f)->params[0]->type);
    REQUIRE(t->view);
    REQUIRE(t->view->stride.size() == 2);
    CHECK(ir::const_int_value(t->view->stride[0]) == 1);  // column-major: [1, 4]
    CHECK(ir::const_int_value(t->view->stride[1]) == 4);
  }
}

TEST_CASE("a packed tensor whose extent the orchestration computed is packed for the kernel", "[MaterializeTensorStrides]") {
  // buf's strides are [n, 1] in the orchestration's terms and [N, 1] in the kernel's: the same
  // packed layout, so the parameter stays packed (no E501 about non-constant strides).
  const std::string text = R"(import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, b: pl.Tensor[[16, N], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(b, [0, 0], [16, 64])
        o = pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, cfg: pl.Tensor[[4], pl.INT64], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        n = pl.tensor.read(cfg, [0])
        buf = pl.create_tensor([16, n], dtype=pl.FP32)
        o = self.k(buf, o)
        return o
)";
  auto p = pass_test::parse(text);
  REQUIRE(p);
  auto got = pass_test::run(passes::materialize_tensor_strides_pass(), p);
  const auto* b = ir::as_tensor(got->find("k")->params[0]->type);
  REQUIRE(b);
  // Packed, in the kernel's own terms: strides [N, 1].
  REQUIRE((b->view && b->view->stride.size() == 2));
  CHECK(b->view->stride[0] == b->shape[1]);
  CHECK(ir::const_int_value(b->view->stride[1]) == 1);
  // A window of that tensor is strided by the runtime extent n: still E501, naming it.
  std::string sliced = text;
  sliced.replace(sliced.find("        o = self.k(buf, o)"), 26,
                 "        big = pl.create_tensor([16, n], dtype=pl.FP32)\n"
                 "        w = pl.slice(big, [16, 64], [0, 64])\n        o = self.k(w, o)");
  auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::materialize_tensor_strides_pass(), pass_test::parse(sliced)); });
  CHECK(d.code == "E501");
  CHECK(d.message.find("strides [n, 1] that are not constants") != std::string::npos);
}
