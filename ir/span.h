// Source locations. Every IR node carries a Span so that any stage can point a diagnostic at the
// user's source line. A SourceFile owns the text so spans stay valid for the whole compilation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pypto::ir {

struct SourceFile {
  std::string path;
  std::string text;
  std::vector<uint32_t> line_starts;  // byte offset of each line start

  SourceFile(std::string path_, std::string text_);
  // 1-based line number → text of that line without the newline ("" if out of range).
  std::string_view line(uint32_t line_no) const;
};
using SourceFilePtr = std::shared_ptr<const SourceFile>;

// Half-open range [begin, end) in 1-based lines and 1-based (byte) columns.
struct Span {
  SourceFilePtr file;
  uint32_t line = 0, col = 0, end_line = 0, end_col = 0;

  bool valid() const { return file != nullptr && line != 0; }
  std::string filename() const { return file ? file->path : std::string("<unknown>"); }
  // "file:line:col"
  std::string to_string() const;
  bool operator==(const Span&) const = default;  // the same file object and extent
};

}  // namespace pypto::ir
