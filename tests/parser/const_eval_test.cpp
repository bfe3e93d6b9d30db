// Constant evaluator: literals, Python arithmetic semantics, tuples (and their count / index),
// builtins, names, -D text.
#include <catch2/catch.hpp>

#include "ir/diagnostic.h"
#include "parser/const_eval.h"

using namespace pypto::parser;

static ConstValue ev(const std::string& text) {
  return eval_expression_text(text, "test", [](const std::string& n, TSNode) -> std::optional<ConstValue> {
    if (n == "ROWS") return ConstValue{int64_t(256)};
    if (n == "SHAPE") return ConstValue::of_list({ConstValue{int64_t(64)}, ConstValue{int64_t(128)}});
    return std::nullopt;
  });
}

TEST_CASE("const_eval literals and arithmetic", "[const_eval]") {
  CHECK(ev("3").as_int() == 3);
  CHECK(ev("0x10").as_int() == 16);
  CHECK(ev("1_000").as_int() == 1000);
  CHECK(ev("2.5").as_float() == 2.5);
  CHECK(std::get<bool>(ev("True").v));
  CHECK(ev("None").is_none());
  CHECK(ev("ROWS // 4 + 1").as_int() == 65);
  CHECK(ev("-7 // 2").as_int() == -4);   // floor division
  CHECK(ev("-7 % 3").as_int() == 2);     // Python modulo sign
  CHECK(ev("7 / 2").as_float() == 3.5);  // true division is float
  CHECK(ev("2 ** 10").as_int() == 1024);
  CHECK(ev("1 << 4 >> 1").as_int() == 8);
  CHECK(ev("-ROWS").as_int() == -256);
  CHECK(ev("1 + 2.0").as_float() == 3.0);
}

TEST_CASE("const_eval tuples, builtins, conditionals", "[const_eval]") {
  auto t = ev("(1, 2, ROWS)");
  REQUIRE(t.is_list());
  CHECK(t.as_list().size() == 3);
  CHECK(t.as_list()[2].as_int() == 256);
  CHECK(ev("SHAPE[1]").as_int() == 128);
  CHECK(ev("len(SHAPE)").as_int() == 2);
  CHECK(ev("min(3, ROWS, 7)").as_int() == 3);
  CHECK(ev("max(SHAPE)").as_int() == 128);
  CHECK(ev("abs(-5)").as_int() == 5);
  CHECK(ev("64 if ROWS > 100 else 32").as_int() == 64);
  CHECK(ev("[1, 2] + [3]").as_list().size() == 3);
  CHECK(ev("'a' + 'b'").repr() == "'ab'");
  CHECK(ev("(1,)").repr() == "(1,)");
  CHECK(ev("(4, 0, 4, 128)[:3].count(4)").as_int() == 2);
  CHECK(ev("SHAPE.index(128)").as_int() == 1);
}

TEST_CASE("const_eval errors", "[const_eval]") {
  CHECK_THROWS_AS(ev("1 // 0"), pypto::ir::CompileError);
  CHECK_THROWS_AS(ev("SHAPE[5]"), pypto::ir::CompileError);
  CHECK_THROWS_AS(ev("SHAPE.index(7)"), pypto::ir::CompileError);  // ValueError
  CHECK_THROWS_AS(ev("UNKNOWN + 1"), pypto::ir::CompileError);  // not a constant
  CHECK_THROWS_AS(ev("foo("), pypto::ir::CompileError);          // not an expression
}

// Found by fuzzing (tests/fuzz): 64-bit overflow was undefined behaviour (`8**30` wrapped silently,
// `1 ** 10**18` looped for ever). Python's integers are unbounded; pypto's constants are 64-bit, so
// a result beyond them is a located error, and everything that fits is exact.
TEST_CASE("const_eval integer overflow is an error, results that fit are exact", "[const_eval]") {
  for (const char* e : {"8 ** 30", "2 ** 64", "9223372036854775807 + 1", "-9223372036854775807 - 2",
                        "4294967296 * 4294967296", "-(-9223372036854775807 - 1)", "(-9223372036854775807 - 1) // -1",
                        "1 << 64", "3 << 62", "1 << -1", "1 >> -1", "'ab' * 600000", "[1, 2] * 600000"}) {
    INFO(e);
    CHECK_THROWS_AS(ev(e), pypto::ir::CompileError);
  }
  CHECK(ev("2 ** 62").as_int() == (int64_t(1) << 62));
  CHECK(ev("(-2) ** 63").as_int() == INT64_MIN);
  CHECK(ev("1 ** 1000000000000000000").as_int() == 1);
  CHECK(ev("(-1) ** 1000000000000000001").as_int() == -1);
  CHECK(ev("0 ** 0").as_int() == 1);
  CHECK(ev("-1 << 63").as_int() == INT64_MIN);
  CHECK(ev("(-9223372036854775807 - 1) % -1").as_int() == 0);
  CHECK(ev("9223372036854775807 - 1").as_int() == INT64_MAX - 1);
}
