// pypto CPU runtime: pto-isa enums (names and values as in pto-isa's type.hpp) and the element
// conversion rules every instruction uses (`pto::cvt::to<T>(x)`, `pto::cvt::round_to<T>(x, mode)`).
//
// Conversion conventions (documented deviations from the NPU are marked "CPU:"):
//   * float-like types (float, half, bfloat16_t, float8_e4m3_t, float8_e8m0_t) convert through
//     float; narrowing rounds RNE (E8M0 keeps the exponent; pto_float.hpp). CPU: TCVT to an FP8
//     type uses that conversion whatever the RoundMode / SaturationMode.
//   * float -> integer (plain cast, e.g. TSTORE of an int tile from float): truncate toward zero,
//     saturate to the integer range, NaN -> 0.
//   * TCVT with a RoundMode: CAST_NONE/CAST_RINT ties-to-even, CAST_ROUND ties-away, FLOOR, CEIL,
//     TRUNC, CAST_ODD (round to odd). float -> float rounds to an integral value in that mode (the
//     NPU's same-type conversion). SaturationMode::ON clamps float overflow to +-max finite,
//     OFF gives +-inf. Float -> int saturates when ON; OFF keeps the low bits of the (64-bit)
//     integer value, as int -> narrower int does. TCVT without a SaturationMode operand uses
//     pto-isa's per-type default (pto_ops_vector.hpp: OFF for a few narrowing pairs, else ON).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "pto_float.hpp"

namespace pto {

constexpr int DYNAMIC = -1;

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight, Ctrl };
enum class BLayout { RowMajor = 0, ColMajor = 1 };
enum class SLayout { NoneBox = 0, RowMajor = 1, ColMajor = 2 };
// MX_A_ZZ / MX_B_NN: the packed GM order of MX scale tensors (pto_ops_memory.hpp); the values are
// pto-isa's (its other layouts, SCALE, MX_A_ND, ..., are not implemented here).
enum class Layout { ND = 0, DN = 1, NZ = 2, MX_A_ZZ = 6, MX_B_NN = 9 };
// Custom pad values: CustomBase | (bit pattern of the value, low 32 bits), as in pto-isa.
enum class PadValue : uint64_t { Null = 0, Zero = 1, Max = 2, Min = 3, CustomBase = 0x100000000ULL };
enum class TFillPadMode : uint8_t { Normal = 0, InPlace = 1, Expand = 2 };
// Element-selection patterns of the mask forms of TGATHER / TSCATTER (bit k = element k mod 2 or 4).
enum class MaskPattern : uint8_t { P0101 = 1, P1010 = 2, P0001 = 3, P0010 = 4, P0100 = 5, P1000 = 6, P1111 = 7 };
enum class GatherAxis : uint8_t { GATHER_ROW = 0, GATHER_COL = 1 };
enum class ScatterAxis : uint8_t { SCATTER_ROW = 0, SCATTER_COL = 1 };
// Precision selectors (template arguments only; the CPU computes exactly either way).
enum class FmodAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class FmodSAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemSAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class CompactMode { Null, Normal, RowPlusOne, RowAlignedPadding };
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };
enum class SaturationMode : uint8_t { ON = 0, OFF = 1 };
enum class CmpMode : uint8_t { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };
enum class AtomicType : uint8_t { AtomicNone = 0, AtomicAdd = 1 };
enum class ReluPreMode : uint8_t { NoRelu = 0, NormalRelu = 1 };
enum class SyncAllMode : uint8_t { Hard = 0, Soft = 1 };
enum class SyncCoreType : uint8_t { AIVOnly = 0, AICOnly = 1, Mix = 2 };
enum class AccPhase : uint8_t { Unspecified = 0x0, Unknown = Unspecified, Partial = 0x2, Final = 0x3 };

// TRANDOM's key and counter operands (Philox-4x32 state).
constexpr int PTO_RANDOM_KEY_SIZE = 2;
constexpr int PTO_RANDOM_COUNTER_SIZE = 4;
using TRandomKey = uint32_t[PTO_RANDOM_KEY_SIZE];
using TRandomCounter = uint32_t[PTO_RANDOM_COUNTER_SIZE];

// TMRGSORT's report of how many elements of each source list were consumed.
struct MrgSortExecutedNumList {
    uint16_t mrgSortList0;
    uint16_t mrgSortList1;
    uint16_t mrgSortList2;
    uint16_t mrgSortList3;
};

// Returned by every instruction, as in pto-isa (RecordEvent); carries nothing on the CPU.
struct RecordEvent {};

// Trailing `WaitEvents&...` of every instruction must be of this type (or derived from it).
// Generated code passes none; the constraint keeps overloads unambiguous.
struct Event {};
template <typename... E>
inline constexpr bool all_events_v = (std::is_base_of_v<Event, std::remove_cv_t<E>> && ...);

template <typename T>
inline constexpr bool is_fp8_v = std::is_same_v<T, float8_e4m3_t> || std::is_same_v<T, float8_e8m0_t>;
template <typename T>
inline constexpr bool is_float_like_v = std::is_floating_point_v<T> || std::is_same_v<T, half> ||
                                        std::is_same_v<T, bfloat16_t> || is_fp8_v<T>;

namespace cvt {

template <typename T>
inline float to_f32(T v) {
    return static_cast<float>(v);
}

// Plain element conversion (RNE for float narrowing; trunc+saturate float -> int).
template <typename To, typename From>
inline To to(From v) {
    if constexpr (std::is_same_v<To, From>) {
        return v;
    } else if constexpr (is_float_like_v<To>) {
        if constexpr (is_float_like_v<From>) {
            if constexpr (std::is_same_v<From, double>) return To(static_cast<float>(v));
            return To(static_cast<float>(v));
        } else {
            return To(static_cast<float>(v));
        }
    } else if constexpr (std::is_same_v<To, bool>) {
        if constexpr (is_float_like_v<From>) return static_cast<float>(v) != 0.0f;
        return v != 0;
    } else {  // integral target
        if constexpr (is_float_like_v<From>) {
            const double d = static_cast<double>(static_cast<float>(v));
            if (std::isnan(d)) return To(0);
            const double t = std::trunc(d);
            if (t <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
            if (t >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
            return static_cast<To>(t);
        } else {
            return static_cast<To>(v);
        }
    }
}

// Round a finite/inf/NaN double into a binary format with `ebits` exponent and `mbits` mantissa
// bits using `mode`; returns the format's bit pattern (sign in bit ebits+mbits).
inline uint32_t round_to_format(double v, int ebits, int mbits, RoundMode mode, bool saturate) {
    const uint32_t sign_bit = 1u << (ebits + mbits);
    const uint32_t exp_all = (1u << ebits) - 1u;
    const uint32_t inf_bits = exp_all << mbits;
    const uint32_t max_finite = inf_bits - 1u;
    const bool neg = std::signbit(v);
    const uint32_t sign = neg ? sign_bit : 0u;
    if (std::isnan(v)) return sign | inf_bits | (1u << (mbits - 1));
    if (std::isinf(v)) return sign | (saturate ? max_finite : inf_bits);
    const double a = std::fabs(v);
    if (a == 0.0) return sign;
    const int bias = (1 << (ebits - 1)) - 1;
    const int emin = 1 - bias;
    int ex = 0;
    (void)std::frexp(a, &ex);
    int e = ex - 1;  // a in [2^e, 2^(e+1))
    if (e < emin) e = emin;
    const double scaled = std::ldexp(a, mbits - e);  // exact: power-of-two scaling
    const double ip = std::floor(scaled);
    const double frac = scaled - ip;
    uint64_t m = static_cast<uint64_t>(ip);
    bool up = false;  // increase magnitude?
    if (frac > 0.0) {
        switch (mode) {
            case RoundMode::CAST_NONE:
            case RoundMode::CAST_RINT: up = frac > 0.5 || (frac == 0.5 && (m & 1u)); break;
            case RoundMode::CAST_ROUND: up = frac >= 0.5; break;
            case RoundMode::CAST_FLOOR: up = neg; break;
            case RoundMode::CAST_CEIL: up = !neg; break;
            case RoundMode::CAST_TRUNC: up = false; break;
            case RoundMode::CAST_ODD: up = (m & 1u) == 0; break;
        }
    }
    if (up) ++m;
    const uint64_t hidden = uint64_t{1} << mbits;
    if (m >= (hidden << 1)) {  // carried into the next binade
        m >>= 1;
        ++e;
    }
    uint32_t exp_field;
    if (m < hidden) {
        exp_field = 0;  // subnormal (only when e == emin)
    } else {
        exp_field = static_cast<uint32_t>(e + bias);
        m -= hidden;
    }
    if (exp_field >= exp_all) {
        // Overflow: directed modes that round toward zero give max finite, as IEEE does.
        const bool to_max = saturate || mode == RoundMode::CAST_TRUNC || (mode == RoundMode::CAST_FLOOR && !neg) ||
                            (mode == RoundMode::CAST_CEIL && neg);
        return sign | (to_max ? max_finite : inf_bits);
    }
    return sign | (exp_field << mbits) | static_cast<uint32_t>(m);
}

inline double round_integral(double v, RoundMode mode) {
    switch (mode) {
        case RoundMode::CAST_NONE:
        case RoundMode::CAST_RINT: return std::nearbyint(v);  // default FP env: ties to even
        case RoundMode::CAST_ROUND: return std::round(v);
        case RoundMode::CAST_FLOOR: return std::floor(v);
        case RoundMode::CAST_CEIL: return std::ceil(v);
        case RoundMode::CAST_TRUNC: return std::trunc(v);
        case RoundMode::CAST_ODD: {
            const double f = std::floor(v);
            if (f == v) return v;
            return (static_cast<int64_t>(f) & 1) ? f : f + 1.0;
        }
    }
    return std::nearbyint(v);
}

// A double rounded once (to nearest even) into a float-like element type.
template <typename T>
inline T from_double(double d) {
    if constexpr (std::is_same_v<T, half>) return half::from_bits(static_cast<uint16_t>(round_to_format(d, 5, 10, RoundMode::CAST_RINT, false)));
    else if constexpr (std::is_same_v<T, bfloat16_t>) return bfloat16_t::from_bits(static_cast<uint16_t>(round_to_format(d, 8, 7, RoundMode::CAST_RINT, false)));
    else return static_cast<T>(d);
}

// TCVT element conversion.
template <typename To, typename From>
inline To round_to(From v, RoundMode mode, SaturationMode sat) {
    const bool saturate = sat == SaturationMode::ON;
    if constexpr (is_float_like_v<To> && is_float_like_v<From>) {
        const double d = static_cast<double>(static_cast<float>(v));
        if constexpr (std::is_same_v<To, half>) {
            return half::from_bits(static_cast<uint16_t>(round_to_format(d, 5, 10, mode, saturate)));
        } else if constexpr (std::is_same_v<To, bfloat16_t>) {
            return bfloat16_t::from_bits(static_cast<uint16_t>(round_to_format(d, 8, 7, mode, saturate)));
        } else if constexpr (is_fp8_v<To>) {
            return To(d);  // CPU: the FP8 types' own conversion (pto_float.hpp), whatever the mode
        } else if constexpr (std::is_same_v<From, float>) {
            return static_cast<To>(round_integral(d, mode));  // float -> float: TCVT rounds to an integral value
        } else {
            return static_cast<To>(d);  // widening to float is exact
        }
    } else if constexpr (is_float_like_v<To>) {  // int -> float
        const double d = static_cast<double>(v);
        if constexpr (std::is_same_v<To, half>) {
            return half::from_bits(static_cast<uint16_t>(round_to_format(d, 5, 10, mode, saturate)));
        } else if constexpr (std::is_same_v<To, bfloat16_t>) {
            return bfloat16_t::from_bits(static_cast<uint16_t>(round_to_format(d, 8, 7, mode, saturate)));
        } else if constexpr (std::is_same_v<To, float>) {
            return fp::bits_float(round_to_format(d, 8, 23, mode, saturate));
        } else {
            return static_cast<To>(d);
        }
    } else if constexpr (is_float_like_v<From>) {  // float -> int: round, then saturate or keep the low bits
        const double d = static_cast<double>(static_cast<float>(v));
        if (std::isnan(d)) return To(0);
        const double r = round_integral(d, mode);
        if (saturate || sizeof(To) == 8) {
            if (r <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
            if (r >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
            return static_cast<To>(r);
        }
        // OFF: the value as a 64-bit integer (itself saturated), truncated to To's width.
        const int64_t w = r <= -0x1p63 ? std::numeric_limits<int64_t>::lowest()
                          : r >= 0x1p63 ? std::numeric_limits<int64_t>::max()
                                        : static_cast<int64_t>(r);
        return static_cast<To>(w);
    } else {  // int -> int
        if (saturate) {
            using Wide = std::conditional_t<std::is_signed_v<From>, int64_t, uint64_t>;
            const Wide w = static_cast<Wide>(v);
            if constexpr (std::is_signed_v<From> && !std::is_signed_v<To>) {
                if (w < 0) return To(0);
            }
            if (static_cast<long double>(w) > static_cast<long double>(std::numeric_limits<To>::max()))
                return std::numeric_limits<To>::max();
            if (static_cast<long double>(w) < static_cast<long double>(std::numeric_limits<To>::lowest()))
                return std::numeric_limits<To>::lowest();
        }
        return static_cast<To>(v);
    }
}

}  // namespace cvt

// Value a PadValue stands for in type T (Null/Zero -> 0, Max -> +inf / max, Min -> -inf / lowest;
// a custom value CustomBase|bits is the low 32 / 16 / 8 bits reinterpreted as T, by T's width).
template <typename T>
inline T pad_value(PadValue p) {
    if (static_cast<uint64_t>(p) >= static_cast<uint64_t>(PadValue::CustomBase)) {
        const uint32_t bits = static_cast<uint32_t>(static_cast<uint64_t>(p) & 0xFFFFFFFFULL);
        T v{};
        if constexpr (sizeof(T) == 4) std::memcpy(&v, &bits, 4);
        else if constexpr (sizeof(T) == 2) {
            const uint16_t b = static_cast<uint16_t>(bits);
            std::memcpy(&v, &b, 2);
        } else if constexpr (sizeof(T) == 1) {
            const uint8_t b = static_cast<uint8_t>(bits);
            std::memcpy(&v, &b, 1);
        } else v = static_cast<T>(bits);
        return v;
    }
    if (p == PadValue::Max) {
        if constexpr (is_float_like_v<T>) return T(std::numeric_limits<float>::infinity());
        else return std::numeric_limits<T>::max();
    }
    if (p == PadValue::Min) {
        if constexpr (is_float_like_v<T>) return T(-std::numeric_limits<float>::infinity());
        else return std::numeric_limits<T>::lowest();
    }
    return T(0);
}

}  // namespace pto
