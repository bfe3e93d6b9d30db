// Names of the CLI's pass-dump files. (Directories are written with emit::write_files_atomically,
// the one atomic writer for everything pypto writes.)
#pragma once

#include <string>

namespace pypto::cli {

// "03_ConvertToSSA.py" for the 3rd pass (1-based), as in `passes_dump/NN_<pass>.py`.
std::string dump_file_name(int index, const std::string& pass_name);

}  // namespace pypto::cli
