// --astype: converting elements from one type to another, as numpy's astype does (unsafe
// casting), between bool, integers, floats and complex of either byte order, and bfloat16 and
// the float8 types (ml_dtypes' rules; see lib/src/narrow_floats.hpp).
//
// Conversion happens as the copy goes: the write stage converts each chunk of the result on
// its way to the output (write_view_converted, write.hpp), so the unconverted result is never held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/view.hpp"

namespace tslice {

// The type --astype names: numpy's names and codes ("float32", "f4", "<f4", ">i2", "u1",
// "bool", "c8", "float16", "double", ...), or "bfloat16"/"bf16", "float8_e4m3fn"/"f8_e4m3",
// "float8_e5m2"/"f8_e5m2", "float8_e8m0fnu"/"f8_e8m0" (and the safetensors names BF16,
// F8_E4M3, F8_E5M2, F8_E8M0). Error(Usage) listing the names allowed otherwise, and for
// strings, structured, datetime and object types.
ElementType parse_astype(std::string_view name);

// The names parse_astype takes, for messages and --help.
std::string astype_names();

// Whether elements of `type` can be converted (from or to): numbers, bool, bfloat16, float8.
bool convertible(const ElementType& type);

// One conversion, chosen once: `run` converts `count` densely packed elements of `from` at
// `src` into `count` elements of `to` at `dst` (the two may not overlap).
//
// Float to integer: the value truncated toward zero, as numpy does; NaN and values outside
// the int64/uint64 range give the bits of INT64_MIN (what x86's conversion gives numpy), and
// integers narrower than 64 bits keep the low bits of the 64-bit value. Defined for every
// input, never undefined behaviour. Complex to real keeps the real part (numpy warns).
class Conversion {
public:
    // Error(Usage) naming the types when either is not convertible().
    Conversion(const ElementType& from, const ElementType& to);

    std::size_t from_size() const { return from_size_; }
    std::size_t to_size() const { return to_size_; }
    void run(const std::byte* src, std::byte* dst, std::int64_t count) const;

    using Kernel = void (*)(const std::byte* src, std::byte* dst, std::size_t count, const void* context);

private:
    std::size_t from_size_ = 0, to_size_ = 0;
    std::size_t swap_from_ = 0, swap_to_ = 0;  // the bytes each swap turns; 0: none
    Kernel kernel_ = nullptr;
    // A narrow source's 256 codes, converted: the kernel is then a lookup.
    std::vector<std::byte> table_;
    // Or a table kept for the whole run (float32 to float8, built at its first use).
    const void* shared_table_ = nullptr;
};

// The elements `view` selects from `data`, converted, in C order: for printing and for the
// text formats, which need the values at hand.
std::vector<std::byte> convert_view(const std::byte* data, const View& view, const Conversion& conversion,
                                    unsigned threads = 1);

}  // namespace tslice
