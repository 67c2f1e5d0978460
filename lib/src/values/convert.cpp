// The conversion table of --astype: one kernel per (source, target) pair of native-order
// types, made from one template, with plain loops the compiler vectorises (at the Release build's
// -O3 the element loops of int -> float, float -> float and the like become SIMD loops); the float16 pairs use F16C where the CPU has it (convert_f16c.cpp). Byte order is
// dealt with around the kernel: a swapped source is turned into native order a block at a
// time, a swapped target turned after. A narrow source (bfloat16 aside) has 256 codes, so its
// kernel is a lookup in a table of the 256 converted values.
#include "tslice/convert.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "base/half_float.hpp"
#include "values/convert_kernels.hpp"
#include "values/narrow_floats.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"

namespace tslice {
namespace {

// Element types as the kernels see them.
struct Bool8 { std::uint8_t v; };
struct BF16 { std::uint16_t v; };
template <narrow::F8 Format>
struct F8 { std::uint8_t v; };
using LongDouble = long double;

template <class T> inline constexpr bool is_int = std::is_integral_v<T>;
template <class T> struct is_complex_t : std::false_type {};
template <class U> struct is_complex_t<std::complex<U>> : std::true_type {};
template <class T> inline constexpr bool is_complex = is_complex_t<T>::value;
template <class T> struct is_f8_t : std::false_type {};
template <narrow::F8 F> struct is_f8_t<F8<F>> : std::true_type {};
template <class T> inline constexpr bool is_f8 = is_f8_t<T>::value;

template <narrow::F8 F>
std::integral_constant<narrow::F8, F> format_of(F8<F>);

// A real value of any source, in a float wide enough to hold it exactly (integers but the
// 64-bit ones, whose conversion rounds as numpy's does, at most once).
template <class S>
auto real_value(S s) {
    if constexpr (std::is_same_v<S, Bool8>) return static_cast<float>(s.v != 0);
    else if constexpr (std::is_same_v<S, BF16>) return narrow::bf16_to_float(s.v);
    else if constexpr (is_f8<S>) return narrow::f8_to_float(decltype(format_of(s))::value, s.v);
    else if constexpr (is_complex<S>) return s.real();
    else if constexpr (std::is_same_v<S, Half>) return static_cast<float>(s);
    else return s;
}

template <class S>
bool nonzero(S s) {
    if constexpr (std::is_same_v<S, Bool8>) return s.v != 0;
    else if constexpr (is_complex<S>) return s.real() != 0 || s.imag() != 0;
    else return real_value(s) != 0;
}

// Float to integer, defined for every value (convert.hpp): truncation toward zero where the
// value fits 64 bits, else INT64_MIN's bits; narrower integers keep the low bits (C++20
// defines the narrowing of integers as modular).
template <class T, class F>
T float_to_int(F x) {
    constexpr auto indefinite = std::numeric_limits<std::int64_t>::min();
    if (!(x == x)) return static_cast<T>(indefinite);
    const F t = std::trunc(x);
    if (t >= F(-9223372036854775808.0L) && t < F(9223372036854775808.0L))
        return static_cast<T>(static_cast<std::int64_t>(t));
    if (t >= F(0) && t < F(18446744073709551616.0L)) return static_cast<T>(static_cast<std::uint64_t>(t));
    return static_cast<T>(indefinite);
}

template <class T, class S>
T cast(S s) {
    if constexpr (std::is_same_v<T, S>) {
        return s;
    } else if constexpr (std::is_same_v<T, Bool8>) {
        return Bool8{static_cast<std::uint8_t>(nonzero(s))};
    } else if constexpr (is_int<T>) {
        if constexpr (std::is_same_v<S, Bool8>) return static_cast<T>(s.v != 0);
        else if constexpr (is_int<S>) return static_cast<T>(s);
        else return float_to_int<T>(real_value(s));
    } else if constexpr (is_complex<T>) {
        using U = typename T::value_type;
        if constexpr (is_complex<S>) return T(static_cast<U>(s.real()), static_cast<U>(s.imag()));
        else return T(cast<U>(s), U(0));
    } else if constexpr (std::is_same_v<T, BF16>) {
        // As ml_dtypes (Eigen's bfloat16): through float32.
        return BF16{narrow::bf16_from_float(static_cast<float>(real_value(s)))};
    } else if constexpr (is_f8<T>) {
        constexpr narrow::F8 format = decltype(format_of(T{}))::value;
        const auto value = real_value(s);
        // float32 and float64 (and float16, widened exactly) round from their bits; the rest
        // (integers, long double) through the value, once.
        if constexpr (std::is_same_v<decltype(value), const float>) return T{narrow::f8_from_float_bits(format, value)};
        else if constexpr (std::is_same_v<decltype(value), const double>) return T{narrow::f8_from_double_bits(format, value)};
        else return T{narrow::f8_from_double(format, static_cast<double>(value))};
    } else if constexpr (std::is_same_v<S, Bool8>) {
        return static_cast<T>(s.v != 0);
    } else {
        return static_cast<T>(real_value(s));
    }
}

template <class S, class T>
void convert_kernel(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    for (std::size_t i = 0; i < count; ++i) {
        S s;
        std::memcpy(&s, src + i * sizeof(S), sizeof(S));
        const T t = cast<T>(s);
        std::memcpy(dst + i * sizeof(T), &t, sizeof(T));
    }
}

void copy_kernel_any(const std::byte* src, std::byte* dst, std::size_t bytes, const void*) {
    std::memcpy(dst, src, bytes);
}

template <std::size_t Size>
void lookup_kernel(const std::byte* src, std::byte* dst, std::size_t count, const void* context) {
    const auto* table = static_cast<const std::byte*>(context);
    for (std::size_t i = 0; i < count; ++i)
        std::memcpy(dst + i * Size, table + std::to_integer<std::size_t>(src[i]) * Size, Size);
}

// Specialised kernels the template does not vectorise: bfloat16 <-> float32 as integer work.
void bf16_to_f4(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        const std::uint32_t w = static_cast<std::uint32_t>(h) << 16;
        std::memcpy(dst + 4 * i, &w, 4);
    }
}

void f4_to_bf16(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t w;
        std::memcpy(&w, src + 4 * i, 4);
        // NaN (exponent all ones, mantissa not zero): quieted, sign kept; else to nearest even.
        const bool nan = (w & 0x7fffffffu) > 0x7f800000u;
        const std::uint32_t rounded = (w + 0x7fffu + ((w >> 16) & 1u)) >> 16;
        const std::uint16_t h = static_cast<std::uint16_t>(nan ? ((w >> 16) | 0x40u) : rounded);
        std::memcpy(dst + 2 * i, &h, 2);
    }
}

// float32 to a float8: one lookup in a table of the codes of each upper 16 bits of a float32,
// twice: with the lower 16 bits zero, and not. The rounding bit of every float8 format lies in
// the upper half, so the lower half matters only as "any bit set" (a value past a tie).
template <narrow::F8 Format>
const std::uint8_t* f4_to_f8_table() {
    static const std::vector<std::uint8_t> table = [] {
        std::vector<std::uint8_t> codes(65536 * 2);
        for (std::uint32_t upper = 0; upper < 65536; ++upper)
            for (std::uint32_t sticky = 0; sticky < 2; ++sticky) {
                const std::uint32_t bits = upper << 16 | sticky;
                float value;
                std::memcpy(&value, &bits, 4);
                codes[upper * 2 + sticky] = narrow::f8_from_float_bits(Format, value);
            }
        return codes;
    }();
    return table.data();
}

void f4_to_f8_lookup(const std::byte* src, std::byte* dst, std::size_t count, const void* context) {
    const auto* table = static_cast<const std::uint8_t*>(context);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, src + 4 * i, 4);
        dst[i] = static_cast<std::byte>(table[(bits >> 16) * 2 + ((bits & 0xffffu) != 0)]);
    }
}

// A 2-byte source (float16, bfloat16) to a float8: a table of all 65536 codes.
void u16_to_u8_lookup(const std::byte* src, std::byte* dst, std::size_t count, const void* context) {
    const auto* table = static_cast<const std::uint8_t*>(context);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, src + 2 * i, 2);
        dst[i] = static_cast<std::byte>(table[bits]);
    }
}

enum Code { kBool, kI1, kI2, kI4, kI8, kU1, kU2, kU4, kU8, kF2, kF4, kF8, kF16, kC8, kC16, kC32,
            kBF16, kE4M3, kE5M2, kE8M0, kCodes };

using Types = std::tuple<Bool8, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                         std::uint32_t, std::uint64_t, Half, float, double, LongDouble, std::complex<float>,
                         std::complex<double>, std::complex<LongDouble>, BF16, F8<narrow::F8::E4M3>,
                         F8<narrow::F8::E5M2>, F8<narrow::F8::E8M0>>;
static_assert(std::tuple_size_v<Types> == kCodes);

template <std::size_t... From, std::size_t... To>
constexpr auto make_table(std::index_sequence<From...>, std::index_sequence<To...>) {
    std::array<std::array<Conversion::Kernel, kCodes>, kCodes> table{};
    const auto row = [&]<std::size_t F>(std::integral_constant<std::size_t, F>) {
        ((table[F][To] = &convert_kernel<std::tuple_element_t<F, Types>, std::tuple_element_t<To, Types>>), ...);
    };
    (row(std::integral_constant<std::size_t, From>{}), ...);
    return table;
}

const auto kTable = make_table(std::make_index_sequence<kCodes>{}, std::make_index_sequence<kCodes>{});

// The code of a convertible type; -1 otherwise.
int code_of(const ElementType& type) {
    const std::string& narrow_name = type.safetensors_only;
    if (!narrow_name.empty()) {
        if (narrow_name == "BF16") return kBF16;
        if (narrow_name == "F8_E4M3") return kE4M3;
        if (narrow_name == "F8_E5M2") return kE5M2;
        if (narrow_name == "F8_E8M0") return kE8M0;
        return -1;
    }
    const DType& d = type.dtype;
    if (d.structured || d.packed_itemsize) return -1;
    switch (d.kind) {
        case 'b': return d.itemsize == 1 ? kBool : -1;
        case 'i':
            switch (d.itemsize) { case 1: return kI1; case 2: return kI2; case 4: return kI4; case 8: return kI8; }
            return -1;
        case 'u':
            switch (d.itemsize) { case 1: return kU1; case 2: return kU2; case 4: return kU4; case 8: return kU8; }
            return -1;
        case 'f':
            switch (d.itemsize) {
                case 2: return kF2;
                case 4: return kF4;
                case 8: return kF8;
                case 16: return sizeof(long double) == 16 && std::numeric_limits<long double>::digits == 64 ? kF16 : -1;
            }
            return -1;
        case 'c':
            switch (d.itemsize) {
                case 8: return kC8;
                case 16: return kC16;
                case 32: return sizeof(long double) == 16 && std::numeric_limits<long double>::digits == 64 ? kC32 : -1;
            }
            return -1;
        default: return -1;
    }
}

// Whether the type's elements are in the other byte order than this machine's.
bool swapped_order(const ElementType& type) {
    return type.safetensors_only.empty() && type.dtype.byte_order == '>' && type.dtype.itemsize > 1;
}

// The bytes a swap turns around: a complex element is two numbers, each turned on its own.
std::size_t swap_unit(const ElementType& type) {
    if (!swapped_order(type)) return 0;
    return type.dtype.kind == 'c' ? type.itemsize() / 2 : type.itemsize();
}

}  // namespace

bool convertible(const ElementType& type) { return code_of(type) >= 0; }

Conversion::Conversion(const ElementType& from, const ElementType& to) {
    const int f = code_of(from), t = code_of(to);
    if (f < 0 || t < 0) {
        const ElementType& bad = f < 0 ? from : to;
        fail_usage("--astype cannot convert " + std::string(f < 0 ? "from " : "to ") + bad.name() +
                   ": only bool, integers, floats, complex, bfloat16 and float8 convert (" + astype_names() + ")");
    }
    from_size_ = from.itemsize();
    to_size_ = to.itemsize();
    // A complex element is swapped as two numbers.
    swap_from_ = swap_unit(from);
    swap_to_ = swap_unit(to);
    if (f == t) {
        kernel_ = nullptr;  // a copy (and the byte orders turned)
        return;
    }
    kernel_ = kTable[static_cast<std::size_t>(f)][static_cast<std::size_t>(t)];
    if (f == kBF16 && t == kF4) kernel_ = bf16_to_f4;
    if (f == kF4 && t == kBF16) kernel_ = f4_to_bf16;
    if (f == kF4 && t == kF2 && kernels::f16c_f4_to_f2()) kernel_ = kernels::f16c_f4_to_f2();
    if (f == kF2 && t == kF4 && kernels::f16c_f2_to_f4()) kernel_ = kernels::f16c_f2_to_f4();
    // AVX2 where the CPU has it, for the pairs whose baseline loops are slowest.
    const auto avx2 = [&](kernels::AvxPair pair) {
        if (const Kernel fast = kernels::avx2_kernel(pair)) kernel_ = fast;
        return kernel_;
    };
    if (f == kF4 && t == kBF16) avx2(kernels::AvxPair::F4ToBF16);
    if (f == kF8 && t == kF4) avx2(kernels::AvxPair::F8ToF4);
    if (f == kF4 && (t == kE4M3 || t == kE5M2) &&
        kernels::avx2_kernel(t == kE4M3 ? kernels::AvxPair::F4ToE4M3 : kernels::AvxPair::F4ToE5M2)) {
        avx2(t == kE4M3 ? kernels::AvxPair::F4ToE4M3 : kernels::AvxPair::F4ToE5M2);
        return;
    }
    if (f == kF4 && t >= kE4M3) {
        kernel_ = f4_to_f8_lookup;
        shared_table_ = t == kE4M3 ? f4_to_f8_table<narrow::F8::E4M3>()
                        : t == kE5M2 ? f4_to_f8_table<narrow::F8::E5M2>()
                                     : f4_to_f8_table<narrow::F8::E8M0>();
        return;
    }
    if ((f == kF2 || f == kBF16) && t >= kE4M3) {
        // 65536 codes: converted once each (the per-element kernel), then looked up.
        table_.resize(65536);
        for (std::uint32_t code = 0; code < 65536; ++code) {
            const auto bits = static_cast<std::uint16_t>(code);
            kernel_(reinterpret_cast<const std::byte*>(&bits), table_.data() + code, 1, nullptr);
        }
        kernel_ = u16_to_u8_lookup;
        return;
    }
    if (f >= kE4M3 || f == kBool) {
        // 256 codes: convert each once, then look them up.
        table_.resize(256 * to_size_);
        for (int code = 0; code < 256; ++code) {
            const auto byte = static_cast<std::byte>(code);
            kernel_(&byte, table_.data() + static_cast<std::size_t>(code) * to_size_, 1, nullptr);
        }
        switch (to_size_) {
            case 1: kernel_ = lookup_kernel<1>; break;
            case 2:
                kernel_ = lookup_kernel<2>;
                if (t == kF2 && f == kE4M3) avx2(kernels::AvxPair::E4M3ToF2);
                if (t == kF2 && f == kE5M2) avx2(kernels::AvxPair::E5M2ToF2);
                break;
            case 4: kernel_ = lookup_kernel<4>; break;
            case 8: kernel_ = lookup_kernel<8>; break;
            case 16: kernel_ = lookup_kernel<16>; break;
            case 32: kernel_ = lookup_kernel<32>; break;
            default: table_.clear(); break;
        }
    }
}

void Conversion::run(const std::byte* src, std::byte* dst, std::int64_t count) const {
    if (count <= 0) return;
    const auto n = static_cast<std::size_t>(count);
    const void* context = shared_table_ ? static_cast<const void*>(shared_table_)
                          : table_.empty() ? nullptr : table_.data();
    if (!swap_from_) {
        if (kernel_) kernel_(src, dst, n, context);
        else copy_kernel_any(src, dst, n * from_size_, nullptr);
    } else {
        constexpr std::size_t kBlockBytes = 16 << 10;
        alignas(64) std::byte block[kBlockBytes];
        const std::size_t per_block = std::max<std::size_t>(1, kBlockBytes / from_size_);
        for (std::size_t done = 0; done < n; done += per_block) {
            const std::size_t m = std::min(per_block, n - done);
            std::memcpy(block, src + done * from_size_, m * from_size_);
            kernels::swap_units(block, m * from_size_ / swap_from_, swap_from_);
            if (kernel_) kernel_(block, dst + done * to_size_, m, context);
            else std::memcpy(dst + done * to_size_, block, m * to_size_);
        }
    }
    if (swap_to_) kernels::swap_units(dst, n * to_size_ / swap_to_, swap_to_);
}

}  // namespace tslice
