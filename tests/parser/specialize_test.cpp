// Jit specialisation and factories in the front end: --arg types bare pl.Tensor entry parameters
// (integers, module constants, ? and named dynamic dims), --scalar binds or keeps entry scalars,
// bare parameters of jit dependencies take their first call's types (a later other shape warns),
// factories build the program they return with their arguments as closure, and the diagnostics
// of each (unknown parameter, contradicting annotation, missing / mistyped factory argument).
#include <algorithm>
#include <catch2/catch.hpp>

#include "ir/ir.h"
#include "parse_helpers.h"

using namespace pypto;
using ptest::errors;
using ptest::parse;

namespace {

const char* kJit = R"(import pypto.language as pl

COLS = 128


@pl.jit.incore
def scale(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    t = pl.load(x, [0, 0], [16, 128])
    pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out


@pl.jit
def entry(a: pl.Tensor, n: pl.INDEX, f: pl.FP32, c: pl.Out[pl.Tensor]):
    c = scale(a, c)
    return c
)";

std::vector<std::string> dims(const ir::TypePtr& t) {
  std::vector<std::string> out;
  for (const auto& d : ir::as_tensor(t)->shape) {
    if (const auto* c = ir::as<ir::ConstInt>(d)) out.push_back(std::to_string(c->value));
    else out.push_back(ir::as<ir::Var>(d)->name);
  }
  return out;
}

parser::FrontendOptions spec(std::map<std::string, std::string> args, std::map<std::string, std::string> scalars = {}) {
  parser::FrontendOptions o;
  o.entry = "entry";
  o.args = std::move(args);
  o.scalars = std::move(scalars);
  return o;
}

}  // namespace

TEST_CASE("--arg types bare entry tensors; dependencies take their call's types", "[parser][specialize]") {
  auto p = parse(kJit, spec({{"a", "FP32[16, COLS]"}, {"c", "fp32[16,128]"}}));
  const auto& e = *p->find("entry");
  REQUIRE(e.params.size() == 4);
  CHECK(dims(e.params[0]->type) == std::vector<std::string>{"16", "128"});
  CHECK(e.param_directions[3] == ir::ParamDirection::Out);
  // The dependency's bare parameters are typed by the call `scale(a, c)`.
  const auto& s = *p->find("scale");
  CHECK(dims(s.params[0]->type) == std::vector<std::string>{"16", "128"});
  CHECK(s.param_directions[1] == ir::ParamDirection::Out);

  // ? and names are dynamic dims; one name is one symbol across parameters.
  p = parse(kJit, spec({{"a", "BF16[M, ?]"}, {"c", "BF16[M,128]"}}));
  const auto& e2 = *p->find("entry");
  CHECK(dims(e2.params[0]->type) == std::vector<std::string>{"M", "a_d1"});
  CHECK(ir::as_tensor(e2.params[0]->type)->shape[0] == ir::as_tensor(e2.params[3]->type)->shape[0]);
  CHECK(ir::as_tensor(e2.params[0]->type)->dtype == ir::DataType::BF16);
}

TEST_CASE("--scalar binds an entry scalar at compile time or keeps it a runtime argument", "[parser][specialize]") {
  const std::string src = std::string(kJit).replace(std::string(kJit).find("    c = scale(a, c)"), 19,
                                                     "    k = n * 2\n    c = scale(a, c)");
  auto p = parse(src, spec({{"a", "FP32[16,128]"}, {"c", "FP32[16,128]"}}, {{"n", "32"}, {"f", "runtime"}}));
  const auto& e = *p->find("entry");
  REQUIRE(e.params.size() == 3);  // n left the signature, f stayed
  CHECK(e.params[1]->name == "f");
  // k = n * 2 folded to 64.
  auto body = ir::flatten_body(e.body);
  const auto* k = ir::as<ir::AssignStmt>(body[0]);
  REQUIRE(k);
  REQUIRE(ir::as<ir::ConstInt>(k->value));
  CHECK(ir::as<ir::ConstInt>(k->value)->value == 64);
}

TEST_CASE("specialisation diagnostics", "[parser][specialize]") {
  auto e = errors(kJit, spec({{"a", "FP32[16,128]"}, {"c", "FP32[16,128]"}, {"q", "FP32[4]"}}));
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E107");
  CHECK(e[0].message == "--arg q=FP32[4]: entry 'entry' has no parameter 'q'");
  CHECK(e[0].span.line == 14);  // the entry's def
  CHECK(e[0].hint.find("a, n, f, c") != std::string::npos);

  e = errors(kJit, spec({{"a", "FP33[16,128]"}, {"c", "FP32[16,128]"}}));
  REQUIRE(!e.empty());
  CHECK(e[0].message.find("unknown dtype 'FP33'") != std::string::npos);

  e = errors(kJit, spec({{"a", "FP32[16,128]"}, {"c", "FP32[16,128]"}}, {{"n", "1.5"}}));
  REQUIRE(!e.empty());
  CHECK(e[0].message.find("is not an integer") != std::string::npos);

  // Without --arg: the reference's signature-mode error, with the flag as the hint.
  e = errors(kJit, spec({{"c", "FP32[16,128]"}}));
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E103");
  CHECK(e[0].hint.find("--arg a=") != std::string::npos);

  // A spec that contradicts a full annotation.
  const std::string annotated = R"(import pypto.language as pl


@pl.jit
def entry(a: pl.Tensor[[16, 64], pl.FP32]):
    return a
)";
  e = errors(annotated, spec({{"a", "FP32[16,128]"}}));
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E104");
  CHECK(e[0].span.line == 5);
  CHECK(parse(annotated, spec({{"a", "FP32[16,64]"}}))->find("entry"));  // agreeing is fine
}

TEST_CASE("a second call of a dependency with another shape warns", "[parser][specialize]") {
  const std::string src = R"(import pypto.language as pl


@pl.jit.inline
def twice(x: pl.Tensor):
    return pl.add(x, x)


@pl.jit
def entry(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y = twice(a)
        z = twice(b)
    return a
)";
  ir::DiagnosticSink sink;
  auto p = parser::parse_source(ptest::src(src), {}, sink);
  bool warned = false;
  for (const auto& d : sink.diagnostics())
    warned = warned || (d.code == "W011" && d.span.line == 13);
  CHECK(warned);
}

TEST_CASE("factories build the program they return, their locals as closure", "[parser][factory]") {
  const std::string src = R"(import pypto.language as pl


def build_program(rows: int, cols: int = 64, scale: float = 2.0):
    tile_rows = rows // 2

    @pl.program
    class Scaled:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]):
            t = pl.load(x, [0, 0], [tile_rows, cols])
            pl.store(pl.mul(t, scale), [0, 0], out)
            return out

    return Scaled
)";
  parser::FrontendOptions o;
  o.entry = "build_program";
  o.factory_args = {{"rows", "32"}};
  auto p = parse(src, o);
  auto k = p->find("kernel");
  REQUIRE(k);
  CHECK(dims(k->params[0]->type) == std::vector<std::string>{"32", "64"});
  o.factory_args = {{"rows", "8"}, {"cols", "16"}};
  CHECK(dims(parse(src, o)->find("kernel")->params[0]->type) == std::vector<std::string>{"8", "16"});

  o.factory_args = {};
  auto e = errors(src, o);
  REQUIRE(!e.empty());
  CHECK(e[0].message == "factory 'build_program' needs a value for 'rows', which has no default");
  CHECK(e[0].span.line == 4);
  o.factory_args = {{"rows", "'big'"}};
  e = errors(src, o);
  REQUIRE(!e.empty());
  CHECK(e[0].message.find("annotated int, got str 'big'") != std::string::npos);
  o.factory_args = {{"rows", "8"}, {"depth", "3"}};
  e = errors(src, o);
  REQUIRE(!e.empty());
  CHECK(e[0].message.find("has no parameter 'depth'") != std::string::npos);
}

TEST_CASE("a same-block rebinding may change a tensor's shape; across blocks it may not", "[parser][specialize]") {
  const std::string ok = R"(import pypto.language as pl


@pl.jit
def entry(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.row_sum(x)
        s = pl.reshape(s, [1, 64])
        y = pl.assemble(y, s, [0, 0])
    return y
)";
  CHECK(parse(ok)->find("entry"));
  std::string bad = ok;
  bad.replace(bad.find("        s = pl.reshape"), 9, "        for i in pl.range(2):\n            s");
  auto e = errors(bad);
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E201");
}

TEST_CASE("jit sugar: a.shape, M, N = a.shape, a.dtype, bind_dynamic", "[parser][specialize]") {
  const std::string src = R"(import pypto.language as pl

T = pl.dynamic("T")


@pl.jit
def entry(a: pl.Tensor[[64, 128], pl.BF16], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    a.bind_dynamic(0, T)
    out.bind_dynamic(0, T)
    M, N = a.shape
    K = a.shape[1]
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.cast(a, out.dtype)
        out = pl.assemble(out, t, [0, 0])
    return out
)";
  auto p = parse(src);
  const auto& e = *p->find("entry");
  CHECK(dims(e.params[0]->type) == std::vector<std::string>{"T", "128"});
  CHECK(dims(e.params[1]->type) == std::vector<std::string>{"T", "128"});
  auto body = ir::flatten_body(e.body);
  // M is the symbol, N and K fold to 128; bind_dynamic leaves no statement.
  const auto* m = ir::as<ir::AssignStmt>(body[0]);
  REQUIRE(m);
  CHECK(ir::as<ir::Var>(m->value));
  CHECK(ir::as<ir::ConstInt>(ir::as<ir::AssignStmt>(body[1])->value)->value == 128);
  CHECK(ir::as<ir::ConstInt>(ir::as<ir::AssignStmt>(body[2])->value)->value == 128);

  std::string bad = src;
  bad.replace(bad.find("out.bind_dynamic(0, T)"), 22, "out.bind_dynamic(2, T)");
  auto errs = errors(bad);
  REQUIRE(!errs.empty());
  CHECK(errs[0].message.find("dimension must be an integer in [0, 2)") != std::string::npos);
  CHECK(errs[0].span.line == 9);
}

TEST_CASE("a pypto-lib spec function types bare entry tensors without flags", "[parser][specialize]") {
  const std::string src = R"(import pypto.language as pl

ROWS = 32


@pl.jit
def entry(x: pl.Tensor, n: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.assemble(y, pl.mul(x, 2.0), [0, 0])
    return y


def build_tensor_specs(rows: int = ROWS, cols: int = 64):
    import torch
    from golden import ScalarSpec, TensorSpec

    specs = [TensorSpec("x", [rows, cols], torch.bfloat16, init_value=torch.randn)]
    specs.append(TensorSpec("y", [rows, cols], torch.bfloat16, is_output=True, init_value=lambda: torch.zeros(1)))
    specs.append(ScalarSpec("n", torch.int32, 8))
    return specs
)";
  auto p = parse(src);
  const auto& e = *p->find("entry");
  CHECK(dims(e.params[0]->type) == std::vector<std::string>{"32", "64"});
  CHECK(ir::as_tensor(e.params[2]->type)->dtype == ir::DataType::BF16);
  // --arg wins over the spec; --specs none turns it off (the bare parameter is then an error).
  auto o = spec({{"x", "BF16[16,64]"}});
  CHECK(dims(parse(src, o)->find("entry")->params[0]->type) == std::vector<std::string>{"16", "64"});
  parser::FrontendOptions off;
  off.specs = "none";
  auto errs = errors(src, off);
  REQUIRE(!errs.empty());
  CHECK(errs[0].code == "E103");
  // A spec outside the constant subset is located at the spec function.
  std::string bad = src;
  bad.replace(bad.find("[rows, cols], torch.bfloat16, init"), 12, "list(open('f'))");
  errs = errors(bad);
  auto it = std::find_if(errs.begin(), errs.end(), [](const ir::Diagnostic& d) { return d.code == "E304"; });
  REQUIRE(it != errs.end());
  CHECK(it->message.find("TensorSpec() argument 'shape' is not a compile-time constant") != std::string::npos);
  CHECK(it->span.line == 17);
}
