// Op dispatch: unified pl.X → tensor.X / tile.X by operand, scalar forms, positional
// attributes, enum/dtype attribute values, direct pl.tile.X, scalar pl.min/max/cast/abs.
#include <catch2/catch.hpp>

#include "parse_helpers.h"

using namespace pypto::ir;
using ptest::body_of;
using ptest::kernel;
using ptest::parse;

static const Call* call_of(const StmtPtr& s) {
  const auto* a = as<AssignStmt>(s);
  return a ? as<Call>(a->value) : as<Call>(as<EvalStmt>(s)->expr);
}

TEST_CASE("unified dispatch picks the level and the scalar form", "[parser][ops]") {
  auto p = parse(kernel(
      "        a = pl.add(x, x)\n"
      "        t = pl.load(x, [0, 0], [64, 64])\n"
      "        b = pl.add(t, t)\n"
      "        c = pl.add(t, 2.0)\n"
      "        d = pl.mul(t, n)\n"
      "        e = pl.tile.exp(t)\n"
      "        f = pl.cast(t, pl.FP16)\n"
      "        g = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
      "        h = pl.create_tensor([4, 4], pl.FP32)\n"
      "        return\n"));
  auto b = body_of(p);
  CHECK(call_of(b[0])->is_op("tensor.add"));
  CHECK(call_of(b[1])->is_op("tile.load"));
  CHECK(call_of(b[2])->is_op("tile.add"));
  CHECK(call_of(b[3])->is_op("tile.adds"));
  CHECK(call_of(b[4])->is_op("tile.muls"));
  CHECK(call_of(b[5])->is_op("tile.exp"));
  auto cast = call_of(b[6]);
  CHECK(cast->is_op("tile.cast"));
  REQUIRE(cast->op->kwargs.size() >= 1);
  const AttrValue* tt = cast->kwarg(cast->op->kwargs[0].name);  // positional attribute filled the first kwarg
  REQUIRE(tt);
  CHECK(std::get<DataType>(*tt) == DataType::FP16);
  CHECK(as_tile(as<AssignStmt>(b[6])->var->type)->dtype == DataType::FP16);
  auto g = call_of(b[7]);
  REQUIRE(g->kwarg("target_memory"));
  CHECK(std::get<MemorySpace>(*g->kwarg("target_memory")) == MemorySpace::Mat);
  CHECK(call_of(b[8])->op->family() == "tensor");  // alias pl.create_tensor
}

TEST_CASE("scalar operands build scalar expressions", "[parser][ops][scalar]") {
  auto p = parse(kernel(
      "        a = pl.min(n, 4)\n"
      "        b = pl.max(n, a)\n"
      "        c = pl.cast(n, pl.FP32)\n"
      "        d = pl.abs(n - 9)\n"
      "        e = n / 2\n"
      "        f = n * 2.5\n"
      "        g = n // 3 + n % 3\n"
      "        h = pl.const(3, pl.INT32) + pl.const(1, pl.INT32)\n"
      "        i = pl.const(\"inf\", pl.FP32)\n"
      "        j = 2 ** 3 + n\n"
      "        return\n"));
  auto b = body_of(p);
  auto val = [&](size_t i) { return as<AssignStmt>(b[i])->value; };
  CHECK(as<Binary>(val(0))->op == BinOp::Min);
  CHECK(as<Binary>(val(1))->op == BinOp::Max);
  CHECK(as<Unary>(val(2))->op == UnOp::Cast);
  CHECK(as_scalar(val(2)->type)->dtype == DataType::FP32);
  CHECK(as<Unary>(val(3))->op == UnOp::Abs);
  CHECK(as_scalar(val(4)->type)->dtype == DataType::FP32);  // '/' is float
  CHECK(as<Binary>(val(4))->op == BinOp::FloatDiv);
  CHECK(as_scalar(val(5)->type)->dtype == DataType::FP32);  // int op float → float
  CHECK(as_scalar(val(6)->type)->dtype == DataType::INDEX);
  CHECK(as_scalar(val(7)->type)->dtype == DataType::INT32);
  CHECK(std::isinf(as<ConstFloat>(val(8))->value));
  auto j = as<Binary>(val(9));
  REQUIRE(j);
  CHECK(const_int_value(j->a) == 8);  // constant subtree folded
}
