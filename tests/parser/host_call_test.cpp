// Entry shapes from the file's own host call (parser/host_call.cpp, parser/const_torch.cpp): a jit
// entry with bare `pl.Tensor` parameters takes its types from `entry.lower(...)` / `.compile(...)` /
// `entry(...)` in the same file's host code, whose torch tensors are followed by shape and dtype
// only (factories, casts, broadcasting arithmetic, indexing, cat, views, helpers defined inside
// the fixture function, loops that write contents). Names resolve to the nearest earlier
// assignment on the call's path, and `if NAME:` around the call decides NAME. A call that cannot
// be read leaves the E103 with a hint that names the call and why; --arg and a spec function win.
#include <catch2/catch.hpp>

#include "ir/ir.h"
#include "parse_helpers.h"

using namespace pypto;
using ptest::errors;
using ptest::parse;

namespace {

struct Param {
  std::vector<int64_t> dims;
  ir::DataType dtype;
};

Param param(const ir::ProgramPtr& p, const std::string& fn, const std::string& name) {
  for (const auto& v : p->find(fn)->params)
    if (v->name == name) {
      auto t = ir::as_tensor(v->type);
      REQUIRE(t);
      Param out{{}, t->dtype};
      for (const auto& d : t->shape) out.dims.push_back(ir::const_int_value(d).value_or(-1));
      return out;
    }
  FAIL("no parameter " << name);
  return {};
}

// An entry of bare parameters (its body only hands `out` back); the host code starts on line 13.
std::string entry_of(const std::vector<std::string>& names) {
  std::string params;
  for (const auto& n : names) params += n + ": pl.Tensor, ";
  return "import pypto.language as pl\nimport torch\n\nROWS = 16\nCOLS = 64\n\n\n@pl.jit\ndef entry(" + params +
         "out: pl.Out[pl.Tensor]):\n    return out\n\n\n";
}

}  // namespace

TEST_CASE("a jit entry takes its bare parameter types from the file's own lower() call", "[parser][jit][host]") {
  const std::string src = entry_of({"x", "w"}) + R"(def make_inputs(initialize: bool):
    import torch

    torch.manual_seed(0)

    def tensor(shape, dtype, *, scale=1.0):
        value = torch.empty(shape, dtype=dtype)
        if not initialize:
            return value
        return value.normal_(mean=0.0, std=scale)

    idx = torch.arange(ROWS, dtype=torch.int32) * 4 + 1
    return [tensor([ROWS, COLS], torch.bfloat16), torch.ones([1, COLS]) + idx.float().unsqueeze(1)[:1]]


def main():
    import argparse

    args = argparse.ArgumentParser().parse_args()
    compile_only = args.platform.endswith("sim")
    inputs = make_inputs(initialize=not compile_only)
    out = torch.empty([ROWS, COLS], dtype=torch.float32)
    if compile_only:
        entry.lower(*inputs, out)
    else:
        entry(*inputs, out, config=args)
)";
  auto p = parse(src);
  // make_inputs ran with initialize=False: `if compile_only:` holds the call, so compile_only is true.
  auto x = param(p, "entry", "x");
  CHECK(x.dims == std::vector<int64_t>{16, 64});
  CHECK(x.dtype == ir::DataType::BF16);
  auto w = param(p, "entry", "w");  // [1, 64] + [16, 1][:1] broadcasts to [1, 64]; int + float is float
  CHECK(w.dims == std::vector<int64_t>{1, 64});
  CHECK(w.dtype == ir::DataType::FP32);
  auto out = param(p, "entry", "out");
  CHECK(out.dims == std::vector<int64_t>{16, 64});
  CHECK(out.dtype == ir::DataType::FP32);
}

TEST_CASE("host tensors follow torch's shape and dtype rules", "[parser][jit][host]") {
  const std::string src = entry_of({"a", "b", "c", "d", "e", "f", "g", "h", "i"}) + R"(def fixture():
    g = torch.Generator().manual_seed(7)
    base = torch.empty(ROWS, COLS).normal_(0.0, 1.0, generator=g)
    seq = torch.randint(1, 100, (ROWS,), dtype=torch.int32)
    pos = torch.arange(0, 10, 3)
    ang = pos.float().unsqueeze(1) * torch.arange(COLS // 2).float().unsqueeze(0)
    table = torch.cat([ang.cos(), ang.sin()], dim=1)
    return (
        base.to(torch.float16),
        seq,
        pos,
        table,
        torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int8),
        base.view(-1, 4).T,
        torch.stack([seq, seq]),
        base[2:10:2, :],
        torch.full([2, seq.shape[0]], 0.5),
    )


if __name__ == "__main__":
    result = torch.zeros(ROWS, COLS)
    entry.compile(*fixture(), result)
)";
  auto p = parse(src);
  auto check = [&](const char* n, std::vector<int64_t> dims, ir::DataType dt) {
    INFO(n);
    auto t = param(p, "entry", n);
    CHECK(t.dims == dims);
    CHECK(t.dtype == dt);
  };
  check("a", {16, 64}, ir::DataType::FP16);
  check("b", {16}, ir::DataType::INT32);
  check("c", {4}, ir::DataType::INT64);  // arange(0, 10, 3): 0 3 6 9
  check("d", {4, 64}, ir::DataType::FP32);
  check("e", {2, 3}, ir::DataType::INT8);
  check("f", {4, 256}, ir::DataType::FP32);
  check("g", {2, 16}, ir::DataType::INT32);
  check("h", {4, 64}, ir::DataType::FP32);
  check("i", {2, 16}, ir::DataType::FP32);
  check("out", {16, 64}, ir::DataType::FP32);
}

TEST_CASE("contents written from data-dependent values do not stop the shapes", "[parser][jit][host]") {
  // The identity-paging fixture of pypto-lib's decode files: a loop over .item() values that
  // writes elements of a tensor whose shape is known.
  const std::string src = entry_of({"lens", "slots"}) + R"(def _slots(lens):
    rows = lens.shape[0]
    slots = torch.empty(rows, dtype=torch.int32)
    for b in range(rows):
        pos = int(lens[b].item()) - 1
        slots[b] = (pos // 16) * 16 + pos % 16
    return slots


def _inputs():
    lens = torch.randint(1, 64 + 1, (ROWS,), dtype=torch.int32)
    return [lens, _slots(lens)]


smoke = torch.empty([ROWS, COLS], dtype=torch.bfloat16)
entry.lower(*_inputs(), smoke)
)";
  auto p = parse(src);
  CHECK(param(p, "entry", "slots").dims == std::vector<int64_t>{16});
  CHECK(param(p, "entry", "out").dtype == ir::DataType::BF16);
}

TEST_CASE("a host call that cannot be read statically is named in the E103 hint", "[parser][jit][host][errors]") {
  SECTION("a branch on tensor contents") {
    const std::string src = entry_of({"x"}) + R"(def inputs():
    t = torch.rand(4)
    if t.sum().item() > 2:
        return [torch.empty(ROWS, COLS)]
    return [torch.empty(COLS, ROWS)]


entry.lower(*inputs(), torch.empty(ROWS, COLS))
)";
    auto e = errors(src);
    REQUIRE(!e.empty());
    CHECK(e[0].code == "E103");
    CHECK(e[0].span.line == 9);
    CHECK_THAT(e[0].hint, Catch::Contains("the call 'entry.lower(...)' at line 20 could not be read statically"));
    CHECK_THAT(e[0].hint, Catch::Contains("it unpacks '*inputs()'"));
  }
  SECTION("a file read") {
    const std::string src = entry_of({"x"}) + R"(x = torch.load("x.pt")
entry(x, torch.empty(ROWS, COLS))
)";
    auto e = errors(src);
    REQUIRE(!e.empty());
    CHECK_THAT(e[0].hint, Catch::Contains("the call 'entry(...)' at line 14 could not be read statically: cannot evaluate x"));
  }
  SECTION("a shape from tensor contents") {
    const std::string src = entry_of({"x"}) + R"(n = torch.randint(1, 9, (1,))
entry(torch.empty(int(n.item()), COLS), torch.empty(ROWS, COLS))
)";
    auto e = errors(src);
    REQUIRE(!e.empty());
    CHECK_THAT(e[0].hint, Catch::Contains("gives 'x' a shape that depends on tensor contents"));
  }
  SECTION("no call at all") {
    auto e = errors(entry_of({"x"}));
    REQUIRE(!e.empty());
    CHECK_THAT(e[0].hint, Catch::Contains("no call of the entry whose shapes can be read statically"));
  }
}

TEST_CASE("--arg and a spec function come before the host call", "[parser][jit][host]") {
  const std::string src = entry_of({"x", "y"}) + R"(def build_tensor_specs():
    from golden import TensorSpec

    return [TensorSpec("x", [32, 64], torch.float32)]


entry(torch.empty(ROWS, COLS), torch.empty(8, COLS, dtype=torch.int32), torch.empty(ROWS, COLS))
)";
  auto p = parse(src);
  CHECK(param(p, "entry", "x").dims == std::vector<int64_t>{32, 64});  // the spec function
  CHECK(param(p, "entry", "y").dims == std::vector<int64_t>{8, 64});   // the call, for what it lacks
  CHECK(param(p, "entry", "y").dtype == ir::DataType::INT32);
  parser::FrontendOptions o;
  o.args["y"] = "FP16[4,64]";
  p = parse(src, o);
  CHECK(param(p, "entry", "y").dims == std::vector<int64_t>{4, 64});
  CHECK(param(p, "entry", "y").dtype == ir::DataType::FP16);
  o = {};
  o.specs = "none";  // no spec function and no host call
  auto e = errors(src, o);
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E103");
}
