// The float formats numpy lacks, as bits: bfloat16 and the float8 types of the OCP 8-bit
// formats, decoded exactly and encoded by rounding to nearest, ties to even, with the
// overflow rules of ml_dtypes (the package numpy users convert them with):
//
//   type       layout     bias  largest     overflow  NaN                  infinities
//   bfloat16   s e8 m7    127   3.39e38     inf       e all ones, m != 0   yes
//   e4m3fn     s e4 m3      7   448         NaN       s 1111 111           none
//   e5m2       s e5 m2     15   57344       inf       e all ones, m != 0   yes
//   e8m0fnu    e8         127   2^127       NaN       1111 1111            none; no sign, no zero
//
// e8m0fnu holds powers of two only, 2^(e - 127): negative inputs and NaN give NaN, zero and
// anything below 2^-127 give 2^-127 (code 0), and a value between two powers rounds to the
// nearer in the significand (1.5 * 2^k is the tie, to the even code).
#pragma once

#include <cstdint>

namespace tslice::narrow {

// float32 to bfloat16 as ml_dtypes (and Eigen) round: to nearest even; a NaN stays a NaN with
// its sign (quieted).
std::uint16_t bf16_from_float(float value);
inline float bf16_to_float(std::uint16_t bits) {
    const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
    float out;
    __builtin_memcpy(&out, &wide, sizeof out);
    return out;
}

enum class F8 { E4M3, E5M2, E8M0 };

// One value of each code, exactly (float32 holds every one); a NaN code gives the quiet NaN
// with the code's sign.
float f8_to_float(F8 format, std::uint8_t bits);
// The nearest code to a float64, ties to even, with the format's overflow rule. float64 holds
// every float32, float16 and integer up to 2^53 exactly, so this is the one rounding of those.
std::uint8_t f8_from_double(F8 format, double value);

// The same rounding from a float32 or a float64's bits, without leaving integer arithmetic
// but for the target's subnormals: the kernels from float32 and float64 (and, through
// float32, float16) use these.
std::uint8_t f8_from_float_bits(F8 format, float value);
std::uint8_t f8_from_double_bits(F8 format, double value);

// Tables of the 256 decoded values, for the converters' lookups.
const float* f8_table(F8 format);

}  // namespace tslice::narrow
