// ggml's types and the dequantization of its 32-element block types, after ggml-common.h's
// block layouts and ggml-quants.c's dequantize_row_* reference functions (every number
// little-endian, scales as IEEE half floats):
//
//   Q8_0  34 bytes: d (f16), qs[32] (int8)                    y[j] = qs[j] * d
//   Q4_0  18 bytes: d, qs[16] (two 4-bit values a byte)       y[j] = ((qs[j] & 15) - 8) * d,
//                                                             y[j + 16] = ((qs[j] >> 4) - 8) * d
//   Q4_1  20 bytes: d, m, qs[16]                              y[j] = (qs[j] & 15) * d + m, ...
//   Q5_0  22 bytes: d, qh (32 bits: the fifth bit of each),   y[j] = (((qs[j] & 15) | bit j of qh << 4) - 16) * d,
//                   qs[16]                                    y[j + 16]: qs[j] >> 4 and bit j + 16
//   Q5_1  24 bytes: d, m, qh, qs[16]                          as Q5_0 without the -16, times d plus m
//
// The arithmetic is ggml's: the integer converted to float, multiplied by d in float, m added
// in float (two roundings: the build targets no FMA, so the compiler cannot fuse them).
#include <cstring>

#include "base/bytes.hpp"
#include "tslice/error.hpp"
#include "tslice/gguf.hpp"

namespace tslice {

namespace {

constexpr GgmlType kTypes[] = {
    {0, "F32", 1, 4, false},      {1, "F16", 1, 2, false},      {2, "Q4_0", 32, 18, true},
    {3, "Q4_1", 32, 20, true},    {6, "Q5_0", 32, 22, true},    {7, "Q5_1", 32, 24, true},
    {8, "Q8_0", 32, 34, true},    {9, "Q8_1", 32, 36, true},    {10, "Q2_K", 256, 84, true},
    {11, "Q3_K", 256, 110, true}, {12, "Q4_K", 256, 144, true}, {13, "Q5_K", 256, 176, true},
    {14, "Q6_K", 256, 210, true}, {15, "Q8_K", 256, 292, true}, {16, "IQ2_XXS", 256, 66, true},
    {17, "IQ2_XS", 256, 74, true}, {18, "IQ3_XXS", 256, 98, true}, {19, "IQ1_S", 256, 50, true},
    {20, "IQ4_NL", 32, 18, true}, {21, "IQ3_S", 256, 110, true}, {22, "IQ2_S", 256, 82, true},
    {23, "IQ4_XS", 256, 136, true}, {24, "I8", 1, 1, false},    {25, "I16", 1, 2, false},
    {26, "I32", 1, 4, false},     {27, "I64", 1, 8, false},     {28, "F64", 1, 8, false},
    {29, "IQ1_M", 256, 56, true}, {30, "BF16", 1, 2, false},    {34, "TQ1_0", 256, 54, true},
    {35, "TQ2_0", 256, 66, true}, {39, "MXFP4", 32, 17, true},
};

// IEEE half to float, exactly (every half is a float).
float half_to_float(const std::byte* p) {
    const std::uint32_t h = load_le<std::uint16_t>(p);
    const std::uint32_t sign = (h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF, bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        exponent = 113;
        while (!(mantissa & 0x400)) mantissa <<= 1, --exponent;
        bits = sign | (exponent << 23) | ((mantissa & 0x3FF) << 13);
    }
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}

std::uint8_t byte(const std::byte* p, std::size_t i) { return std::to_integer<std::uint8_t>(p[i]); }

std::uint32_t u32(const std::byte* p) { return load_le<std::uint32_t>(p); }

void q8_0(const std::byte* b, float* y) {
    const float d = half_to_float(b);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(byte(b, 2 + j))) * d;
}

void q4_0(const std::byte* b, float* y) {
    const float d = half_to_float(b);
    for (int j = 0; j < 16; ++j) {
        const int q = byte(b, 2 + j);
        y[j] = static_cast<float>((q & 0x0F) - 8) * d;
        y[j + 16] = static_cast<float>((q >> 4) - 8) * d;
    }
}

void q4_1(const std::byte* b, float* y) {
    const float d = half_to_float(b), m = half_to_float(b + 2);
    for (int j = 0; j < 16; ++j) {
        const int q = byte(b, 4 + j);
        y[j] = static_cast<float>(q & 0x0F) * d + m;
        y[j + 16] = static_cast<float>(q >> 4) * d + m;
    }
}

void q5_0(const std::byte* b, float* y) {
    const float d = half_to_float(b);
    const std::uint32_t qh = u32(b + 2);
    for (int j = 0; j < 16; ++j) {
        const int q = byte(b, 6 + j);
        const int high0 = static_cast<int>(((qh >> j) << 4) & 0x10);
        const int high1 = static_cast<int>((qh >> (j + 12)) & 0x10);
        y[j] = static_cast<float>(((q & 0x0F) | high0) - 16) * d;
        y[j + 16] = static_cast<float>(((q >> 4) | high1) - 16) * d;
    }
}

void q5_1(const std::byte* b, float* y) {
    const float d = half_to_float(b), m = half_to_float(b + 2);
    const std::uint32_t qh = u32(b + 4);
    for (int j = 0; j < 16; ++j) {
        const int q = byte(b, 8 + j);
        const int high0 = static_cast<int>(((qh >> j) << 4) & 0x10);
        const int high1 = static_cast<int>((qh >> (j + 12)) & 0x10);
        y[j] = static_cast<float>((q & 0x0F) | high0) * d + m;
        y[j + 16] = static_cast<float>((q >> 4) | high1) * d + m;
    }
}

using BlockDecoder = void (*)(const std::byte*, float*);

BlockDecoder decoder(std::uint32_t id) {
    switch (id) {
        case 2: return q4_0;
        case 3: return q4_1;
        case 6: return q5_0;
        case 7: return q5_1;
        case 8: return q8_0;
        default: return nullptr;
    }
}

}  // namespace

std::optional<GgmlType> ggml_type(std::uint32_t id) {
    for (const GgmlType& type : kTypes)
        if (type.id == id) return type;
    return std::nullopt;
}

std::optional<GgmlType> ggml_type_named(std::string_view name) {
    for (const GgmlType& type : kTypes)
        if (name == type.name) return type;
    return std::nullopt;
}

bool ggml_can_dequantize(const GgmlType& type) { return decoder(type.id) != nullptr; }

std::string ggml_dequantizable_names() { return "Q8_0, Q4_0, Q4_1, Q5_0, Q5_1"; }

void ggml_dequantize(const GgmlType& type, const std::byte* blocks, std::size_t block_count, float* out) {
    const BlockDecoder decode = decoder(type.id);
    if (!decode)
        fail_usage(std::string("tslice cannot dequantize ggml type ") + type.name + " (it decodes " +
                   ggml_dequantizable_names() + ")");
    for (std::size_t i = 0; i < block_count; ++i) decode(blocks + i * type.block_bytes, out + i * type.block_elements);
}

}  // namespace tslice
