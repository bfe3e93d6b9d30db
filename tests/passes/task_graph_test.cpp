// The orchestration's task graph (passes/task_graph.h) after the whole pipeline: tasks in program
// order with their kernels and source lines, the tensors they touch (parameters, created tensors,
// views traced to their tensor), dependency edges with their reasons (RAW through a created
// tensor, WAR, WAW), loops folded into regions with trip counts and their carried edges (none for
// pl.parallel), branches as regions.
#include <fstream>
#include <sstream>

#include "pass_test_util.h"
#include "passes/pipeline.h"
#include "passes/task_graph.h"

using namespace pypto;

namespace {

passes::TaskGraph graph_of(const std::string& text) {
  passes::PassContext ctx;
  return passes::task_graph(*passes::run_pipeline(pass_test::parse(text), ctx));
}

std::string program_file(const std::string& name) {
  std::ifstream f(std::string(PYPTO_TEST_PROGRAMS) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const passes::GraphEdge* edge(const passes::TaskGraph& g, int from, int to) {
  for (const auto& e : g.edges)
    if (e.from == from && e.to == to) return &e;
  return nullptr;
}

int tensor(const passes::TaskGraph& g, const std::string& name) {
  for (size_t i = 0; i < g.tensors.size(); ++i)
    if (g.tensors[i].name == name) return int(i);
  return -1;
}

}  // namespace

TEST_CASE("a chain through a created tensor is one RAW edge", "[task_graph]") {
  auto g = graph_of(program_file("e2e_chain.py"));
  CHECK(g.function == "chain");
  REQUIRE(g.tasks.size() == 2);
  CHECK(g.tasks[0].kernel == "scale");
  CHECK(g.tasks[1].kernel == "shift");
  CHECK(g.tasks[1].span.line == 36);
  CHECK(g.regions.empty());
  const int x = tensor(g, "x"), out = tensor(g, "out"), tmp = tensor(g, "tmp");
  REQUIRE(x >= 0);
  REQUIRE(out >= 0);
  REQUIRE(tmp >= 0);
  CHECK(g.tensors[size_t(x)].param);
  CHECK(g.tensors[size_t(x)].dir == ir::ParamDirection::In);
  CHECK_FALSE(g.tensors[size_t(tmp)].param);
  CHECK(g.tensors[size_t(tmp)].type == "[64, 128] FP32");
  REQUIRE(g.edges.size() == 1);
  CHECK(g.edges[0].from == 0);
  CHECK(g.edges[0].to == 1);
  CHECK(g.edges[0].reasons == "RAW tmp");
  CHECK_FALSE(g.edges[0].carried);
}

TEST_CASE("reads before a write are WAR; a sequential loop carries, a parallel one does not", "[task_graph]") {
  auto g = graph_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        return pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], b)

    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, a: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        return pl.store(pl.add(t, 1.0), [0, 0], a)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             z: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        y = self.copy(x, y)
        x = self.bump(x)
        for i in pl.range(3):
            x = self.bump(x)
        for j in pl.parallel(0, 64, 16):
            zb = self.bump(pl.slice(z, [16, 64], [j, 0]))
        return x, y, z
)");
  REQUIRE(g.tasks.size() == 4);
  CHECK(g.tasks[0].kernel == "copy");
  const auto* war = edge(g, 0, 1);
  REQUIRE(war);
  CHECK(war->reasons == "WAR x");
  const auto* into_loop = edge(g, 1, 2);
  REQUIRE(into_loop);
  CHECK_THAT(into_loop->reasons, Catch::Contains("RAW x"));
  CHECK_THAT(into_loop->reasons, Catch::Contains("WAW x"));
  const auto* carried = edge(g, 2, 2);
  REQUIRE(carried);
  CHECK(carried->carried);
  CHECK(edge(g, 3, 3) == nullptr);  // the parallel loop's iterations are independent
  REQUIRE(g.regions.size() == 2);
  CHECK(g.regions[0].label == "for i in range(0, 3, 1): 3 iterations");
  CHECK(g.regions[0].loop);
  CHECK(g.tasks[2].region == 0);
  CHECK_THAT(g.regions[1].label, Catch::Contains("4 iterations (parallel)"));
  // The slice of z is traced to z.
  REQUIRE(g.tasks[3].accesses.size() == 1);
  CHECK(g.tasks[3].accesses[0].tensor == tensor(g, "z"));
  CHECK(g.tasks[3].accesses[0].read);
  CHECK(g.tasks[3].accesses[0].write);
}

TEST_CASE("branches and while loops are regions of their own", "[task_graph]") {
  auto g = graph_of(program_file("orch_control.py"));
  REQUIRE(g.tasks.size() == 6);
  int whiles = 0, elses = 0;
  for (const auto& r : g.regions) {
    whiles += r.label.rfind("while ", 0) == 0;
    elses += r.label == "else";
  }
  CHECK(whiles == 2);
  CHECK(elses >= 1);
  for (int t : {1, 3, 5}) {
    INFO("task " << t);
    CHECK(g.tasks[size_t(t)].region >= 0);
    CHECK(edge(g, t - 1, t));  // the fill before each loop orders its first bump
    REQUIRE(edge(g, t, t));
    CHECK(edge(g, t, t)->carried);
  }
}
