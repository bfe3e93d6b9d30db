// Function and type forms of the front end and what the IR keeps of them: pl.func_attr and the
// decorator's attrs= / external_source= (Function::attrs), @pl.jit.extern, a standalone
// @pl.inline, pld.DistributedTensor / pld.CommCtx / pl.Array annotations, dtypes from module
// constants, the pld ops (window buffers, windows, communicators, remote loads) — and the located
// errors of their misuse.
#include <catch2/catch.hpp>

#include "parse_helpers.h"

using namespace pypto::ir;
using ptest::errors;
using ptest::parse;

namespace {

std::pair<std::string, int> first_error(const std::string& text) {
  auto e = errors(text);
  if (e.empty()) return {"", 0};
  return {e[0].message, e[0].span.line};
}

const char* kHead = "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n";

}  // namespace

TEST_CASE("pl.func_attr and attrs= become function attributes", "[parser][forms][attrs]") {
  auto p = parse(std::string(kHead) + R"(@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, attrs={"windowize": True, "core_num": pl.system.available_cluster_count()})
    def k(self, x: pl.Tensor[[64], pl.FP32], w: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]):
        """doc"""
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "stationary": w})
        pl.func_attr({"tag": 3})
        out[0:64] = x[0:64]

    @pl.function(type=pl.FunctionType.AIV, external_source="kernels/k.cpp")
    def ext(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]: ...
)");
  const auto& k = *p->find("k");
  REQUIRE(k.attrs.size() == 5);
  CHECK(k.attrs[0].key == "windowize");
  CHECK(std::get<bool>(k.attrs[0].value));
  CHECK(as<Call>(k.attrs[1].expr)->is_op("system.available_cluster_count"));
  CHECK(k.attrs[2].key == "split");
  CHECK(std::get<EnumLit>(k.attrs[2].value) == EnumLit{"SplitMode", "UP_DOWN"});
  CHECK(k.attrs[3].expr == k.params[1]);  // a bare name refers to the parameter
  CHECK(std::get<int64_t>(k.attrs[4].value) == 3);
  CHECK(std::get<std::string>(find_attr(*p->find("ext"), "external_source")->value) == "kernels/k.cpp");
}

TEST_CASE("@pl.jit.extern and a standalone @pl.inline", "[parser][forms][decorators]") {
  auto p = parse(std::string(kHead) + R"(@pl.jit.extern(core_type="mixed", aic_source="a.cpp", aiv_source="v.cpp", include_dirs=["inc"], dual_aiv_dispatch=True)
def fused(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]: ...

@pl.inline
def twice(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return pl.add(x, x)

@pl.jit
def main(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]):
    out = fused(x, out)
    return out
)");
  const auto& f = *p->find("fused");
  CHECK(f.type == FunctionType::Group);  // AIC + AIV
  CHECK(std::get<std::string>(find_attr(f, "aic_source")->value) == "a.cpp");
  CHECK(find_attr(f, "include_dirs")->list.size() == 1);
  CHECK(std::get<bool>(find_attr(f, "dual_aiv_dispatch")->value));
  auto q = parse(std::string(kHead) + R"(@pl.inline
def twice(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return pl.add(x, x)

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return twice(x)
)");
  REQUIRE(q->find("twice"));
  CHECK(q->find("twice")->type == FunctionType::Inline);
}

TEST_CASE("distributed tensors, communicators, arrays and dtype constants", "[parser][forms][types]") {
  auto p = parse(std::string(kHead) + R"(DT = pl.FP16

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, data: pl.InOut[pld.DistributedTensor[[16, 64], DT]], peer: pl.Scalar[pl.INT32],
          ctx: pld.CommCtx, out: pl.Out[pl.Tensor[[8, 64], DT]]) -> pl.Tensor[[8, 64], DT]:
        half = data[0:8, :]
        t = pld.remote_load(data, peer, [0, 0], [8, 64])
        r = pld.rank(ctx)
        return pl.store(t, [0, 0], out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        buf = pld.alloc_window_buffer([16, 64], dtype=pl.FP16)
        win = pld.window(buf, [16, 64], dtype=pl.FP16)
        ids: pl.Array[4, pl.TASK_ID] = pl.array.create(4, pl.TASK_ID)
        return win
)");
  const auto& k = *p->find("k");
  CHECK(is_distributed(k.params[0]->type));
  CHECK(as_tensor(k.params[0]->type)->dtype == DataType::FP16);
  CHECK(is_comm_ctx(k.params[2]->type));
  auto b = flatten_body(k.body);
  CHECK(is_distributed(as<AssignStmt>(b[0])->var->type));  // a slice of a distributed tensor stays one
  CHECK(as<Call>(as<AssignStmt>(b[1])->value)->is_op("pld.tile.remote_load"));  // the short form by operand level
  CHECK(as<Call>(as<AssignStmt>(b[2])->value)->is_op("pld.system.rank"));
  auto h = flatten_body(p->find("host")->body);
  CHECK(as<AssignStmt>(h[0])->var->type->kind == TypeKind::Ptr);
  CHECK(is_distributed(as<AssignStmt>(h[1])->var->type));
  CHECK(as_array(as<AssignStmt>(h[2])->var->type)->extent == 4);
}

TEST_CASE("misused attribute, decorator and distributed forms are located errors", "[parser][forms][errors]") {
  const std::string k = std::string(kHead) + "@pl.program\nclass P:\n";  // functions start on line 6
  struct Case {
    std::string text, what;
    int line;
  };
  const std::vector<Case> cases = {
      {k + "    @pl.function\n    def f(self, x: pl.Tensor[[4], pl.FP32]):\n        y = x\n        pl.func_attr({\"a\": 1})\n",
       "must come before the other statements", 9},
      {k + "    @pl.function\n    def f(self, x: pl.Tensor[[4], pl.FP32]):\n        pl.func_attr({\"a\": 1})\n"
           "        pl.func_attr({\"a\": 2})\n",
       "Duplicate function attribute 'a'", 9},
      {k + "    @pl.function\n    def f(self, x: pl.Tensor[[4], pl.FP32]):\n        pl.func_attr({\"auto_scope\": False})\n",
       "cannot be set with pl.func_attr()", 8},
      {k + "    @pl.function(attrs={\"custom_list\": [1, 2]})\n    def f(self, x: pl.Tensor[[4], pl.FP32]):\n        return x\n",
       "Unsupported list element type for key: custom_list", 6},
      {k + "    @pl.function\n    def f(self, x: pl.Tensor[[4], pl.FP32]):\n        b = pld.alloc_window_buffer(64)\n",
       "only valid in a host orchestrator", 8},
      {k + "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n    def f(self):\n"
           "        b = pld.alloc_window_buffer(64)\n        b = pld.alloc_window_buffer(64)\n",
       "window buffer name 'b' is already used", 9},
      {k + "    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP32]):\n        t = pld.tile.remote_load(x, 0, [0], [8])\n",
       "must be a pld.DistributedTensor", 8},
      {k + "    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP32]):\n        t = pld.tile.no_such_op(x)\n",
       "Unknown distributed operation 'pld.tile.no_such_op'", 8},
      {k + "    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP32]):\n        pl.static_print()\n",
       "static_print() requires at least one argument", 8},
      {k + "    @pl.function\n    def f(self, o: pl.Tensor[[64, 128], pl.FP32], s: pl.Tensor[[8, 32], pl.FP32]):\n"
           "        o[0:16, 0:32] = s\n",
       "shape mismatch on source axis 0", 8},
      {k + "    @pl.function\n    def f(self, o: pl.Tensor[[64, 128], pl.FP32], s: pl.Tensor[[32], pl.FP32]):\n"
           "        o[0:1, 0:32] = s\n",
       "must be 2D to match", 8},
  };
  for (const auto& c : cases) {
    auto [msg, line] = first_error(c.text);
    INFO(c.text << "\n→ " << msg);
    CHECK(msg.find(c.what) != std::string::npos);
    CHECK(line == c.line);
  }
}

TEST_CASE("pl.gather with mask_pattern= is the pattern gather at either level", "[parser][forms][ops]") {
  auto p = parse(std::string(kHead) + R"(@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        g = pl.gather(x, mask_pattern=pl.tile.MaskPattern.P1010)
        t = pl.load(x, [0, 0], [16, 64])
        h = pl.gather(t, mask_pattern=pl.tile.MaskPattern.P0101)
        s = pl.mrgsort(x, block_len=64)
        out = pl.store(h, [0, 0], out)
)");
  auto b = flatten_body(p->find("k")->body);
  const auto* g = as<Call>(as<AssignStmt>(b[0])->value);
  REQUIRE(g->is_op("tensor.gather_mask"));
  CHECK(std::get<int64_t>(*g->kwarg("mask_pattern")) == 2);
  CHECK(as<Call>(as<AssignStmt>(b[2])->value)->is_op("tile.gather_mask"));
  CHECK(as<Call>(as<AssignStmt>(b[3])->value)->is_op("tensor.mrgsort_format1"));
}

TEST_CASE("pl.prefetch: the four ops build; a source that is not one flat static run is a located error",
          "[parser][forms][ops]") {
  auto p = parse(ptest::kernel("        w = pl.reshape(x, [4096])\n"
                        "        ctx = pl.prefetch.make_context()\n"
                        "        ev = pl.prefetch.async_prefetch(w, ctx)\n"
                        "        s = pl.prefetch.session(ctx)\n"
                        "        ok = pl.prefetch.wait(ev, s)\n"
                        "        return\n"));
  auto b = ptest::body_of(p);
  REQUIRE(b.size() == 6);
  CHECK(as<Call>(as<AssignStmt>(b[2])->value)->is_op("prefetch.async_prefetch"));
  CHECK(as_scalar(as<AssignStmt>(b[4])->var->type)->dtype == DataType::BOOL);
  const auto e = errors(ptest::kernel("        ctx = pl.prefetch.make_context()\n"
                               "        pl.prefetch.async_prefetch(x, ctx)\n"
                               "        return\n"));
  REQUIRE(e.size() == 1);
  CHECK(e[0].span.line == 8);
  CHECK(e[0].message.find("must be a flat tensor of static shape ([N] or [1, ..., N])") != std::string::npos);
  CHECK(e[0].hint.find("pl.reshape(w, [N])") != std::string::npos);
}

TEST_CASE("a name rebound in its block with another valid shape takes it; a loop carry keeps one variable",
          "[parser][forms][types]") {
  // pypto-lib's gate: `eps = pl.set_validshape(eps, 1, 1)` then pl.maximum(x, eps) and a [1, 1]
  // store. One variable per name kept the first type, so the valid shape was lost.
  auto p = parse(std::string(kHead) + R"(@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 1], pl.FP32]]):
        a = pl.tile.full([1, 8], dtype=pl.FP32, value=2.0)
        a = pl.set_validshape(a, 1, 1)
        b = pl.mul(a, a)
        for i in pl.range(2):
            a = pl.set_validshape(b, 1, 1)
        out = pl.tile.store(b, [0, 0], out, shapes=[1, 1])
)");
  auto body = flatten_body(p->find("k")->body);
  const auto* first = as<AssignStmt>(body[0]);
  const auto* second = as<AssignStmt>(body[1]);
  REQUIRE((first && second));
  CHECK(first->var != second->var);
  const auto* t = as_tile(second->var->type);
  REQUIRE((t && t->view && t->view->valid_shape.size() == 2));
  CHECK(const_int_value(t->view->valid_shape[1]) == 1);
  // The product reads the refined value.
  const auto* mul = as<Call>(as<AssignStmt>(body[2])->value);
  CHECK(as<Var>(mul->args[0]) == second->var.get());
}
