// CheckSyncallLaunches: a hard pl.system.syncall's launch fills every core of its participant set
// and says sync_start=True. Accepted and unchanged (Before == Expected): a full AIV launch by
// literal (48 on the 910B, 72 on the 950) and by pl.system.available_aiv_count(), a soft barrier
// at partial occupancy, a hard barrier in a kernel called without pl.spmd, a runtime width. E904
// errors naming the kernel, the barrier and the fix: a partial and an over-full launch, a launch
// without sync_start, the cluster-count query for an AIV barrier, the default "mix" barrier in an
// AIV-only kernel.
#include <fmt/format.h>

#include "pass_test_util.h"

using namespace pypto;

namespace {

// An InCore kernel with `barrier` between its load and its store, launched by `launch` (a `with`
// header, or "" for a plain call) from orchestration; `n` is the orchestration's scalar parameter.
std::string program(const std::string& barrier, const std::string& launch) {
  const std::string call = "out = self.k(a, ws, out)";
  const std::string body = launch.empty() ? "        " + call + "\n" : "        " + launch + ":\n            " + call + "\n";
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, a: pl.Tensor[[16, 64], pl.FP32], ws: pl.Tensor[[16], pl.INT32],\n"
         "          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
         "        t = pl.load(a, [0, 0], [16, 64])\n"
         "        " + barrier + "\n"
         "        out = pl.store(t, [0, 0], out)\n"
         "        return out\n\n"
         "    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def main(self, a: pl.Tensor[[16, 64], pl.FP32], ws: pl.Tensor[[16], pl.INT32], n: pl.Scalar[pl.INDEX],\n"
         "             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n" +
         body + "        return out\n";
}

const std::vector<std::string> kUpTo = {"ConvertToSSA", "FlattenCallExpr", "OutlineClusterScopes",
                                        "ConvertTensorToTileOps", "InferTileMemorySpace", "ExpandMixedKernel"};

ir::ProgramPtr prepared(const std::string& text, ir::Soc soc = ir::Soc::Ascend910B) {
  return pass_test::run_named(kUpTo, pass_test::parse(text), soc);
}

const char* kAiv = "pl.system.syncall(core_type=\"aiv_only\")";

}  // namespace

TEST_CASE("launches that fill the barrier's cores with sync_start are unchanged", "[CheckSyncallLaunches]") {
  const std::vector<std::pair<std::string, std::string>> ok = {
      {kAiv, "with pl.spmd(48, sync_start=True)"},
      {kAiv, "with pl.spmd(pl.system.available_aiv_count(), sync_start=True)"},
      {kAiv, "with pl.spmd(n, sync_start=True)"},  // a runtime width: bin/run checks it
      {kAiv, ""},                                   // no launch: occupancy is a launch-time property
      {"pl.system.syncall(mode=\"soft\", core_type=\"aiv_only\", gm_workspace=ws, used_cores=2)", "with pl.spmd(2)"},
  };
  for (const auto& [barrier, launch] : ok) {
    INFO(barrier << " / " << launch);
    auto before = prepared(program(barrier, launch));
    auto expected = prepared(program(barrier, launch));
    pass_test::require_equal(pass_test::run(passes::check_syncall_launches_pass(), before), expected);
  }
  auto p950 = prepared(program(kAiv, "with pl.spmd(72, sync_start=True)"), ir::Soc::Ascend950);
  CHECK_NOTHROW(pass_test::run(passes::check_syncall_launches_pass(), p950, ir::Soc::Ascend950));
}

TEST_CASE("launches a hard barrier would hang in are E904 errors", "[CheckSyncallLaunches]") {
  struct Case {
    std::string barrier, launch;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {kAiv, "with pl.spmd(4, sync_start=True)",
       {"this launch of 'k' runs 4 blocks", "waits for all 48 AIV cores of the 910b", "line 9 of 'k'"}},
      {kAiv, "with pl.spmd(96, sync_start=True)", {"runs 96 blocks", "all 48 AIV cores"}},
      {kAiv, "with pl.spmd(48)", {"lacks sync_start=True"}},
      {kAiv, "with pl.spmd(pl.system.available_cluster_count(), sync_start=True)",
       {"sized by pl.system.available_cluster_count()", "which pl.system.available_aiv_count() counts"}},
      {"pl.system.syncall()", "with pl.spmd(48, sync_start=True)",
       {"syncall(core_type=\"mix\") can never complete in 'k', a standalone AIV kernel"}},
  };
  for (const Case& c : cases) {
    auto p = prepared(program(c.barrier, c.launch));
    const std::string msg = pass_test::compile_error_of([&] { pass_test::run(passes::check_syncall_launches_pass(), p); });
    INFO(msg);
    for (const auto& s : c.says) CHECK(msg.find(s) != std::string::npos);
  }
  auto p950 = prepared(program(kAiv, "with pl.spmd(48, sync_start=True)"), ir::Soc::Ascend950);
  const std::string msg =
      pass_test::compile_error_of([&] { pass_test::run(passes::check_syncall_launches_pass(), p950, ir::Soc::Ascend950); });
  CHECK(msg.find("all 72 AIV cores of the 950") != std::string::npos);
}
