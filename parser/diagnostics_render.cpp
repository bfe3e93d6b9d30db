// rustc-style text and JSON rendering of diagnostics (see diagnostics_render.h).
#include "parser/diagnostics_render.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pypto::parser {

namespace {

std::string_view sev_name(ir::Severity s) {
  switch (s) {
    case ir::Severity::Error: return "error";
    case ir::Severity::Warning: return "warning";
    case ir::Severity::Note: return "note";
  }
  return "error";
}

// Display width of line[0, byte_col) with tabs kept as tabs (so carets line up).
std::string pad_to(std::string_view line, uint32_t byte_col) {
  std::string p;
  for (uint32_t i = 0; i + 1 < byte_col && i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (line[i] == '\t') p += '\t';
    else if ((c & 0xC0) != 0x80) p += ' ';  // one column per UTF-8 code point
  }
  return p;
}

uint32_t width(std::string_view line, uint32_t from, uint32_t to) {
  uint32_t w = 0;
  for (uint32_t i = from; i < to && i < line.size(); ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++w;
  return w;
}

void render_location(std::string& o, const ir::Span& sp, const std::string& label, bool color, const char* caret_color) {
  const char* blue = color ? "\x1b[1;34m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  o += fmt::format("{}  --> {}{}:{}:{}\n", blue, reset, sp.filename(), sp.line, sp.col);
  std::string_view line = sp.file->line(sp.line);
  std::string num = std::to_string(sp.line);
  std::string gutter(num.size(), ' ');
  o += fmt::format("{}{} |{}\n", blue, gutter, reset);
  uint32_t c0 = sp.col ? sp.col - 1 : 0;
  uint32_t c1 = (sp.end_line == sp.line && sp.end_col > sp.col) ? sp.end_col - 1 : uint32_t(line.size());
  // Very long lines are shown as a window around the span start ("..." marks the cut ends).
  constexpr uint32_t kWindow = 120, kLead = 40;
  std::string_view shown = line;
  std::string prefix, suffix;
  if (line.size() > kWindow) {
    uint32_t from = c0 > kLead ? c0 - kLead : 0;
    while (from > 0 && (static_cast<unsigned char>(line[from]) & 0xC0) == 0x80) --from;
    uint32_t to = std::min<uint32_t>(uint32_t(line.size()), from + kWindow);
    while (to < line.size() && (static_cast<unsigned char>(line[to]) & 0xC0) == 0x80) ++to;
    shown = line.substr(from, to - from);
    if (from > 0) prefix = "...";
    if (to < line.size()) suffix = "...";
    c0 -= from;
    c1 = std::min(c1, to) - from;
  }
  o += fmt::format("{}{} |{} {}{}{}\n", blue, num, reset, prefix, shown, suffix);
  uint32_t n = std::max<uint32_t>(1, width(shown, c0, c1));
  o += fmt::format("{}{} |{} {}{}{}{}{}{}\n", blue, gutter, reset, std::string(prefix.size(), ' '), pad_to(shown, c0 + 1),
                   caret_color, std::string(n, '^'), label.empty() ? "" : " " + label, reset);
}

}  // namespace

std::string render_diagnostic(const ir::Diagnostic& d, bool color) {
  const char* sev_color = !color ? "" : d.severity == ir::Severity::Error ? "\x1b[1;31m"
                                      : d.severity == ir::Severity::Warning ? "\x1b[1;33m"
                                                                           : "\x1b[1;36m";
  const char* bold = color ? "\x1b[1m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string o;
  std::string code = d.code.empty() ? "" : fmt::format("[{}]", d.code);
  o += fmt::format("{}{}{}{}: {}{}{}\n", sev_color, sev_name(d.severity), code, reset, bold, d.message, reset);
  if (d.span.valid()) render_location(o, d.span, "", color, sev_color);
  else if (d.span.file) o += fmt::format("  --> {}\n", d.span.filename());
  for (const auto& [sp, msg] : d.notes) {
    if (sp.valid()) {
      o += fmt::format("note: {}\n", msg);
      render_location(o, sp, "", color, color ? "\x1b[1;36m" : "");
    } else {
      o += fmt::format("   = note: {}\n", msg);
    }
  }
  if (!d.hint.empty()) o += fmt::format("   = help: {}\n", d.hint);
  return o;
}

std::string render_diagnostics_json(const std::vector<ir::Diagnostic>& diags) {
  using Json = nlohmann::ordered_json;
  auto location = [](Json& j, const ir::Span& s) {
    j["file"] = s.file ? s.file->path : "";
    j["line"] = s.line;
    j["col"] = s.col;
    j["end_line"] = s.end_line;
    j["end_col"] = s.end_col;
  };
  Json out = Json::array();
  for (const auto& d : diags) {
    Json j;
    j["severity"] = sev_name(d.severity);
    j["code"] = d.code;
    j["message"] = d.message;
    location(j, d.span);
    j["hint"] = d.hint;
    Json notes = Json::array();
    for (const auto& [sp, msg] : d.notes) {
      Json n;
      n["message"] = msg;
      location(n, sp);
      notes.push_back(std::move(n));
    }
    j["notes"] = std::move(notes);
    out.push_back(std::move(j));
  }
  // Source text quoted in a message may hold bytes that are not UTF-8: shown as U+FFFD.
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace pypto::parser
