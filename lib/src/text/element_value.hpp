// One element of a fixed-size numpy dtype, read as a value: integers (and datetimes) exactly
// as 128-bit integers (source/element_integer.hpp), floats exactly as long doubles, strings as
// code points: the printer's inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "source/element_integer.hpp"
#include "tslice/npy.hpp"

namespace tslice {

// Error(Usage) for a dtype the printer cannot show, naming -o as the way out.
[[noreturn]] void unprintable(const DType& dtype);

std::string integer_text(Int128 value);

// The float formats numpy has; every value of each is exactly a long double (x87 80-bit).
enum class FloatKind { Half, Single, Double, Extended };

struct Real {
    long double value = 0;
    FloatKind kind = FloatKind::Double;
};

// The nearest binary16 value (ties to even), as numpy's float->half cast rounds.
float round_to_half(float value);
// The format of a float (or of a complex part) of `size` bytes; unprintable() otherwise.
FloatKind float_kind(const DType& dtype, std::size_t size);
Real load_real(const std::byte* p, FloatKind kind, bool swap, std::size_t size);

// A 'U' element's code points, trailing NULs dropped as numpy's scalars drop them.
std::u32string load_code_points(const std::byte* p, const DType& dtype);

// A float type numpy lacks, by its safetensors name ("BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0"), as the
// float32 it equals exactly (E4M3 is the OCP "FN" type: no infinities, all ones is NaN).
float narrow_float_value(const std::byte* p, const std::string& name);

}  // namespace tslice
