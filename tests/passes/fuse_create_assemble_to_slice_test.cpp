// FuseCreateAssembleToSlice: a tensor a kernel fills and the orchestration assembles once into a
// target becomes a slice of the target (Before/Expected, both through the same front passes); the
// loop carry the assemble fed goes; a lower-rank creation becomes a rank-padded slice; what must
// not be fused stays (atomic / twice assembled / ambiguous sources, a target touched in between,
// an assemble in a nested loop, a use after the assemble); after MaterializeTensorStrides the
// kernel's Out parameter takes the slice's strides, unless another call site disagrees; an assemble
// left in orchestration is E501 with a hint naming the form that compiles.
#include "pass_test_util.h"

#include "ir/printer.h"

using namespace pypto;

namespace {

const std::vector<std::string> kFront = {"convert_to_ssa", "normalize_stmt_structure", "flatten_call_expr",
                                         "outline_incore_scopes"};

ir::ProgramPtr front(const std::string& text) { return pass_test::run_named(kFront, pass_test::parse(text)); }
ir::ProgramPtr fuse(const ir::ProgramPtr& p) { return pass_test::run(passes::fuse_create_assemble_to_slice_pass(), p); }

// A kernel writing one [1, 8] row of its Out parameter, and an orchestration body `orch`.
std::string program(const std::string& orch, const std::string& out_shape = "[4, 8]") {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def fill_row(self, x: pl.Tensor[[4, 8], pl.FP32], r: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:\n"
         "        t: pl.Tile[[1, 8], pl.FP32] = pl.load(x, [r, 0], [1, 8])\n"
         "        out_1: pl.Tensor[[1, 8], pl.FP32] = pl.store(t, [0, 0], out)\n"
         "        return out_1\n\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def read_all(self, y: pl.Tensor[" + out_shape + ", pl.FP32], s: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:\n"
         "        t: pl.Tile[[1, 8], pl.FP32] = pl.load(y, [0, 0], [1, 8])\n"
         "        s_1: pl.Tensor[[1, 8], pl.FP32] = pl.store(t, [0, 0], s)\n"
         "        return s_1\n\n"
         "    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def orch(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[" + out_shape + ", pl.FP32]], "
         "s: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[" + out_shape + ", pl.FP32]:\n" + orch + "        return out\n";
}

}  // namespace

TEST_CASE("a created row a kernel fills and the loop assembles becomes a slice of the target", "[FuseCreateAssembleToSlice]") {
  auto before = front(program(
      "        for r in pl.range(4):\n"
      "            row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "            row = self.fill_row(x, r, row)\n"
      "            out = pl.assemble(out, row, [r, 0])\n"));
  // The carry of `out` goes with the assemble: the loop yields nothing, `return out` is the parameter.
  auto expected = front(program(
      "        for r in pl.range(4):\n"
      "            row: pl.Tensor[[1, 8], pl.FP32] = pl.slice(out, [1, 8], [r, 0])\n"
      "            row = self.fill_row(x, r, row)\n"));
  auto after = fuse(before);
  pass_test::require_equal(after, expected);
  CHECK(fuse(after) == after);  // nothing left to fuse: the same program
}

TEST_CASE("two rows assembled one after the other both become slices of the first target", "[FuseCreateAssembleToSlice]") {
  auto before = front(program(
      "        a: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        b: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        a = self.fill_row(x, 0, a)\n"
      "        b = self.fill_row(x, 1, b)\n"
      "        out = pl.assemble(out, a, [0, 0])\n"
      "        out = pl.assemble(out, b, [1, 0])\n"));
  // b's assemble wrote the result of a's; with that one gone its slice views the parameter.
  auto expected = front(program(
      "        a: pl.Tensor[[1, 8], pl.FP32] = pl.slice(out, [1, 8], [0, 0])\n"
      "        b: pl.Tensor[[1, 8], pl.FP32] = pl.slice(out, [1, 8], [1, 0])\n"
      "        a = self.fill_row(x, 0, a)\n"
      "        b = self.fill_row(x, 1, b)\n"));
  pass_test::require_equal(fuse(before), expected);
}

TEST_CASE("a lower-rank creation becomes a rank-padded slice", "[FuseCreateAssembleToSlice]") {
  auto after = fuse(front(program(
      "        for b in pl.range(2):\n"
      "            row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "            row = self.fill_row(x, b, row)\n"
      "            out = pl.assemble(out, row, [b, 1, 0])\n",
      "[2, 4, 8]")));
  const std::string text = ir::print_program(*after);
  CHECK(text.find("row: pl.Tensor[[1, 1, 8], pl.FP32] = pl.tensor.slice(out, [1, 1, 8], [b, 1, 0])") != std::string::npos);
  CHECK(text.find("pl.tensor.assemble") == std::string::npos);
}

TEST_CASE("creations that must not become views stay as they are", "[FuseCreateAssembleToSlice]") {
  const char* cases[] = {
      // assembled atomically: the combine would be lost
      "        row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        row = self.fill_row(x, 0, row)\n"
      "        out = pl.assemble(out, row, [0, 0], atomic=pl.AtomicType.Add)\n",
      // assembled twice
      "        row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        row = self.fill_row(x, 0, row)\n"
      "        out = pl.assemble(out, row, [0, 0])\n"
      "        out = pl.assemble(out, row, [1, 0])\n",
      // a kernel reads the target between the creation and the assemble (it would see the new row)
      "        row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        row = self.fill_row(x, 0, row)\n"
      "        s = self.read_all(out, s)\n"
      "        out = pl.assemble(out, row, [0, 0])\n",
      // the assemble runs four times per creation
      "        row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        row = self.fill_row(x, 0, row)\n"
      "        for r in pl.range(4):\n"
      "            out = pl.assemble(out, row, [r, 0])\n",
      // the row is used after the assemble
      "        row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        row = self.fill_row(x, 0, row)\n"
      "        out = pl.assemble(out, row, [0, 0])\n"
      "        row = self.fill_row(x, 1, row)\n",
      // a view of the target is written between the creation and the assemble
      "        v: pl.Tensor[[1, 8], pl.FP32] = pl.slice(out, [1, 8], [0, 0])\n"
      "        row: pl.Tensor[[1, 8], pl.FP32] = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
      "        row = self.fill_row(x, 0, row)\n"
      "        v = self.fill_row(x, 1, v)\n"
      "        out = pl.assemble(out, row, [0, 0])\n",
      // a view as source: nothing was created
      "        row: pl.Tensor[[1, 8], pl.FP32] = pl.slice(x, [1, 8], [0, 0])\n"
      "        out = pl.assemble(out, row, [2, 0])\n",
  };
  for (const char* orch : cases) {
    INFO(orch);
    auto before = front(program(orch));
    CHECK(fuse(before) == before);
  }
}

namespace {

// Column blocks: a [4, 16] block per task assembled into [4, 64]; `extra` adds orchestration lines.
std::string blocks(const std::string& extra = "") {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def fill(self, x: pl.Tensor[[4, 64], pl.FP32], c: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:\n"
         "        t = pl.load(x, [0, c], [4, 16])\n"
         "        o = pl.store(pl.tile.adds(t, 1.0), [0, 0], o)\n"
         "        return o\n\n"
         "    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def orch(self, x: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]], "
         "one: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> tuple[pl.Tensor[[4, 64], pl.FP32], pl.Tensor[[4, 16], pl.FP32]]:\n"
         "        for c in pl.range(0, 64, 16):\n"
         "            blk = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
         "            blk = self.fill(x, c, blk)\n"
         "            out = pl.assemble(out, blk, [0, c])\n" + extra +
         "        return out, one\n";
}

// The default pipeline up to (not including) FuseCreateAssembleToSlice.
ir::ProgramPtr planned(const std::string& text) {
  std::vector<std::string> names;
  for (const auto& n : passes::pass_names()) {
    if (n == "FuseCreateAssembleToSlice") break;
    names.push_back(n);
  }
  return pass_test::run_named(names, pass_test::parse(text));
}

std::string param_type(const ir::ProgramPtr& p, const std::string& fn, size_t i) {
  return ir::print_type(p->find(fn)->params[i]->type);
}

}  // namespace

TEST_CASE("after MaterializeTensorStrides the kernel's Out parameter takes the slice's strides", "[FuseCreateAssembleToSlice]") {
  auto before = planned(blocks());
  CHECK(param_type(before, "fill", 2).find("stride=[16, 1]") != std::string::npos);
  auto after = fuse(before);
  const std::string text = ir::print_program(*after);
  CHECK(text.find("blk: pl.Tensor[[4, 16], pl.FP32, pl.TensorView(stride=[64, 1])] = pl.tensor.slice(out, [4, 16], [0, c])") !=
        std::string::npos);
  CHECK(param_type(after, "fill", 2).find("stride=[64, 1]") != std::string::npos);
  CHECK(text.find("pl.tensor.assemble") == std::string::npos);
}

TEST_CASE("a kernel also handed a packed tensor keeps its layout, and the assemble stays (E501 with a hint)",
          "[FuseCreateAssembleToSlice]") {
  const std::string text = blocks("        one = self.fill(x, 0, one)\n");
  auto before = planned(text);
  CHECK(fuse(before) == before);
  auto d = pass_test::first_diagnostic_of([&] {
    passes::PassContext ctx;
    passes::run_pipeline(pass_test::parse(text), ctx);
  });
  CHECK(d.code == "E501");
  CHECK(d.span.line == 16);  // the assemble
  CHECK(d.message.find("pl.assemble of this source is not supported yet in orchestration code") != std::string::npos);
  CHECK(d.hint.find("pl.slice(target, shape, offsets)") != std::string::npos);
}
