// Diagnostic rendering: rustc-style text with carets under the span, hint line, warnings, JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "parse_helpers.h"
#include "parser/diagnostics_render.h"

using namespace pypto;

TEST_CASE("text rendering puts carets under the span", "[render]") {
  auto errs = ptest::errors(ptest::kernel("        y = qq + 1\n"));
  REQUIRE(errs.size() == 1);
  std::string out = parser::render_diagnostic(errs[0], false);
  INFO(out);
  CHECK(out.rfind("error[E200]: Undefined variable 'qq'\n", 0) == 0);
  CHECK(out.find("  --> test.py:7:13\n") != std::string::npos);
  CHECK(out.find("7 |         y = qq + 1\n") != std::string::npos);
  // The caret line: gutter, then 12 columns of padding, then one caret per byte of "qq".
  CHECK(out.find("  |             ^^\n") != std::string::npos);
  CHECK(out.find("\x1b[") == std::string::npos);
  CHECK(parser::render_diagnostic(errs[0], true).find("\x1b[") != std::string::npos);
}

TEST_CASE("hints, warnings and unlocated diagnostics", "[render]") {
  auto file = ptest::src("a = 1\nb = 2\n");
  ir::Diagnostic d{ir::Severity::Warning, "W001", "something odd", ir::Span{file, 2, 1, 2, 2}, "do this", {}};
  std::string out = parser::render_diagnostic(d, false);
  CHECK(out.rfind("warning[W001]: something odd\n", 0) == 0);
  CHECK(out.find("2 | b = 2\n") != std::string::npos);
  CHECK(out.find("  | ^\n") != std::string::npos);
  CHECK(out.find("   = help: do this\n") != std::string::npos);
  ir::Diagnostic n{ir::Severity::Error, "E000", "cannot read", ir::Span{}, "", {}};
  CHECK(parser::render_diagnostic(n, false) == "error[E000]: cannot read\n");
}

TEST_CASE("JSON rendering", "[render]") {
  auto file = ptest::src("x\n", "dir/p\"q.py");
  ir::Diagnostic with_note{ir::Severity::Error, "E201", "defined twice", ir::Span{file, 1, 1, 1, 2}, "", {}};
  with_note.notes.emplace_back(ir::Span{file, 1, 1, 1, 2}, "the other\tdefinition");
  std::vector<ir::Diagnostic> ds = {
      {ir::Severity::Error, "E200", "Undefined variable 'x'", ir::Span{file, 1, 1, 1, 2}, "", {}},
      {ir::Severity::Warning, "W001", "line\nbreak \x01 and \xff", ir::Span{}, "h", {}}, with_note};
  std::string j = parser::render_diagnostics_json(ds);
  INFO(j);
  auto v = nlohmann::json::parse(j);  // throws (fails the test) unless it is valid JSON
  REQUIRE(v.is_array());
  REQUIRE(v.size() == 3);
  CHECK(v[0] == nlohmann::json{{"severity", "error"}, {"code", "E200"}, {"message", "Undefined variable 'x'"},
                               {"file", "dir/p\"q.py"}, {"line", 1}, {"col", 1}, {"end_line", 1}, {"end_col", 2},
                               {"hint", ""}, {"notes", nlohmann::json::array()}});
  CHECK(v[1]["message"] == "line\nbreak \x01 and \xef\xbf\xbd");  // a byte that is not UTF-8: U+FFFD
  CHECK(v[1]["line"] == 0);
  CHECK(v[1]["severity"] == "warning");
  REQUIRE(v[2]["notes"].size() == 1);
  CHECK(v[2]["notes"][0]["message"] == "the other\tdefinition");
  CHECK(v[2]["notes"][0]["line"] == 1);
  CHECK(j.find("\"severity\"") < j.find("\"code\""));  // fields in a stable, readable order
  CHECK(parser::render_diagnostics_json({}) == "[]\n");
}

TEST_CASE("very long lines are shown as a window around the span", "[render]") {
  std::string filler;
  for (int i = 0; i < 40; ++i) filler += fmt::format("a{} = {}; ", i, i);
  auto file = ptest::src(filler + "b = qq + 1\n");
  uint32_t col = uint32_t(filler.size()) + 5;  // 1-based column of `qq`
  ir::Diagnostic d{ir::Severity::Error, "E200", "Undefined variable 'qq'", ir::Span{file, 1, col, 1, col + 2}, "", {}};
  std::string out = parser::render_diagnostic(d, false);
  INFO(out);
  auto src_line = out.find("1 | ...");
  REQUIRE(src_line != std::string::npos);
  auto eol = out.find('\n', src_line);
  CHECK(eol - src_line < 140);                           // not the whole 400-byte line
  CHECK(out.find("b = qq + 1", src_line) < eol);         // the span is inside the window
  auto caret_line = out.find('\n', eol + 1) == std::string::npos ? std::string::npos : eol + 1;
  REQUIRE(caret_line != std::string::npos);
  // The caret sits exactly under `qq` in the windowed line.
  CHECK(out.find("^^", caret_line) - caret_line == out.find("qq", src_line) - src_line);
}

TEST_CASE("a warning identical to one already given is given once; others are kept", "[render]") {
  // qwen3_14b's prefill made the same W503 twice per pipeline loop: an inline function's loop in
  // the kernels of two call sites.
  auto file = ptest::src("a = 1\nb = 2\n");
  ir::DiagnosticSink sink;
  sink.warning("W503", ir::Span{file, 2, 1, 2, 2}, "one stage fits", "write stage=1");
  sink.warning("W503", ir::Span{file, 2, 1, 2, 2}, "one stage fits", "write stage=1");
  sink.warning("W503", ir::Span{file, 1, 1, 1, 2}, "one stage fits", "write stage=1");  // another line
  sink.warning("W503", ir::Span{file, 2, 1, 2, 2}, "two stages fit", "write stage=2");  // another text
  sink.error("E501", ir::Span{file, 2, 1, 2, 2}, "not supported");
  sink.error("E501", ir::Span{file, 2, 1, 2, 2}, "not supported");  // errors are all kept
  CHECK(sink.diagnostics().size() == 5);
}
