// Annotation forms: Tensor/Tile/Scalar/Out/InOut/Tuple/Ptr, every dtype, layouts and views,
// MemRef slots (DDR bases as strings, Ptr locals), symbolic dims.
#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "parse_helpers.h"

using namespace pypto::ir;
using ptest::body_of;
using ptest::kernel;
using ptest::parse;

TEST_CASE("every dtype parses in pl.Scalar", "[parser][types]") {
  for (const char* dt : {"INT4", "INT8", "INT16", "INT32", "INT64", "UINT4", "UINT8", "UINT16", "UINT32", "UINT64",
                         "FP4", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "FP16", "BF16", "FP32", "HF4", "HF8", "BOOL", "INDEX"}) {
    INFO(dt);
    auto p = parse(kernel("        return\n", std::string("s: pl.Scalar[pl.") + dt + "]"));
    auto st = as_scalar(p->find("k")->params[0]->type);
    REQUIRE(st);
    CHECK(dtype_name(st->dtype) == dt);
  }
}

TEST_CASE("tensor and tile annotations with slots", "[parser][types]") {
  auto p = parse(kernel(
      "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)\n"
      "        t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])\n"
      "        u: pl.Tile[[64, 64], pl.FP32, pl.TileView(valid_shape=[64, 32], blayout=pl.TileLayout.row_major, fractal=512), pl.Mem.Vec] = pl.exp(t)\n"
      "        return\n",
      "a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 16384)], "
      "b: pl.InOut[pl.Tensor[[64, 64], pl.FP16, pl.NZ]], "
      "c: pl.Tensor[[64, 64], pl.BF16, pl.TensorView(stride=[1, 64], layout=pl.TensorLayout.DN), pl.MemRef(\"mem_ddr_0\", 0, 16384)], "
      "d: pl.Out[pl.Tensor[[64, 64], pl.FP32]]"));
  auto f = p->find("k");
  auto a = as_tensor(f->params[0]->type);
  auto b = as_tensor(f->params[1]->type);
  auto c = as_tensor(f->params[2]->type);
  REQUIRE((a && b && c));
  CHECK(f->param_directions[1] == ParamDirection::InOut);
  CHECK(f->param_directions[3] == ParamDirection::Out);
  REQUIRE(a->memref);
  REQUIRE(c->memref);
  CHECK(a->memref->base == c->memref->base);  // same string, same base Var
  CHECK(a->memref->base->type->kind == TypeKind::Ptr);
  CHECK(a->memref->size == 16384);
  REQUIRE(b->view);
  CHECK(b->view->layout == TensorLayout::NZ);
  REQUIRE(c->view);
  CHECK(c->view->layout == TensorLayout::DN);
  CHECK(c->view->stride.size() == 2);
  auto body = body_of(p);
  auto alloc = as<AssignStmt>(body[0]);
  auto t = as_tile(as<AssignStmt>(body[1])->var->type);
  REQUIRE(t);
  CHECK(t->space == MemorySpace::Vec);
  REQUIRE(t->memref);
  CHECK(t->memref->base == alloc->var);
  auto u = as_tile(as<AssignStmt>(body[2])->var->type);
  REQUIRE(u->view);
  CHECK(u->view->blayout == TileLayout::row_major);
  CHECK(u->view->fractal == 512);
  CHECK(u->view->valid_shape.size() == 2);
}

TEST_CASE("symbolic dims and tuple annotations", "[parser][types]") {
  auto p = parse(R"(import pypto.language as pl
M = pl.dynamic("M")
N = pl.dynamic("N")
SHAPE = [M, 32]

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[M, N], pl.FP32], y: pl.Tensor[SHAPE, pl.FP32], n: pl.Scalar[pl.INDEX],
          z: pl.Tensor[[n * 2, 4], pl.FP32]) -> pl.Tuple[pl.Scalar[pl.INDEX], pl.Tensor[[M, N], pl.FP32]]:
        t: pl.Tuple[pl.Tensor[[M, N], pl.FP32], pl.Scalar[pl.INDEX]] = (x, n)
        u: tuple[pl.Tensor[[M, N], pl.FP32], pl.Scalar[pl.INDEX]] = (x, n)
        return n, u[0]
)");
  REQUIRE(p->dynamic_dims.size() == 2);
  auto f = p->find("k");
  auto x = as_tensor(f->params[0]->type);
  auto y = as_tensor(f->params[1]->type);
  CHECK(x->shape[0] == p->dynamic_dims[0]);
  CHECK(y->shape[0] == p->dynamic_dims[0]);  // same name → same Var
  CHECK(x->shape[1] == p->dynamic_dims[1]);
  auto z = as_tensor(f->params[3]->type);
  auto dim = as<Binary>(z->shape[0]);
  REQUIRE(dim);
  CHECK(dim->a == f->params[2]);
  CHECK(f->return_types.size() == 2);
  CHECK(f->return_types[1]->kind == TypeKind::Tensor);
  // The builtin tuple[...] spelling types a local as pl.Tuple[...] does.
  const auto& stmts = as<SeqStmts>(f->body)->stmts;
  REQUIRE(stmts.size() >= 2);
  const auto* t = as<AssignStmt>(stmts[0]);
  const auto* u = as<AssignStmt>(stmts[1]);
  REQUIRE((t && u));
  CHECK(print_type(t->var->type) == print_type(u->var->type));
}
