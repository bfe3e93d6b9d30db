// The `--shape NAME=[D0,D1,...]` value syntax bin/run and pypto eval / test share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pypto_rt {

// "[64,128]", "64,128" or "[64, 128]" -> {64, 128} (each extent 0 .. 9,999,999,999); false when
// `text` is not such a list.
bool parse_extents(std::string text, std::vector<int64_t>& out);

}  // namespace pypto_rt
