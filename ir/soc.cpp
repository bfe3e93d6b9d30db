// SoC table (README of the reference notes: memory spaces and capacities).
#include "ir/soc.h"

namespace pypto::ir {

namespace {
constexpr int64_t KiB = 1024;
const SocInfo k910B{Soc::Ascend910B, "910b", "a2a3", 184 * KiB, 512 * KiB, 64 * KiB, 64 * KiB,
                    128 * KiB, 1 * KiB, 0, 32, false};
const SocInfo k950{Soc::Ascend950, "950", "a5", 240 * KiB, 512 * KiB, 64 * KiB, 64 * KiB,
                   256 * KiB, 4 * KiB, 4 * KiB, 32, true};
}  // namespace

int64_t SocInfo::capacity(MemorySpace s) const {
  switch (s) {
    case MemorySpace::Vec: return vec_bytes;
    case MemorySpace::Mat: return mat_bytes;
    case MemorySpace::Left: return left_bytes;
    case MemorySpace::Right: return right_bytes;
    case MemorySpace::Acc: return acc_bytes;
    case MemorySpace::Bias: return bias_bytes;
    case MemorySpace::LeftScale:
    case MemorySpace::RightScale: return scale_bytes;
    default: return 0;
  }
}

const SocInfo& soc_info(Soc s) { return s == Soc::Ascend950 ? k950 : k910B; }

std::optional<Soc> soc_from_name(std::string_view n) {
  if (n == "910b" || n == "910B" || n == "a2a3") return Soc::Ascend910B;
  if (n == "950" || n == "a5") return Soc::Ascend950;
  return std::nullopt;
}

}  // namespace pypto::ir
