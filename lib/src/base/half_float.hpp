// IEEE binary16 (numpy's float16) where the compiler has no such type. GCC 12 and clang 15
// have _Float16 on x86-64 and convert to it in hardware or exactly in software; clang 14 (the
// fuzz build's compiler on Debian 12) does not, so there Half is a struct that converts the
// same way: from float and double by rounding their bits once, to nearest even, as numpy's
// npy_double_to_half does (a float widens to double exactly, so one rounding either way).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tslice {

// binary16 bits as the float they equal, exactly (every half is a float).
inline float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// `value` as binary16 bits: rounded to nearest even; past the largest finite half, infinity;
// NaN stays NaN with its sign and its payload's top bits (a quiet bit where they are none).
inline std::uint16_t double_to_half_bits(double value) {
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const auto sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000);
    const std::uint64_t magnitude = bits & 0x7FFF'FFFF'FFFF'FFFFULL;
    if (magnitude >= 0x7FF0'0000'0000'0000ULL) {  // infinity or NaN
        if (magnitude == 0x7FF0'0000'0000'0000ULL) return sign | 0x7C00;
        return static_cast<std::uint16_t>(sign | 0x7E00 | ((magnitude >> 42) & 0x3FF));
    }
    const int exponent = static_cast<int>(magnitude >> 52) - 1023;
    if (exponent >= 16) return sign | 0x7C00;
    if (exponent < -25) return sign;  // below half the smallest subnormal: zero
    const std::uint64_t mantissa = (magnitude & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
    // Normal halves keep 10 of the 52 bits; subnormal ones fewer, down to none at 2**-25.
    const int shift = exponent >= -14 ? 42 : 42 + (-14 - exponent);
    std::uint64_t kept = mantissa >> shift;
    const std::uint64_t rest = mantissa & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t halfway = std::uint64_t{1} << (shift - 1);
    if (rest > halfway || (rest == halfway && (kept & 1))) ++kept;
    // `kept` holds the implicit bit (0x400) for a normal half: it carries into the exponent
    // when rounding overflows the mantissa, and up to infinity past 65504.
    const std::uint64_t result = exponent >= -14 ? (static_cast<std::uint64_t>(exponent + 14) << 10) + kept : kept;
    return static_cast<std::uint16_t>(sign | (result >= 0x7C00 ? 0x7C00 : result));
}

#if defined(__FLT16_MAX__)
using Half = _Float16;
#else
struct Half {
    std::uint16_t bits = 0;
    Half() = default;
    explicit Half(double value) : bits(double_to_half_bits(value)) {}
    explicit Half(float value) : bits(double_to_half_bits(value)) {}
    // (Through double: exact for integers below 2**53, the rest rounded twice; only this
    // fallback does so.)
    explicit Half(long double value) : bits(double_to_half_bits(static_cast<double>(value))) {}
    template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
    explicit Half(I value) : bits(double_to_half_bits(static_cast<double>(value))) {}
    explicit operator float() const { return half_to_float(bits); }
};
static_assert(sizeof(Half) == 2);
#endif

}  // namespace tslice
