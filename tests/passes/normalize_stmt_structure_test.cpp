// NormalizeStmtStructure: nested and single-statement SeqStmts are flattened.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("flattens nested and single-statement blocks", "[NormalizeStmtStructure]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = n + 1
        b: pl.Scalar[pl.INDEX] = a + 1
        return b
)");
  auto f = p->functions[0];
  auto stmts = ir::flatten_body(f->body);
  REQUIRE(stmts.size() == 3);
  // Build ((a), (b, return)) with a single-statement block inside.
  auto one = std::make_shared<ir::SeqStmts>(std::vector<ir::StmtPtr>{stmts[0]}, ir::Span{});
  auto two = std::make_shared<ir::SeqStmts>(std::vector<ir::StmtPtr>{stmts[1], stmts[2]}, ir::Span{});
  auto nested = std::make_shared<ir::SeqStmts>(std::vector<ir::StmtPtr>{one, two}, ir::Span{});
  auto messy = ir::make_program(p->name, {ir::with_body(*f, nested)});
  ir::DiagnosticSink before_sink;
  CHECK_FALSE(ir::verify(*messy, {ir::Property::NoRedundantBlocks}, before_sink));
  auto after = pass_test::run(passes::normalize_stmt_structure_pass(), messy);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::NoRedundantBlocks}, sink));
  pass_test::require_equal(after, p);
}
