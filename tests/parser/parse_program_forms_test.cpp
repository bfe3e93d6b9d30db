// Program forms: @pl.program classes (forward references, self calls, SubWorker without self,
// arg_directions), @pl.jit entries with dependencies, entry selection, -D overrides.
#include <catch2/catch.hpp>

#include "parse_helpers.h"

using namespace pypto;
using namespace pypto::ir;
using ptest::errors;
using ptest::parse;

static const char* kTwoFns = R"(import pypto.language as pl

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.kern(a, out, attrs={"arg_directions": [pl.adir.input, pl.adir.output]})
        return out

    # the kernel
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.AIV)
    def kern(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        return pl.store(t, [0, 0], out)

    @pl.function(level=pl.Level.AIV, role=pl.Role.SubWorker)
    def helper(x: pl.Scalar[pl.INDEX]):
        return
)";

TEST_CASE("@pl.program: functions, forward calls, directions, SubWorker", "[parser][forms]") {
  auto p = parse(kTwoFns);
  CHECK(p->name == "Prog");
  REQUIRE(p->functions.size() == 3);
  auto main = p->find("main");
  auto kern = p->find("kern");
  REQUIRE(main);
  REQUIRE(kern);
  CHECK(main->type == FunctionType::Orchestration);
  CHECK(kern->type == FunctionType::InCore);
  CHECK(kern->level == Level::AIV);
  CHECK(kern->leading_comments == std::vector<std::string>{"the kernel"});
  CHECK(main->params.size() == 2);  // self dropped
  CHECK(main->param_directions[1] == ParamDirection::Out);
  auto helper = p->find("helper");
  CHECK(helper->role == Role::SubWorker);
  CHECK(helper->params.size() == 1);
  auto stmts = flatten_body(main->body);
  const auto* asg = as<AssignStmt>(stmts[0]);
  REQUIRE(asg);
  const auto* call = as<Call>(asg->value);
  REQUIRE(call);
  CHECK(call->op == nullptr);
  CHECK(call->callee == "kern");
  CHECK(call->arg_directions == std::vector<ArgDirection>{ArgDirection::input, ArgDirection::output});
  // Rebinding an Out parameter assigns the same Var (non-SSA front end output).
  CHECK(asg->var == main->params[1]);
}

static const char* kJit = R"(import pypto.language as pl

@pl.jit.inline
def helper(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    return out

@pl.jit.incore
def kern(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    t = pl.load(x, [0, 0], [16, 16])
    pl.store(t, [0, 0], out)
    return out

@pl.jit.incore
def unused(x: pl.Tensor[[16, 16], pl.FP32]):
    return x

@pl.jit
def entry(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    out = kern(x, out=out)
    out = helper(x, out)
    return out

@pl.jit
def other(x: pl.Tensor[[16, 16], pl.FP32]):
    return x
)";

TEST_CASE("@pl.jit: entry selection and dependency discovery", "[parser][forms][jit]") {
  auto errs = errors(kJit);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].code == "E010");
  CHECK(errs[0].message.find("entry, other") != std::string::npos);
  CHECK(errs[0].hint.find("--entry") != std::string::npos);
  auto names = parser::list_entries(ptest::src(kJit));
  CHECK(names == std::vector<std::string>{"entry", "other"});

  parser::FrontendOptions o;
  o.entry = "entry";
  auto p = parse(kJit, o);
  CHECK(p->name == "entry");
  REQUIRE(p->functions.size() == 3);  // entry, helper, kern — not 'unused', not 'other'
  CHECK(p->find("entry")->type == FunctionType::Orchestration);
  CHECK(p->find("kern")->type == FunctionType::InCore);
  CHECK(p->find("helper")->type == FunctionType::Inline);
  CHECK(!p->find("unused"));
  // Return types of jit functions come from their return statements.
  CHECK(p->find("entry")->return_types.size() == 1);
  // dep(a, out=o) → positional by parameter name.
  auto st = flatten_body(p->find("entry")->body);
  const auto* c = as<Call>(as<AssignStmt>(st[0])->value);
  REQUIRE(c);
  CHECK(c->callee == "kern");
  CHECK(c->args.size() == 2);
  CHECK(c->args[1] == p->find("entry")->params[1]);

  o.entry = "nope";
  auto e2 = errors(kJit, o);
  REQUIRE(e2.size() == 1);
  CHECK(e2[0].code == "E010");
}

TEST_CASE("-D overrides a module constant; uncomputable constants need -D", "[parser][forms]") {
  const std::string text = R"(import pypto.language as pl
import os
N = int(os.environ["N"])
ROWS = 32

@pl.jit.incore
def k(x: pl.Tensor[[ROWS, N], pl.FP32]):
    return x
)";
  auto e = errors(text);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E202");
  CHECK(e[0].message ==
        "cannot evaluate N at compile time: its value comes from the command line or the environment; pass -D N=VALUE");
  CHECK(e[0].span.line == 7);
  parser::FrontendOptions o;
  o.defines = {{"N", "64"}, {"ROWS", "ROWS * 2"}};
  auto p = parse(text, o);
  auto t = as_tensor(p->find("k")->params[0]->type);
  REQUIRE(t);
  CHECK(const_int_value(t->shape[0]) == 64);
  CHECK(const_int_value(t->shape[1]) == 64);
}

TEST_CASE("host code in the file is ignored", "[parser][forms]") {
  auto p = parse(R"(import pypto.language as pl
import torch

def golden(x):
    return torch.exp(x) ** 2

class Helper:
    pass

@pl.jit.incore
def k(x: pl.Tensor[[8, 8], pl.FP32]):
    return x

if __name__ == "__main__":
    print(golden(torch.ones(3)))
)");
  CHECK(p->functions.size() == 1);
}
