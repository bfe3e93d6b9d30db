// File output for the CLI's own writes (pass dumps): names and atomic directory replacement.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pypto::cli {

// "03_ConvertToSSA.py" for the 3rd pass (1-based), as in `passes_dump/NN_<pass>.py`.
std::string dump_file_name(int index, const std::string& pass_name);

// Writes {relative name, content} files into a fresh temporary directory next to `dir`, then
// replaces `dir` with it; on failure `dir` is left as it was. Throws UsageError on I/O failure.
void write_files_atomically(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace pypto::cli
