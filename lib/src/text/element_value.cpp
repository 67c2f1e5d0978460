// Reading one element of any fixed-size numpy dtype into a value the printer can work with:
// integers as 128-bit integers, floats as long doubles, strings as code points.
#include "text/element_value.hpp"

#include "base/half_float.hpp"
#include "values/narrow_floats.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "tslice/error.hpp"

namespace tslice {

[[noreturn]] void unprintable(const DType& dtype) {
    const std::string name = dtype.type_string.empty() ? dtype.descr : dtype.type_string;
    fail_usage("printing " + name + " values is not supported; write the result with -o FILE");
}

// Elements are assembled little-end first below, as on the x86-64 hosts tslice targets
// (whose x87 long double is also assumed).
static_assert(std::endian::native == std::endian::little, "the printer assumes a little-endian host");

std::string integer_text(Int128 value) {
    const bool negative = value < 0;
    UInt128 magnitude = negative ? -static_cast<UInt128>(value) : static_cast<UInt128>(value);
    std::string digits;
    do {
        digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
        magnitude /= 10;
    } while (magnitude != 0);
    if (negative) digits.push_back('-');
    std::reverse(digits.begin(), digits.end());
    return digits;
}


static_assert(LDBL_MANT_DIG >= 53, "long double must hold every double exactly");

// The nearest binary16 value (ties to even), as numpy's float->half cast rounds.
float round_to_half(float value) {
    if (std::isnan(value)) return value;
    const float magnitude = std::fabs(value);
    if (magnitude >= 65520.0f) return std::copysign(INFINITY, value);
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
    const int quantum = std::max(exponent - 11, -24);
    const float rounded = std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantum)), quantum);
    return std::copysign(rounded, value);
}

FloatKind float_kind(const DType& dtype, std::size_t size) {
    switch (size) {
        case 2: return FloatKind::Half;
        case 4: return FloatKind::Single;
        case 8: return FloatKind::Double;
        case 12:
        case 16:
            if (LDBL_MANT_DIG == 64 && sizeof(long double) >= 10) return FloatKind::Extended;
            break;
        default: break;
    }
    unprintable(dtype);
}

Real load_real(const std::byte* p, FloatKind kind, bool swap, std::size_t size) {
    unsigned char raw[16] = {};
    load_native(p, size, swap, raw);
    switch (kind) {
        case FloatKind::Half: {
            std::uint16_t bits;
            std::memcpy(&bits, raw, 2);
            return {half_to_float(bits), kind};
        }
        case FloatKind::Single: {
            float value;
            std::memcpy(&value, raw, 4);
            return {value, kind};
        }
        case FloatKind::Double: {
            double value;
            std::memcpy(&value, raw, 8);
            return {value, kind};
        }
        case FloatKind::Extended: {
            long double value = 0;
            std::memcpy(&value, raw, 10);  // the x87 format's 10 bytes; the rest is padding
            return {value, kind};
        }
    }
    return {};
}

std::u32string load_code_points(const std::byte* p, const DType& dtype) {
    const bool swap = swapped(dtype.byte_order);
    std::u32string text(dtype.itemsize / 4, U'\0');
    for (std::size_t i = 0; i < text.size(); ++i) {
        std::uint32_t c;
        load_native(p + 4 * i, 4, swap, &c);
        text[i] = c;
    }
    while (!text.empty() && text.back() == U'\0') text.pop_back();
    for (char32_t c : text)
        if (c > 0x10FFFF)
            fail_input("a string holds the code point " + std::to_string(c) +
                       ", which is beyond Unicode's range (at most 1114111, U+10FFFF); numpy "
                       "cannot read it either");
    return text;
}

namespace {

float bfloat16_value(const std::byte* p) {
    const std::uint32_t bits = (std::to_integer<std::uint32_t>(p[1]) << 24) | (std::to_integer<std::uint32_t>(p[0]) << 16);
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}

// An 8-bit float: 1 sign bit, `exponent_bits`, the rest mantissa. E4M3 is the OCP "FN" type
// (no infinities; all ones is NaN); E5M2 follows IEEE 754 (infinities and NaNs).
float float8_value(std::uint8_t bits, bool e4m3) {
    const int mantissa_bits = e4m3 ? 3 : 2;
    const int bias = e4m3 ? 7 : 15;
    const int top = e4m3 ? 15 : 31;
    const float sign = bits & 0x80 ? -1.0f : 1.0f;
    const int exponent = (bits >> mantissa_bits) & top;
    const int mantissa = bits & ((1 << mantissa_bits) - 1);
    if (e4m3 && exponent == top && mantissa == 7) return std::numeric_limits<float>::quiet_NaN();
    if (!e4m3 && exponent == top)
        return mantissa ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
    const float fraction = static_cast<float>(mantissa) / static_cast<float>(1 << mantissa_bits);
    if (exponent == 0) return sign * std::ldexp(fraction, 1 - bias);
    return sign * std::ldexp(1.0f + fraction, exponent - bias);
}

}  // namespace

float narrow_float_value(const std::byte* p, const std::string& name) {
    if (name == "BF16") return bfloat16_value(p);
    if (name == "F8_E8M0") return narrow::f8_to_float(narrow::F8::E8M0, std::to_integer<std::uint8_t>(p[0]));
    return float8_value(std::to_integer<std::uint8_t>(p[0]), name == "F8_E4M3");
}

}  // namespace tslice
