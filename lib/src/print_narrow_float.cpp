// Printing the float types numpy lacks (bfloat16, float8 E4M3 and E5M2) as their values: each
// converts exactly to float32, so the array is converted (in element order, through a spool,
// so memory stays bounded whatever its size) and printed as the float32 array it equals.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/print.hpp"
#include "tslice/source.hpp"

namespace tslice {

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

std::string format_narrow_float_array(const std::byte* data, const View& view, const ElementType& type) {
    const std::string& name = type.safetensors_only;
    if (name != "BF16" && name != "F8_E4M3" && name != "F8_E5M2")
        throw Error(ErrorKind::Usage, "cannot print elements of type " + type.name());
    const std::int64_t total = view.element_count();
    const std::size_t itemsize = type.itemsize();
    constexpr std::int64_t kChunk = 1 << 18;
    std::vector<std::byte> raw(static_cast<std::size_t>(kChunk) * itemsize);
    std::vector<float> values(kChunk);
    Spool spool("the " + name + " values being printed");
    for (std::int64_t first = 0; first < total; first += kChunk) {
        const std::int64_t count = std::min(kChunk, total - first);
        copy_view(data, view, raw.data(), first, count);
        for (std::int64_t i = 0; i < count; ++i)
            values[i] = name == "BF16" ? bfloat16_value(raw.data() + 2 * i)
                                       : float8_value(std::to_integer<std::uint8_t>(raw[i]), name == "F8_E4M3");
        spool.append(reinterpret_cast<const std::byte*>(values.data()), static_cast<std::size_t>(count) * 4);
    }
    const Mapping mapping = spool.map();
    return format_array(mapping.data(), View::contiguous(view.shape, 4, false), parse_dtype_descr("'<f4'"));
}

}  // namespace tslice
