// `pypto eval` and `pypto test` as a user runs them: eval's .npy outputs against hand-computed
// values, its --seed inputs equal to bin/run's, --after a pass; test's verdict lines, its bisection
// naming a deliberately broken pass (--inject-fault, early and late in the pipeline), a window
// outside a tensor reported at its line before anything runs, and the usage errors.
#include "cli/cli_util.h"
#include "cli/npy_arrays.h"

using namespace clitest;
using pypto::ir::DataType;
using Array = pypto::ir::interp::Array;
namespace npy = pypto::cli;

static Run run_pypto(const std::string& args) { return clitest::pypto(args); }

namespace {

// out = a + 2 * b, in one tile; a second, element-level kernel does out2[i, j] = i * 10 + j.
const char* kAdd = R"(import pypto.language as pl

R = 4
C = 8


@pl.program
class Axpy:
    @pl.function(type=pl.FunctionType.InCore)
    def axpy(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
             out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.load(a, [0, 0], [R, C])
        tb = pl.load(b, [0, 0], [R, C])
        out = pl.store(pl.add(ta, pl.mul(tb, 2.0)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
             out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        out = self.axpy(a, b, out)
        return out
)";

}  // namespace

TEST_CASE("pypto eval computes the hand-checked result and reads bin/run's seeded inputs", "[cli][oracle]") {
  const std::string file = write_file("oracle/axpy.py", kAdd);
  const fs::path in = work("oracle/in"), out = work("oracle/out");
  fs::remove_all(in);
  fs::remove_all(out);
  fs::create_directories(in);
  Array a = Array::zeros(DataType::FP32, {4, 8});
  Array b = Array::zeros(DataType::FP32, {4, 8});
  for (int64_t i = 0; i < 32; ++i) {
    a.set(i, double(i));
    b.set(i, 0.25 * double(i % 5));
  }
  npy::write_npy_array((in / "a.npy").string(), a);
  npy::write_npy_array((in / "b.npy").string(), b);
  auto r = run_pypto("eval '" + file + "' --inputs '" + in.string() + "' --outputs '" + out.string() + "'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("eval: main: 1 output written to") != std::string::npos);
  auto got = npy::read_npy_array((out / "out.npy").string(), DataType::FP32);
  REQUIRE(got.shape == std::vector<int64_t>{4, 8});
  for (int64_t i = 0; i < 32; ++i) CHECK(got.at(i) == double(i) + 2 * 0.25 * double(i % 5));

  // The IR after a late pass (tiles in their MemRefs) gives the same numbers.
  const fs::path late = work("oracle/late");
  r = run_pypto("eval '" + file + "' --inputs '" + in.string() + "' --outputs '" + late.string() + "' --after AllocateMemoryAddr");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(slurp(late / "out.npy") == slurp(out / "out.npy"));

  // --seed: the inputs bin/run --seed 3 draws (the project's run writes generated inputs too).
  const fs::path seeded = work("oracle/seeded"), proj = work("oracle/proj");
  fs::remove_all(seeded);
  r = run_pypto("eval '" + file + "' --seed 3 --outputs '" + seeded.string() + "'");
  REQUIRE(r.code == 0);
  r = run_pypto("build '" + file + "' -o '" + proj.string() + "' -j 2");
  INFO(r.out);
  REQUIRE(r.code == 0);
  r = shell(fmt::format("'{}/bin/run' --seed 3 --outputs '{}/results' 2>&1", proj.string(), proj.string()));
  REQUIRE(r.code == 0);
  CHECK(slurp(seeded / "a.npy") == slurp(proj / "results" / "a.npy"));
  CHECK(slurp(seeded / "b.npy") == slurp(proj / "results" / "b.npy"));

  // No inputs and no seed: a usage error naming the missing file.
  r = run_pypto("eval '" + file + "' --outputs '" + seeded.string() + "'");
  CHECK(r.code == 2);
  CHECK(r.out.find("missing input 'a'") != std::string::npos);
  CHECK(r.out.find("--seed N") != std::string::npos);
}

TEST_CASE("pypto test passes, and names a deliberately broken pass", "[cli][oracle]") {
  const std::string file = write_file("oracle/axpy.py", kAdd);
  auto r = run_pypto("test '" + file + "' --trials 2 -j 2");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("test: main seed 1: out [4, 8] FP32: ok (max abs err 0") != std::string::npos);
  CHECK(r.out.find("test: main seed 2: out [4, 8] FP32: ok") != std::string::npos);
  CHECK(r.out.find("test: main: PASS (1 output, 2 trials)") != std::string::npos);

  // The first add becomes a subtract after the named pass: the run disagrees, and the bisection
  // names that pass — whether it runs on tensor-level IR or on tiles in their MemRefs.
  for (const char* pass : {"ConvertTensorToTileOps", "MemoryReuse", "InsertPipeSync"}) {
    r = run_pypto(fmt::format("test '{}' -j 2 --inject-fault {}", file, pass));
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("MISMATCH") != std::string::npos);
    CHECK(r.out.find(fmt::format("the first pass whose IR disagrees with the source program: {} (", pass)) !=
          std::string::npos);
    CHECK(r.out.find("test: main: FAIL (1 of 1 trial") != std::string::npos);
  }
  r = run_pypto("test '" + file + "' --inject-fault NoSuchPass");
  CHECK(r.code == 2);
  CHECK(r.out.find("NoSuchPass") != std::string::npos);
}

TEST_CASE("pypto test: a window outside a tensor is reported at its line before the run", "[cli][oracle]") {
  // A constant offset past the end: the compiler's CheckWindowBounds (E510) already says so.
  std::string text = kAdd;
  text.replace(text.find("tb = pl.load(b, [0, 0]"), 22, "tb = pl.load(b, [1, 0]");
  const std::string file = write_file("oracle/oob.py", text);
  auto r = run_pypto("test '" + file + "' -j 2");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("error[E510]: pl.tile.load reaches element 4 of dimension 0, but the operand has extent 4") !=
        std::string::npos);
  CHECK(r.out.find("oob.py:13:14") != std::string::npos);

  // Under an `if` the compiler does not judge a loop-dependent window; the interpreter, run
  // before bin/run, stops at it (the second iteration loads rows 4..7 of a 4-row tensor).
  text = kAdd;
  text.replace(text.find("        tb = pl.load(b, [0, 0], [R, C])\n"), 40,
               "        tb = ta\n        for i in pl.range(2):\n            if i >= 0:\n"
               "                tb = pl.load(b, [i * R, 0], [R, C])\n");
  const std::string guarded = write_file("oracle/oob_guarded.py", text);
  r = run_pypto("test '" + guarded + "' -j 2");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("error[E602]: pypto eval: pl.tile.load window [4, 8] at offset [4, 0] is outside the operand of "
                   "shape [4, 8]") != std::string::npos);
  CHECK(r.out.find("oob_guarded.py:16:22") != std::string::npos);
  CHECK(r.out.find("bin/run failed") == std::string::npos);
}

TEST_CASE("pypto eval / test take run-time values: --run-scalar and --shape", "[cli][oracle]") {
  const std::string rows = std::string(PYPTO_TEST_PROGRAMS) + "/dynamic_rows.py";
  const std::string dims = std::string(PYPTO_TEST_PROGRAMS) + "/dynamic_dims.py";
  const fs::path out = work("oracle/run_values");
  fs::remove_all(out);
  // The Out tensor takes N from --shape x, the generated input; out = x + x.
  auto r = run_pypto("eval '" + rows + "' --seed 2 --shape 'x=[80, 64]' --outputs '" + out.string() + "'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  Array x = npy::read_npy_array((out / "x.npy").string(), DataType::FP32);
  Array o = npy::read_npy_array((out / "out.npy").string(), DataType::FP32);
  REQUIRE(x.shape == std::vector<int64_t>{80, 64});
  REQUIRE(o.shape == std::vector<int64_t>{80, 64});
  for (int64_t i = 0; i < o.numel(); ++i) REQUIRE(o.at(i) == 2 * x.at(i));
  // The same seed and extents give bin/run's input (the same generator).
  auto unsized = run_pypto("eval '" + rows + "' --seed 2 --outputs '" + out.string() + "'");
  CHECK(unsized.code != 0);
  CHECK(unsized.out.find("'x' [N, 64]: dim 0 (N) is given by no scalar and no tensor") != std::string::npos);
  CHECK(unsized.out.find("dynamic_rows.py:") != std::string::npos);

  // A runtime scalar: the run value goes to the interpreter and to bin/run; M also sizes x and out.
  r = run_pypto("test '" + dims + "' --run-scalar M=160 -j 2");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("out [160, 128] FP32: ok") != std::string::npos);
  auto missing = run_pypto("test '" + dims + "' --no-run");
  CHECK(missing.code != 0);
  CHECK(missing.out.find("pass --run-scalar M=VALUE") != std::string::npos);
  auto unknown = run_pypto("test '" + dims + "' --run-scalar M=64 --run-scalar K=3 --no-run");
  CHECK(unknown.code != 0);
  CHECK(unknown.out.find("has no scalar parameter 'K'") != std::string::npos);
  auto not_int = run_pypto("test '" + dims + "' --run-scalar M=6.5 --no-run");
  CHECK(not_int.code != 0);
  CHECK(not_int.out.find("'6.5' is not a value of dtype INDEX") != std::string::npos);
  auto bad_shape = run_pypto("test '" + rows + "' --shape x=abc --no-run");
  CHECK(bad_shape.code != 0);
  CHECK(bad_shape.out.find("expected NAME=[D0,D1,...]") != std::string::npos);
}

TEST_CASE("pypto test --inputs: the given files are the inputs of every trial, the others are drawn", "[cli][oracle]") {
  const std::string file = write_file("oracle/axpy_inputs.py", kAdd);
  const fs::path in = work("oracle/given"), w = work("oracle/given_work");
  fs::remove_all(in);
  fs::remove_all(w);
  fs::create_directories(in);
  Array a = Array::zeros(DataType::FP32, {4, 8});
  for (int64_t i = 0; i < 32; ++i) a.set(i, 100.0 + double(i));
  npy::write_npy_array((in / "a.npy").string(), a);
  auto r = run_pypto("test '" + file + "' --inputs '" + in.string() + "' --trials 2 -o '" + w.string() + "' -j 2");
  INFO(r.out);
  REQUIRE(r.code == 0);
  for (const char* seed : {"seed_1", "seed_2"}) {
    Array used = npy::read_npy_array((w / seed / "inputs" / "a.npy").string(), DataType::FP32);
    for (int64_t i = 0; i < 32; ++i) REQUIRE(used.at(i) == 100.0 + double(i));
    Array b = npy::read_npy_array((w / seed / "inputs" / "b.npy").string(), DataType::FP32);
    Array out = npy::read_npy_array((w / seed / "run" / "out.npy").string(), DataType::FP32);
    for (int64_t i = 0; i < 32; ++i) REQUIRE(out.at(i) == Approx(100.0 + double(i) + 2 * b.at(i)));
  }
  // A file of the wrong shape is refused before anything is built.
  Array wrong = Array::zeros(DataType::FP32, {4, 4});
  npy::write_npy_array((in / "a.npy").string(), wrong);
  auto bad = run_pypto("test '" + file + "' --inputs '" + in.string() + "' --no-run");
  CHECK(bad.code != 0);
  CHECK(bad.out.find("'a'") != std::string::npos);
}

TEST_CASE("pypto test runs a runtime scalar with the spec function's ScalarSpec value", "[cli][oracle]") {
  const std::string text = R"(import pypto.language as pl


@pl.jit
def shift(x: pl.Tensor[[8, 16], pl.FP32], a: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.add(x, a)
    return y


def build_specs(a: float = 2.5):
    import torch
    from golden import ScalarSpec, TensorSpec

    return [
        TensorSpec("x", [8, 16], torch.float32),
        ScalarSpec("a", torch.float32, a),
        TensorSpec("y", [8, 16], torch.float32, is_output=True),
    ]
)";
  const std::string file = write_file("oracle/spec_scalar.py", text);
  const fs::path out = work("oracle/spec_scalar_out");
  fs::remove_all(out);
  auto e = run_pypto("eval '" + file + "' --seed 1 --outputs '" + out.string() + "'");
  INFO(e.out);
  REQUIRE(e.code == 0);
  CHECK(e.out.find("eval: scalar 'a' = 2.5 (the spec function's ScalarSpec") != std::string::npos);
  Array x = npy::read_npy_array((out / "x.npy").string(), DataType::FP32);
  Array y = npy::read_npy_array((out / "y.npy").string(), DataType::FP32);
  for (int64_t i = 0; i < y.numel(); ++i) REQUIRE(y.at(i) == Approx(x.at(i) + 2.5));
  // --run-scalar wins over the spec's value.
  auto given = run_pypto("test '" + file + "' --run-scalar a=-1 --no-run");
  INFO(given.out);
  CHECK(given.code == 0);
  CHECK(given.out.find("ScalarSpec") == std::string::npos);
  auto r = run_pypto("test '" + file + "' -j 2");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("test: scalar 'a' = 2.5") != std::string::npos);
}
