// ExpandManualPhaseFence: in a manual scope, a loop of M submits each waiting on a whole TaskId
// array of N tasks gets one task_dummy barrier before the loop when N*M - (N+M) >= 1 (M counts
// the loop's trips, and a sequential loop's nested constant-trip loops); the submits wait on the
// barrier. Left alone: N = M = 2, auto scopes, scalar / mixed / two-array deps, arrays the loop
// carries, defines or updates (also through a carry that starts from the array); nested loops
// decide on what the outer loop left.
#include "pass_test_util.h"

using namespace pypto;

namespace {

const std::string kHead =
    "import pypto.language as pl\n\n@pl.program\nclass P:\n"
    "    @pl.function\n"
    "    def k(self) -> pl.Scalar[pl.TASK_ID]:\n"
    "        return pl.system.task_invalid()\n\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self) -> pl.Scalar[pl.TASK_ID]:\n";

ir::ProgramPtr fence(const std::string& body) {
  passes::PassContext ctx;
  return passes::expand_manual_phase_fence_pass().run(pass_test::parse(kHead + body), ctx);
}

void unchanged(const std::string& body) {
  INFO(body);
  pass_test::require_equal(fence(body), pass_test::parse(kHead + body));
}

}  // namespace

TEST_CASE("a profitable fan-in gets one barrier before the outermost loop that covers it",
          "[ExpandManualPhaseFence]") {
  // 3 producers x (2 outer trips x 2 inner trips) consumers = 12 edges > 3 + 4: the barrier goes
  // before the outer sequential loop and covers the submits of the nested loop.
  auto after = fence("        with pl.manual_scope():\n"
                     "            tids = pl.array.create(3, pl.TASK_ID)\n"
                     "            for i in pl.range(2):\n"
                     "                for j in pl.parallel(2):\n"
                     "                    a, ta = pl.submit(self.k, deps=[tids])\n"
                     "                b, tb = pl.submit(self.k, deps=[ta])\n"
                     "        return pl.system.task_invalid()\n");
  auto expected = pass_test::parse(kHead +
                                   "        with pl.manual_scope():\n"
                                   "            tids = pl.array.create(3, pl.TASK_ID)\n"
                                   "            fence = pl.system.task_dummy(deps=[tids])\n"
                                   "            for i in pl.range(2):\n"
                                   "                for j in pl.parallel(2):\n"
                                   "                    a, ta = pl.submit(self.k, deps=[fence])\n"
                                   "                b, tb = pl.submit(self.k, deps=[ta])\n"
                                   "        return pl.system.task_invalid()\n");
  pass_test::require_equal(after, expected);
}

TEST_CASE("two arrays, two barriers, numbered in the order the arrays are first waited on",
          "[ExpandManualPhaseFence]") {
  auto after = fence("        with pl.manual_scope():\n"
                     "            ta = pl.array.create(4, pl.TASK_ID)\n"
                     "            tb = pl.array.create(4, pl.TASK_ID)\n"
                     "            for i in pl.parallel(4):\n"
                     "                b, t1 = pl.submit(self.k, deps=[tb])\n"
                     "                a, t2 = pl.submit(self.k, deps=[ta])\n"
                     "        return pl.system.task_invalid()\n");
  auto expected = pass_test::parse(kHead +
                                   "        with pl.manual_scope():\n"
                                   "            ta = pl.array.create(4, pl.TASK_ID)\n"
                                   "            tb = pl.array.create(4, pl.TASK_ID)\n"
                                   "            phase_fence_barrier_0_tid = pl.system.task_dummy(deps=[tb])\n"
                                   "            phase_fence_barrier_1_tid = pl.system.task_dummy(deps=[ta])\n"
                                   "            for i in pl.parallel(4):\n"
                                   "                b, t1 = pl.submit(self.k, deps=[phase_fence_barrier_0_tid])\n"
                                   "                a, t2 = pl.submit(self.k, deps=[phase_fence_barrier_1_tid])\n"
                                   "        return pl.system.task_invalid()\n");
  pass_test::require_equal(after, expected);
  // The names are part of the output (they appear in the generated orchestration).
  const std::string text = ir::print_program(*after);
  CHECK(text.find("phase_fence_barrier_0_tid: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy([tb])") != std::string::npos);
}

TEST_CASE("no barrier where it does not pay or the array is not stable", "[ExpandManualPhaseFence]") {
  const std::string ret = "        return pl.system.task_invalid()\n";
  // 2 x 2: four edges either way.
  unchanged("        with pl.manual_scope():\n            tids = pl.array.create(2, pl.TASK_ID)\n"
            "            for i in pl.parallel(2):\n                a, ta = pl.submit(self.k, deps=[tids])\n" + ret);
  // Not a manual scope: the runtime's tracking orders the tasks.
  unchanged("        tids = pl.array.create(4, pl.TASK_ID)\n"
            "        for i in pl.parallel(4):\n            a, ta = pl.submit(self.k, deps=[tids])\n" + ret);
  // A second dependency next to the array.
  unchanged("        with pl.manual_scope():\n            tids = pl.array.create(4, pl.TASK_ID)\n"
            "            x, tx = pl.submit(self.k)\n"
            "            for i in pl.parallel(4):\n                a, ta = pl.submit(self.k, deps=[tids, tx])\n" + ret);
  // The loop updates the array it waits on.
  unchanged("        with pl.manual_scope():\n            tids = pl.array.create(4, pl.TASK_ID)\n"
            "            for i in pl.range(4):\n                a, ta = pl.submit(self.k, deps=[tids])\n"
            "                tids[i] = ta\n" + ret);
  // ... through a carry that starts from it.
  unchanged("        with pl.manual_scope():\n            tids = pl.array.create(4, pl.TASK_ID)\n"
            "            for i in pl.range(4):\n                a, ta = pl.submit(self.k, deps=[tids])\n"
            "                for j, (c,) in pl.range(1, init_values=(tids,)):\n"
            "                    c2 = pl.array.update_element(c, 0, ta)\n"
            "                    r = pl.yield_(c2)\n" + ret);
  // A parallel loop of a runtime trip count.
  unchanged("        with pl.manual_scope():\n            n = pl.system.available_cluster_count()\n"
            "            tids = pl.array.create(4, pl.TASK_ID)\n"
            "            for i in pl.parallel(n):\n                a, ta = pl.submit(self.k, deps=[tids])\n" + ret);
}
