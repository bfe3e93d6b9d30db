// pypto CPU runtime: deterministic pseudo-random inputs (see pypto_rt/random_fill.h).
#include "pypto_rt/random_fill.h"

#include <cstring>

#include <pto/pto_float.hpp>

namespace pypto_rt {

uint64_t splitmix64_next(uint64_t& state) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

namespace {
template <typename T>
void put(std::vector<uint8_t>& out, uint64_t i, T v) {
    std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}
}  // namespace

std::vector<uint8_t> random_fill(DataType dtype, uint64_t count, uint64_t seed, int param_index) {
    const uint64_t es = get_element_size(dtype);
    std::vector<uint8_t> out(count * es);
    uint64_t state = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(param_index + 1);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t x = splitmix64_next(state);
        const float f = static_cast<float>(static_cast<double>(x >> 40) * (1.0 / 8388608.0) - 1.0);
        const int64_t s = static_cast<int64_t>((x >> 32) % 17) - 8;
        const uint64_t u = (x >> 32) % 17;
        switch (dtype) {
            case DataType::FLOAT32: put(out, i, f); break;
            case DataType::FLOAT16: put(out, i, half(f).bits); break;
            case DataType::BFLOAT16: put(out, i, bfloat16_t(f).bits); break;
            case DataType::INT8: put(out, i, static_cast<int8_t>(s)); break;
            case DataType::INT16: put(out, i, static_cast<int16_t>(s)); break;
            case DataType::INT32: put(out, i, static_cast<int32_t>(s)); break;
            case DataType::INT64: put(out, i, static_cast<int64_t>(s)); break;
            case DataType::UINT8: put(out, i, static_cast<uint8_t>(u)); break;
            case DataType::UINT16: put(out, i, static_cast<uint16_t>(u)); break;
            case DataType::UINT32: put(out, i, static_cast<uint32_t>(u)); break;
            case DataType::UINT64: put(out, i, u); break;
            case DataType::BOOL: put(out, i, static_cast<uint8_t>(x >> 63)); break;
            case DataType::FP8E4M3FN: put(out, i, float8_e4m3_t(f).bits); break;
            // MX scales 2^-2 .. 2^2, so that scaled products stay in range.
            case DataType::FP8E8M0: put(out, i, static_cast<uint8_t>(125 + (x >> 32) % 5)); break;
            default: break;  // FP4: left zero
        }
    }
    return out;
}

}  // namespace pypto_rt
