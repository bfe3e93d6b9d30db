// SourceFile line indexing and Span formatting.
#include "ir/span.h"

#include <cstring>

#include <fmt/format.h>

namespace pypto::ir {

SourceFile::SourceFile(std::string path_, std::string text_)
    : path(std::move(path_)), text(std::move(text_)) {
  line_starts.push_back(0);
  const char* const b = text.data();
  const char* const e = b + text.size();
  for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\n', size_t(e - p)))); ++p)
    line_starts.push_back(uint32_t(p - b + 1));
}

std::string_view SourceFile::line(uint32_t line_no) const {
  if (line_no == 0 || line_no > line_starts.size()) return {};
  uint32_t b = line_starts[line_no - 1];
  uint32_t e = line_no < line_starts.size() ? line_starts[line_no] : uint32_t(text.size());
  while (e > b && (text[e - 1] == '\n' || text[e - 1] == '\r')) --e;
  return std::string_view(text).substr(b, e - b);
}

std::string Span::to_string() const { return fmt::format("{}:{}:{}", filename(), line, col); }

}  // namespace pypto::ir
