// bfloat16 and float8 codecs (narrow_floats.hpp). The encoders work on the value, not on bit
// tricks of one source format, so that every source (float16, float32, float64, integers)
// rounds once: the value is split into a power of two and a significand, and the significand
// is rounded at the format's last bit, with subnormals where the format has them.
#include "values/narrow_floats.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace tslice::narrow {

std::uint16_t bf16_from_float(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x0040);
    // Adding 0x7fff plus the kept part's lowest bit rounds to nearest, ties to even; a carry
    // out of the significand steps the exponent, up to infinity.
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>(bits >> 16);
}

namespace {

struct Layout {
    int mantissa_bits;
    int bias;
    bool has_inf;
};

Layout layout(F8 format) {
    switch (format) {
        case F8::E4M3: return {3, 7, false};
        case F8::E5M2: return {2, 15, true};
        case F8::E8M0: return {0, 127, false};
    }
    return {};
}

float decode(F8 format, std::uint8_t bits) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (format == F8::E8M0) return bits == 0xFF ? nan : std::ldexp(1.0f, bits - 127);
    const Layout f = layout(format);
    const int exponent_bits = 7 - f.mantissa_bits;
    const int top = (1 << exponent_bits) - 1;
    const int exponent = (bits >> f.mantissa_bits) & top;
    const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
    const float sign = (bits & 0x80) ? -1.0f : 1.0f;
    // A NaN code decodes to the quiet NaN with its sign (as every kernel writes it).
    if (f.has_inf && exponent == top)
        return mantissa ? std::copysign(nan, sign) : sign * std::numeric_limits<float>::infinity();
    if (!f.has_inf && exponent == top && mantissa == (1 << f.mantissa_bits) - 1) return std::copysign(nan, sign);
    if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), 1 - f.bias - f.mantissa_bits);
    return sign * std::ldexp(static_cast<float>(mantissa + (1 << f.mantissa_bits)), exponent - f.bias - f.mantissa_bits);
}

std::uint8_t encode_e8m0(double value) {
    if (std::isnan(value) || value < 0 || std::isinf(value)) return 0xFF;
    if (value == 0) return 0;
    int exponent = 0;
    const double significand = std::frexp(value, &exponent);  // value = significand * 2^exponent, [0.5, 1)
    // value = (2 * significand) * 2^(exponent - 1), 2 * significand in [1, 2).
    int code = exponent - 1 + 127;
    const double m = 2 * significand;
    if (m > 1.5 || (m == 1.5 && (code & 1))) ++code;
    if (code < 0) return 0;
    if (code >= 255) return 0xFF;
    return static_cast<std::uint8_t>(code);
}

std::uint8_t encode(F8 format, double value) {
    if (format == F8::E8M0) return encode_e8m0(value);
    const Layout f = layout(format);
    const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
    // The quiet NaN: e5m2 s 11111 10, e4m3fn s 1111 111 (its only NaN).
    const std::uint8_t nan_code = f.has_inf ? 0x7E : 0x7F;
    if (std::isnan(value)) return static_cast<std::uint8_t>(sign | nan_code);
    const int exponent_bits = 7 - f.mantissa_bits;
    const int top = (1 << exponent_bits) - 1;
    // The largest finite code: e4m3fn's all-ones exponent holds values but for its NaN.
    const int max_code = f.has_inf ? (top << f.mantissa_bits) - 1 : (top << f.mantissa_bits) | ((1 << f.mantissa_bits) - 2);
    const std::uint8_t overflow = f.has_inf ? static_cast<std::uint8_t>(top << f.mantissa_bits) : nan_code;
    const double magnitude = std::fabs(value);
    if (std::isinf(magnitude)) return static_cast<std::uint8_t>(sign | overflow);
    if (magnitude == 0) return sign;
    // In units of the smallest subnormal, magnitude / 2^(1 - bias - mantissa_bits), the codes
    // below the first normal are the integers; above, each binade's step doubles.
    const int min_exponent = 1 - f.bias;  // of the normals
    int exponent = 0;
    std::frexp(magnitude, &exponent);
    const int binade = std::max(exponent - 1, min_exponent);  // magnitude in [2^binade, 2^(binade+1))
    const double steps = std::ldexp(magnitude, f.mantissa_bits - binade);  // in units of the binade's step
    double whole = std::nearbyint(steps);  // the current rounding mode: to nearest, ties to even
    // Code: the binade's first code plus the steps past 2^binade (normals), or the steps (subnormals).
    long long code;
    if (binade == min_exponent && whole < (1 << f.mantissa_bits)) {
        code = static_cast<long long>(whole);  // a subnormal (or zero)
    } else {
        code = (static_cast<long long>(binade - min_exponent + 1) << f.mantissa_bits) +
               static_cast<long long>(whole) - (1 << f.mantissa_bits);
    }
    if (code > max_code) return static_cast<std::uint8_t>(sign | overflow);
    return static_cast<std::uint8_t>(sign | code);
}

// Rounding a float's bits: the source has SrcMantissa fraction bits and bias SrcBias, held
// in U. A value the target holds as a normal number rounds by adding half a target step (less
// one, plus the kept part's lowest bit: ties to even) to its bits and dropping the extra
// fraction bits; a carry steps the exponent, up to overflow. Below the target's normals the
// value is rounded in units of its subnormal step instead.
template <class U, class F, int SrcMantissa, int SrcBias>
std::uint8_t encode_bits(F8 format, F value) {
    U bits;
    std::memcpy(&bits, &value, sizeof bits);
    constexpr U kSignBit = U(1) << (sizeof(U) * 8 - 1);
    const U magnitude = bits & ~kSignBit;
    constexpr U kInf = ((U(1) << (sizeof(U) * 8 - 1 - SrcMantissa)) - 1) << SrcMantissa;
    const bool negative = (bits & kSignBit) != 0;
    if (format == F8::E8M0) {
        if (magnitude > kInf || (negative && magnitude != 0) || magnitude == kInf) return 0xFF;
        const auto exponent = static_cast<int>(magnitude >> SrcMantissa);
        const U fraction = magnitude & ((U(1) << SrcMantissa) - 1);
        constexpr U kHalf = U(1) << (SrcMantissa - 1);
        int code = exponent - SrcBias + 127;
        // A float32 subnormal may still round up to 2^-126; the value decides (exactly, in double).
        if (exponent == 0) return encode_e8m0(static_cast<double>(value));
        if (fraction > kHalf || (fraction == kHalf && (code & 1))) ++code;
        if (code <= 0) return 0;
        return code >= 255 ? 0xFF : static_cast<std::uint8_t>(code);
    }
    const Layout f = layout(format);
    const int top = (1 << (7 - f.mantissa_bits)) - 1;
    const std::uint8_t sign = negative ? 0x80 : 0;
    const std::uint8_t nan_code = f.has_inf ? 0x7E : 0x7F;
    if (magnitude > kInf) return static_cast<std::uint8_t>(sign | nan_code);
    const U max_code = f.has_inf ? U((top << f.mantissa_bits) - 1) : U((top << f.mantissa_bits) | ((1 << f.mantissa_bits) - 2));
    const std::uint8_t overflow = f.has_inf ? static_cast<std::uint8_t>(top << f.mantissa_bits) : nan_code;
    if (magnitude == kInf) return static_cast<std::uint8_t>(sign | overflow);
    const int exponent = static_cast<int>(magnitude >> SrcMantissa) - SrcBias;
    if (exponent >= 1 - f.bias) {
        const int shift = SrcMantissa - f.mantissa_bits;
        const U rounded = magnitude + ((U(1) << (shift - 1)) - 1) + ((magnitude >> shift) & 1);
        const U code = (rounded >> shift) - (U(SrcBias - f.bias) << f.mantissa_bits);
        if (code > max_code) return static_cast<std::uint8_t>(sign | overflow);
        return static_cast<std::uint8_t>(sign | code);
    }
    // A target subnormal (or zero): the value in units of the least subnormal, rounded to even.
    const double units = std::ldexp(std::fabs(static_cast<double>(value)), f.mantissa_bits + f.bias - 1);
    return static_cast<std::uint8_t>(sign | static_cast<std::uint8_t>(std::nearbyint(units)));
}

using Table = std::array<float, 256>;

Table make_table(F8 format) {
    Table table{};
    for (int code = 0; code < 256; ++code) table[static_cast<std::size_t>(code)] = decode(format, static_cast<std::uint8_t>(code));
    return table;
}

}  // namespace

const float* f8_table(F8 format) {
    static const Table e4m3 = make_table(F8::E4M3), e5m2 = make_table(F8::E5M2), e8m0 = make_table(F8::E8M0);
    switch (format) {
        case F8::E4M3: return e4m3.data();
        case F8::E5M2: return e5m2.data();
        case F8::E8M0: return e8m0.data();
    }
    return e4m3.data();
}

float f8_to_float(F8 format, std::uint8_t bits) { return f8_table(format)[bits]; }

std::uint8_t f8_from_double(F8 format, double value) { return encode(format, value); }

std::uint8_t f8_from_float_bits(F8 format, float value) {
    return encode_bits<std::uint32_t, float, 23, 127>(format, value);
}

std::uint8_t f8_from_double_bits(F8 format, double value) {
    return encode_bits<std::uint64_t, double, 52, 1023>(format, value);
}

}  // namespace tslice::narrow
