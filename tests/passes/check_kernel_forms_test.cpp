// CheckKernelForms: a kernel the tile backend can write is unchanged (Before == Expected); each
// form it cannot write yet is an E501 error at its line naming the form (break, dynamic
// load window, unaligned / runtime-column / valid-shaped tile windows, clamp, equal-shape
// elementwise ops on broadcasting tiles, a windowed store of
// a valid-shaped tile, unused tile-op result, transpose without tmp, a transpose view of a Vec
// tile, ops the registry marks
// kernel_deferred, tuple values, float floor division, calls to program functions;
// types the kernel emitter cannot spell — memory spaces, non-2-D tiles, GM views of rank 6,
// element types without a C++ spelling, dynamic dimensions no parameter carries — and Group /
// Spmd functions, each at its line). Loads with a (dynamic) valid_shape, fillpad and tensors with
// dynamic strides are written, so they pass unchanged.
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

TEST_CASE("valid shapes (loads, slices), fillpad and dynamic strides are kernel forms the backend writes", "[CheckKernelForms]") {
  const std::string program =
      "import pypto.language as pl\n\nL = pl.dynamic(\"L\")\n\n@pl.program\nclass P:\n"
      "    @pl.function(type=pl.FunctionType.AIV)\n"
      "    def k(self, x: pl.Tensor[[16, L], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, L], pl.FP32]])"
      " -> pl.Tensor[[16, L], pl.FP32]:\n"
      "        t = pl.load(x, [0, 0], [16, 16], valid_shape=[16, n])\n"
      "        p = pl.tile.fillpad(t, pad_value=pl.PadValue.max)\n"
      "        u = pl.tile.fillpad_expand(t, [16, 32], pad_value=pl.PadValue.min)\n"
      "        w = pl.tile.slice(t, [16, 16], [0, 0], [16, n])\n"  // a view with fewer valid columns
      "        s = pl.add(t, t)\n"
      "        r = pl.store(s, [0, 0], o)\n"
      "        return r\n";
  auto before = pass_test::parse(program);
  auto expected = pass_test::parse(program);
  pass_test::require_equal(pass_test::run(passes::check_kernel_forms_pass(), before), expected);
}

TEST_CASE("forms the backend cannot write are E501 errors naming the form", "[CheckKernelForms]") {
  const std::string load = "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        for i in pl.range(0, 4):\n            break\n", "break"},
      {"        t = pl.load(x, [0, 0], [n, 16])\n", "pl.tile.load with a dynamic window shape"},
      {"        t = pl.load(x, [0, 0], [16, 16], clamp=True)\n", "pl.tile.load(clamp=True)"},
      {"        t = pl.load(x, [0, 0], [16, 16], [8, 16])\n        r = pl.store(t, [0, 0], o, [16, 16])\n",
       "pl.tile.store with an explicit window of a tile with a valid shape"},
      {load + "        pl.add(t, t)\n", "pl.tile.add with an unused result"},
      {load + "        u = pl.tile.transpose(t, 0, 1)\n", "pl.tile.transpose without a tmp tile"},
      // The NZ / ZN dual of a Mat tile is the one transpose view the backends share.
      {load + "        u = pl.tile.transpose_view(t)\n", "pl.tile.transpose_view of a tile other than a whole Mat tile"},
      // Ops the registry marks kernel_deferred (fence as a statement reached the emitter
      // as internal errors before).
      // Windows the view cannot spell (a tile.slice is a view into its source's buffer).
      {load + "        s = pl.tile.slice(t, [8, 8], [0, 4])\n", "pl.tile.slice at column 4 (16 bytes into a row; Vec tiles start on 32-byte boundaries)"},
      {load + "        s = pl.tile.slice(t, [8, 8], [0, n])\n", "pl.tile.slice at a runtime column offset not known to be a multiple of 8 (32 bytes of FP32)"},
      {load + "        for i in pl.range(0, 16, 4):\n            s = pl.tile.slice(t, [8, 4], [0, i])\n            u = pl.add(s, s)\n",
       "pl.tile.slice at a runtime column offset not known to be a multiple of 8 (32 bytes of FP32)"},
      {"        c = pl.tile.ci(0, [16, 16], dtype=pl.INT32)\n", "pl.tile.ci of a tile with more than one row"},
      {"        pl.system.fence()\n", "pl.system.fence"},
      // A pop with no peer: only the halves of a mixed kernel get a pipe (and a kernel on the other core).
      {"        got: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aic()\n",
       "pl.tile.tpop_from_aic on pipe 0, which this kernel does not initialise,"},
      {"        v = pl.system.task_invalid()\n", "pl.system.task_invalid"},
      {"        v = pl.array.create(8, pl.INT32)\n", "pl.array.create"},
      // Rules shared with orchestration code (form_rules.h).
      {"        if n > 0:\n            src = pl.yield_(x)\n        else:\n            src = pl.yield_(o)\n"
       "        t = pl.load(src, [0, 0], [16, 16])\n",
       "an if whose arms yield different tensors for 'src' ('x' and 'o')"},
      {load + "        tp = (t, t)\n", "a tuple value bound to a variable"},
      {load + "        s: pl.Scalar[pl.FP32] = pl.tile.read(t, [0, 0])\n        s2: pl.Scalar[pl.FP32] = s // 2.0\n"
              "        u = pl.adds(t, s2)\n",
       "floor division of floating-point scalars"},
  };
  for (const auto& [body, what] : cases) {
    const std::string msg = error_of(body);
    INFO(body << "\n→ " << msg);
    CHECK(msg.find(what + " is not supported yet in a kernel") != std::string::npos);
  }
}

TEST_CASE("a call to a program function inside a kernel is an E501 error at the call", "[CheckKernelForms]") {
  const std::string head =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIV)\n"
      "    def h(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])\n"
      "        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)\n        return r\n\n"
      "    @pl.function(type=pl.FunctionType.AIV)\n"
      "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n";
  // As a statement (an internal error in the emitter before) and as an assignment.
  for (const std::string call : {"        self.h(x, o)\n", "        r = self.h(x, o)\n"}) {
    INFO(call);
    auto p = pass_test::parse(head + call + "        return o\n");
    std::string msg;
    int line = 0;
    try {
      pass_test::run(passes::check_kernel_forms_pass(), p);
    } catch (const ir::CompileError& e) {
      msg = e.diagnostics().at(0).message;
      line = static_cast<int>(e.diagnostics().at(0).span.line);
    }
    CHECK(msg == "a call to function 'h' is not supported yet in a kernel");
    CHECK(line == 13);
  }
}

namespace {
// A program of one kernel `k(params)` with `body`, after a module-level pl.dynamic symbol N; the
// kernel's statements start at line 9.
std::string kernel_with(const std::string& params, const std::string& body, const std::string& type = "AIV") {
  return "import pypto.language as pl\n\nN = pl.dynamic(\"N\")\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType." + type + ")\n    def k(self, " + params + "):\n" + body +
         "        return\n";
}
}  // namespace

TEST_CASE("types the kernel emitter cannot spell are E501 errors at their line", "[CheckKernelForms]") {
  const std::string x = "x: pl.Tensor[[16, 16], pl.FP32]";
  struct Case {
    std::string params, body, what;
    int line;
  };
  const std::vector<Case> cases = {
      {x, "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])\n"
          "        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.ScalarLocal] = pl.tile.move(t, target_memory=pl.Mem.ScalarLocal)\n",
       "a tile in memory space ScalarLocal ('u')", 10},
      {"x: pl.Tensor[[16], pl.FP32]", "        t = pl.load(x, [0], [16])\n",
       "a tile that is not 2-D with a static shape ('t')", 9},
      {"x: pl.Tensor[[1, 1, 1, 1, 16, 16], pl.FP32]", "        t = pl.load(x, [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 16, 16])\n",
       "pl.tile.load on a tensor of rank 6 (GM views have rank 1..5)", 9},
      {"x: pl.Tensor[[16, 16], pl.HF8]", "", "the element type HF8", 8},
      {x, "        for i in pl.range(0, N):\n            t = pl.load(x, [0, 0], [16, 16])\n",
       "the dynamic dimension 'N' where no parameter's shape carries it", 9},
  };
  for (const auto& c : cases) {
    auto p = pass_test::parse(kernel_with(c.params, c.body));
    const auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::check_kernel_forms_pass(), p); });
    INFO(c.params << "\n" << c.body << "→ " << d.message);
    CHECK(d.code == "E501");
    CHECK(d.message == c.what + " is not supported yet in a kernel");
    CHECK(d.span.line == static_cast<uint32_t>(c.line));
  }
}

TEST_CASE("a Group or Spmd function is an E501 error at its definition", "[CheckKernelForms]") {
  for (const std::string type : {"Group", "Spmd"}) {
    auto p = pass_test::parse(kernel_with("x: pl.Tensor[[16, 16], pl.FP32]", "", type));
    const auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::check_kernel_forms_pass(), p); });
    CHECK(d.code == "E501");
    CHECK(d.message == "a " + type + " function ('k') is not supported yet");
    CHECK(d.span.line == 8);
  }
}

// Found by the grammar-aware mutator (tests/fuzz): `@pl.function()` is an Opaque function, which no
// core runs and nothing gives on-chip memory; its tiles reached AllocateMemoryAddr's verifier as an
// internal error. The whole pipeline now stops at CheckKernelForms, at the first tile's line.
TEST_CASE("tiles in a function that is not a kernel are an E501 error at the tile", "[CheckKernelForms]") {
  const std::string src = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function()
    def k(self, x: pl.Tensor[[32, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [32, 128])
        return pl.store(pl.exp(t), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        out = self.k(x, out)
        return out
)";
  auto p = pass_test::parse(src);
  passes::PassContext ctx;
  const auto d = pass_test::first_diagnostic_of([&] { passes::run_pipeline(p, ctx); });
  CHECK(d.code == "E501");
  CHECK(d.message == "a tile ('t') in function 'k' of type Opaque, which is not a kernel");
  CHECK(d.span.line == 7);
}

// tile.add of a [16, 16] and a [1, 16] tile type-checks (numpy broadcasting) but TADD needs equal
// shapes: it computed garbage. Equal-shape ops (registry same_shapes) on unequal tiles are an
// E501 error at the op whose hint names the op's expand form.
TEST_CASE("an equal-shape elementwise op on broadcasting tiles is an E501 error naming the expand form", "[CheckKernelForms]") {
  const std::string params =
      "x: pl.Tensor[[16, 16], pl.FP32], r: pl.Tensor[[1, 16], pl.FP32], c: pl.Tensor[[16, 1], pl.INT32], "
      "i: pl.Tensor[[16, 16], pl.INT32]";
  const std::string loads =
      "        t = pl.load(x, [0, 0], [16, 16])\n        v = pl.load(r, [0, 0], [1, 16])\n"
      "        w = pl.load(c, [0, 0], [16, 1])\n        j = pl.load(i, [0, 0], [16, 16])\n";
  struct Case {
    std::string body, what, hint;
  };
  const std::vector<Case> cases = {
      {"        s = pl.tile.add(t, v)\n", "pl.tile.add of tiles of shapes [16, 16] and [1, 16]",
       "use pl.tile.col_expand_add(t, row) to apply a [1, C] row to every row of t, or pl.tile.row_expand_add(t, col)"},
      {"        s = pl.tile.maximum(v, t)\n", "pl.tile.maximum of tiles of shapes [1, 16] and [16, 16]",
       "use pl.tile.col_expand_max(t, row)"},
      {"        s = pl.tile.and(j, w)\n", "pl.tile.and of tiles of shapes [16, 16] and [16, 1]", "give both operands one shape"},
  };
  for (const auto& c : cases) {
    auto p = pass_test::parse(kernel_with(params, loads + c.body));
    const auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::check_kernel_forms_pass(), p); });
    INFO(c.body << "→ " << d.message << " / " << d.hint);
    CHECK(d.code == "E501");
    CHECK(d.message == c.what + " (broadcasting; its instruction needs equal shapes) is not supported yet in a kernel");
    CHECK(d.hint.find(c.hint) != std::string::npos);
    CHECK(d.span.line == 13);
  }
  // Equal shapes pass.
  auto ok = pass_test::parse(kernel_with(params, loads + "        s = pl.tile.add(t, t)\n        e = pl.tile.col_expand_add(t, v)\n"));
  CHECK(pass_test::compile_error_of([&] { pass_test::run(passes::check_kernel_forms_pass(), ok); }).empty());
}

namespace {
// An AIC kernel with a matmul result `acc` [64, 64] FP32 in Acc, then `body`.
std::string acc_kernel(const std::string& body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIC)\n"
         "    def k(self, a: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]])"
         " -> pl.Tensor[[64, 64], pl.FP32]:\n"
         "        am: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
         "        l: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)\n"
         "        r: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)\n"
         "        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)\n" +
         body + "        return o\n";
}
}  // namespace

TEST_CASE("windows of an Acc tile on the NZ fractal grid are kernel forms the backend writes", "[CheckKernelForms]") {
  // Constant origins, a loop index stepping by 16, a scalar computed from one, a window of a window.
  const std::string body =
      "        w = pl.tile.slice(acc, [16, 64], [16, 0])\n"
      "        o1 = pl.store(w, [0, 0], o)\n"
      "        for i in pl.range(0, 64, 16):\n"
      "            c = pl.tile.slice(acc, [64, 16], [0, i])\n"
      "            o2 = pl.store(c, [0, i], o)\n"
      "        for j in pl.range(0, 4):\n"
      "            r0: pl.Scalar[pl.INDEX] = j * 16\n"
      "            b = pl.tile.slice(acc, [16, 64], [r0, 0])\n"
      "            b2 = pl.tile.slice(b, [16, 16], [0, 32])\n"
      "            o3 = pl.store(b2, [r0, 32], o)\n";
  auto before = pass_test::parse(acc_kernel(body));
  auto expected = pass_test::parse(acc_kernel(body));
  pass_test::require_equal(pass_test::run(passes::check_kernel_forms_pass(), before), expected);
}

TEST_CASE("a window of an Acc tile off the fractal grid is an E501 error saying which origin", "[CheckKernelForms]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        w = pl.tile.slice(acc, [8, 64], [8, 0])\n",
       "pl.tile.slice of an Acc tile at a first row not known to be a multiple of 16"},
      {"        w = pl.tile.slice(acc, [16, 8], [0, 8])\n",
       "pl.tile.slice of an Acc tile at a first column not known to be a multiple of 16 (the fractal's width in FP32 elements)"},
      // A runtime origin nothing shows to be aligned (a scalar parameter; a loop stepping by 8).
      {"        w = pl.tile.slice(acc, [16, 64], [n, 0])\n",
       "pl.tile.slice of an Acc tile at a first row not known to be a multiple of 16"},
      {"        for i in pl.range(0, 64, 8):\n            w = pl.tile.slice(acc, [16, 16], [0, i])\n"
       "            o2 = pl.store(w, [0, 0], o)\n",
       "pl.tile.slice of an Acc tile at a first column not known to be a multiple of 16"},
      // Left / Right tiles have no window view.
      {"        w = pl.tile.slice(l, [16, 16], [0, 0])\n", "pl.tile.slice of a Left tile"},
  };
  for (const auto& [body, what] : cases) {
    auto p = pass_test::parse(acc_kernel(body));
    const std::string msg = pass_test::compile_error_of([&] { pass_test::run(passes::check_kernel_forms_pass(), p); });
    INFO(body << "\n→ " << msg);
    CHECK(msg.find(what) != std::string::npos);
    CHECK(msg.find("is not supported yet in a kernel") != std::string::npos);
  }
}

TEST_CASE("a Vec window at a loop index stepping by 32 bytes of columns is a kernel form the backend writes", "[CheckKernelForms]") {
  const std::string body =
      "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])\n"
      "        for i in pl.range(0, 16, 8):\n"
      "            s = pl.tile.slice(t, [16, 8], [0, i])\n"
      "            u = pl.add(s, s)\n"
      "            r = pl.store(u, [0, i], o)\n";
  auto before = pass_test::parse(kernel(body));
  auto expected = pass_test::parse(kernel(body));
  pass_test::require_equal(pass_test::run(passes::check_kernel_forms_pass(), before), expected);
}

TEST_CASE("pl.tile.gather_row forms the backend cannot write are E501 errors", "[CheckKernelForms]") {
  const std::string head =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIC)\n"
      "    def k(self, kv: pl.Tensor[[256, 128], pl.BF16], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 128], pl.BF16]])"
      " -> pl.Tensor[[64, 128], pl.BF16]:\n";
  const std::string mat = "        t: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.create([64, 128], dtype=pl.BF16, target_memory=pl.Mem.Mat)\n";
  const std::string vec = "        t: pl.Tile[[64, 128], pl.BF16, pl.Mem.Vec] = pl.tile.create([64, 128], dtype=pl.BF16)\n";
  // Accepted: any row of a Mat tile at column 0, a runtime source row.
  {
    auto p = pass_test::parse(head + mat + "        u = pl.tile.gather_row(t, kv, [n, 0], [n, 0], [1, 128])\n        return o\n");
    CHECK_NOTHROW(pass_test::run(passes::check_kernel_forms_pass(), p));
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {mat + "        u = pl.tile.gather_row(t, kv, [0, 0], [0, 0], [1, 128], transpose=True)\n", "pl.tile.gather_row(transpose=True)"},
      {mat + "        u = pl.tile.gather_row(t, kv, [0, 8], [0, 0], [1, 64])\n",
       "pl.tile.gather_row at a first column not known to be a multiple of 16"},
      {vec + "        u = pl.tile.gather_row(t, kv, [0, n], [0, 0], [1, 64])\n",
       "pl.tile.gather_row at a first column not known to be a multiple of 16"},
  };
  for (const auto& [body, what] : cases) {
    auto p = pass_test::parse(head + body + "        return o\n");
    const std::string msg = pass_test::compile_error_of([&] { pass_test::run(passes::check_kernel_forms_pass(), p); });
    INFO(body << "\n→ " << msg);
    CHECK(msg.find(what + " is not supported yet in a kernel") != std::string::npos);
  }
}
