// Where a bare `pl.Tensor` is accepted in @pl.jit code and what it becomes: a return annotation
// (whole or a tuple element) takes the returned value's type as the reference's re-derivation does,
// with the one tuple form it keeps incomplete rejected; @pl.jit.extern parameters are typed by
// their call like other dependencies, an extern's `-> pl.Tensor` by its first pl.Out parameter;
// an entry's bare parameter without a shape is a located E103 whose hint says where the file could
// give it one. Bare annotations outside jit (and on locals) stay incomplete. A complete one-tensor
// return annotation of jit code yields to the returned value (W012 when they disagree).
#include <catch2/catch.hpp>

#include "ir/ir.h"
#include "parse_helpers.h"

using namespace pypto;
using ptest::errors;
using ptest::parse;

namespace {

std::vector<int64_t> static_dims(const ir::TypePtr& t) {
  std::vector<int64_t> out;
  for (const auto& d : ir::as_tensor(t)->shape) out.push_back(ir::const_int_value(d).value_or(-1));
  return out;
}

const char* kHead = "import pypto.language as pl\n\n\n";

}  // namespace

TEST_CASE("a bare pl.Tensor in a jit return annotation takes the returned value's type", "[parser][jit][bare]") {
  auto p = parse(std::string(kHead) + R"(@pl.jit.inline
def dep(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Tensor) -> tuple[pl.Tensor, pl.Scalar[pl.TASK_ID]]:
    with pl.at(level=pl.Level.CORE_GROUP) as tid:
        t = pl.load(x, [0, 0], [16, 64])
        o = pl.store(pl.add(t, t), [0, 0], o)
    return o, tid


@pl.jit.inline
def twice(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor:
    r, tid = dep(x, o)
    return r


@pl.jit
def main(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor, pl.Tensor]:
    out = twice(x, out)
    return out, x
)");
  const auto& dep = *p->find("dep");
  REQUIRE(dep.return_types.size() == 2);
  CHECK(static_dims(dep.return_types[0]) == std::vector<int64_t>{16, 64});  // the parameter o, typed by its call
  CHECK(ir::as_scalar(dep.return_types[1])->dtype == ir::DataType::TASK_ID);
  const auto& twice = *p->find("twice");
  REQUIRE(twice.return_types.size() == 1);  // `-> pl.Tensor` over a local: inferred
  CHECK(static_dims(twice.return_types[0]) == std::vector<int64_t>{16, 64});
  REQUIRE(p->find("main")->return_types.size() == 2);
}

TEST_CASE("the bare jit return forms the reference cannot re-derive stay rejected", "[parser][jit][bare][errors]") {
  // A local tensor next to a complete element the annotation must keep (a TaskId that is not a
  // parameter): the bare element stays incomplete.
  auto e = errors(std::string(kHead) + R"(@pl.jit.inline
def dep(x: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor, pl.Scalar[pl.TASK_ID]]:
    o = pl.create_tensor([16, 64], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP) as tid:
        o = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], o)
    return o, tid


@pl.jit
def main(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    r, tid = dep(x)
    out = pl.assemble(out, r, [0, 0])
    return out
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E103");
  CHECK(e[0].message == "Incomplete type annotation: pl.Tensor");
  CHECK(e[0].span.line == 5);
  CHECK(e[0].span.col == 51);
  CHECK_THAT(e[0].hint, Catch::Contains("return value 0 ('o') is not a tensor parameter"));
  CHECK_THAT(e[0].hint, Catch::Contains("pl.Tensor[[16, 64], pl.FP32]"));

  // A complete element that the annotation keeps is still checked against its value.
  e = errors(std::string(kHead) + R"(@pl.jit.inline
def dep(x: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor, pl.Scalar[pl.INT32]]:
    with pl.at(level=pl.Level.CORE_GROUP) as tid:
        t = pl.load(x, [0, 0], [16, 64])
    return x, tid


@pl.jit
def main(x: pl.Tensor[[16, 64], pl.FP32]):
    r, tid = dep(x)
    return r
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E104");
  CHECK_THAT(e[0].message, Catch::Contains("return value 1 has type pl.Scalar[pl.TASK_ID]"));

  // Outside jit a bare return annotation is incomplete, as is a bare local annotation anywhere.
  e = errors(std::string(kHead) + R"(@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor:
        return x
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E103");
  CHECK(e[0].message == "Incomplete type annotation: pl.Tensor");
  CHECK(e[0].span.line == 7);
  e = errors(std::string(kHead) + R"(@pl.jit
def main(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor:
    y: pl.Tensor = x
    return y
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E103");
  CHECK(e[0].span.line == 6);
}

TEST_CASE("@pl.jit.extern parameters are typed by their call; `-> pl.Tensor` is the first Out", "[parser][jit][bare]") {
  auto p = parse(std::string(kHead) + R"(@pl.jit.extern(core_type="aiv", source="k.cpp")
def ext(x: pl.Tensor, buf: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]) -> pl.Tensor: ...


@pl.jit
def main(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[8, 32], pl.BF16]]):
    buf = pl.create_tensor([256], dtype=pl.UINT8)
    out = ext(x, buf, out, 0)
    return out
)");
  const auto& ext = *p->find("ext");
  CHECK(static_dims(ext.params[0]->type) == std::vector<int64_t>{16, 64});
  CHECK(static_dims(ext.params[1]->type) == std::vector<int64_t>{256});
  REQUIRE(ext.return_types.size() == 1);
  CHECK(static_dims(ext.return_types[0]) == std::vector<int64_t>{8, 32});
  CHECK(ir::as_tensor(ext.return_types[0])->dtype == ir::DataType::BF16);
}

TEST_CASE("an entry's bare parameter without a shape says where the file could give one", "[parser][jit][bare][errors]") {
  const std::string src = std::string(kHead) + R"(@pl.jit
def inner(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
    return out


@pl.jit.host
def host(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    out = inner(a, out)
    return out


def build_specs_for(rows):
    return []
)";
  parser::FrontendOptions o;
  o.entry = "inner";
  auto e = errors(src, o);
  REQUIRE(e.size() == 2);  // one per bare parameter, located at its annotation
  CHECK(e[0].code == "E103");
  CHECK(e[0].message ==
        "cannot specialize from the signature because parameter 'a' has a bare 'pl.Tensor' annotation with no shape");
  CHECK(e[0].span.line == 5);
  CHECK(e[0].span.col == 14);
  CHECK_THAT(e[0].hint, Catch::Contains("--arg a=FP32[d0,d1]"));
  CHECK_THAT(e[0].hint, Catch::Contains("the file has no spec function"));
  CHECK_THAT(e[0].hint, !Catch::Contains("build_specs_for"));  // it needs an argument
  CHECK_THAT(e[0].hint, Catch::Contains("entry 'host' calls 'inner' with typed arguments"));
  CHECK(e[1].span.col == 37);                     // pl.Out[pl.Tensor]: the inner annotation
  CHECK_THAT(e[1].hint, !Catch::Contains("host"));  // the long hint once per entry

  // With a spec function that does not name the parameter, the hint says so.
  const std::string with_specs = std::string(kHead) + R"(@pl.jit
def entry(a: pl.Tensor, b: pl.Tensor):
    return a


def build_tensor_specs():
    import torch
    from golden import TensorSpec

    return [TensorSpec("a", [16, 64], torch.float32)]
)";
  e = errors(with_specs);
  REQUIRE(e.size() == 1);
  CHECK(e[0].span.col == 28);
  CHECK_THAT(e[0].hint, Catch::Contains("the spec function 'build_tensor_specs' gives no tensor for 'b'"));
}

TEST_CASE("a jit function's one-tensor return annotation yields to the returned value's type, with W012",
          "[parser][jit][return]") {
  const std::string src = std::string(kHead) + R"(@pl.jit.inline
def dep(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 4, 64], pl.FP32]:
    t = pl.load(x, [0, 0], [16, 64])
    o = pl.store(t, [0, 0], o)
    return o


@pl.jit
def top(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    o = dep(x, o)
    return o
)";
  ir::DiagnosticSink sink;
  auto p = parser::parse_source(ptest::src(src), {}, sink);
  REQUIRE(p->find("dep"));
  CHECK(static_dims(p->find("dep")->return_types.at(0)) == std::vector<int64_t>{16, 64});
  int w012 = 0;
  for (const auto& d : sink.diagnostics()) w012 += d.code == "W012" && d.span.line == 5;
  CHECK(w012 == 1);
  // Outside jit code the annotation binds: the same function is E104.
  auto e = errors(std::string(kHead) + R"(@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 4, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        o = pl.store(t, [0, 0], o)
        return o
)");
  REQUIRE_FALSE(e.empty());
  CHECK(e[0].code == "E104");
}
