// The --shape value syntax (pypto_rt/extents.h).
#include "pypto_rt/extents.h"

namespace pypto_rt {

bool parse_extents(std::string text, std::vector<int64_t>& out) {
    out.clear();
    if (!text.empty() && text.front() == '[') {
        if (text.back() != ']') return false;
        text = text.substr(1, text.size() - 2);
    }
    std::size_t b = 0;
    while (b <= text.size()) {
        std::size_t e = text.find(',', b);
        if (e == std::string::npos) e = text.size();
        std::string item = text.substr(b, e - b);
        while (!item.empty() && item.front() == ' ') item.erase(0, 1);
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 10) return false;
        out.push_back(std::stoll(item));
        b = e + 1;
    }
    return !out.empty();
}

}  // namespace pypto_rt
