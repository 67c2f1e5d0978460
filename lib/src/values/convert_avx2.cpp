// --astype kernels with AVX2, for the pairs the compiler's baseline loops leave slowest:
// float32 -> bfloat16, float32 -> float8_e4m3fn / float8_e5m2, float64 -> float32, and
// float8_e4m3fn / float8_e5m2 -> float16 (a table's lookups are one element a cycle). Each
// rounds exactly as the element path does (narrow_floats.hpp; the float8 tails call it), and
// the unit tests and the differential test hold them to it.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "copy/kernels.hpp"
#include "values/convert_kernels.hpp"
#include "values/narrow_floats.hpp"

namespace tslice::kernels {
namespace {

#if defined(__x86_64__)
#define TSLICE_AVX2 [[gnu::target("avx2")]]

// float32 bits to bfloat16 bits in the low half of each lane: to nearest even; NaN quieted.
TSLICE_AVX2 inline __m256i bf16_lanes(__m256i w) {
    const __m256i magnitude = _mm256_and_si256(w, _mm256_set1_epi32(0x7fffffff));
    const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(w, 16), _mm256_set1_epi32(1));
    const __m256i rounded =
        _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(w, _mm256_set1_epi32(0x7fff)), odd), 16);
    const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(w, 16), _mm256_set1_epi32(0x40));
    return _mm256_blendv_epi8(rounded, quiet, nan);
}

TSLICE_AVX2 inline void store(std::byte* at, __m256i v, bool stream) {
    if (stream) _mm256_stream_si256(reinterpret_cast<__m256i*>(at), v);
    else _mm256_storeu_si256(reinterpret_cast<__m256i*>(at), v);
}

// Elements [from, to) one by one with the element path.
inline void f4_to_bf16_one_by_one(const std::byte* src, std::byte* dst, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
        float f;
        std::memcpy(&f, src + 4 * i, 4);
        const std::uint16_t h = narrow::bf16_from_float(f);
        std::memcpy(dst + 2 * i, &h, 2);
    }
}

TSLICE_AVX2 void f4_to_bf16(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    const bool stream = 2 * count >= kStreamBytes && unaligned_head(dst, 32, 2, count) < count;
    std::size_t i = stream ? unaligned_head(dst, 32, 2, count) : 0;
    f4_to_bf16_one_by_one(src, dst, 0, i);
    for (; i + 16 <= count; i += 16) {
        const __m256i a = bf16_lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 4 * i)));
        const __m256i b = bf16_lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 4 * i + 32)));
        store(dst + 2 * i, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8), stream);
    }
    if (stream) _mm_sfence();
    f4_to_bf16_one_by_one(src, dst, i, count);
}

// float32 to a float8 with a sign, exponent and mantissa (e4m3fn, e5m2), eight lanes of codes.
// A value the float8 holds as a normal number rounds on its bits (half a step less one, plus
// the kept part's lowest bit, then the extra bits dropped); below that, in units of the least
// subnormal, by the float-to-integer conversion, which rounds to nearest even.
template <int Mantissa, int Bias, bool HasInf>
TSLICE_AVX2 inline __m256i f8_lanes(__m256 x) {
    constexpr int kShift = 23 - Mantissa;
    constexpr int kTop = (1 << (7 - Mantissa)) - 1;
    constexpr int kMaxCode = HasInf ? (kTop << Mantissa) - 1 : (kTop << Mantissa) | ((1 << Mantissa) - 2);
    constexpr int kNan = HasInf ? 0x7E : 0x7F;
    constexpr int kOverflow = HasInf ? kTop << Mantissa : kNan;
    const __m256i w = _mm256_castps_si256(x);
    const __m256i magnitude = _mm256_and_si256(w, _mm256_set1_epi32(0x7fffffff));
    const __m256i sign = _mm256_and_si256(_mm256_srli_epi32(w, 24), _mm256_set1_epi32(0x80));
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(magnitude, kShift), _mm256_set1_epi32(1));
    const __m256i rounded = _mm256_add_epi32(_mm256_add_epi32(magnitude, _mm256_set1_epi32((1 << (kShift - 1)) - 1)), odd);
    const __m256i normal = _mm256_sub_epi32(_mm256_srli_epi32(rounded, kShift), _mm256_set1_epi32((127 - Bias) << Mantissa));
    const __m256 units = _mm256_mul_ps(_mm256_castsi256_ps(magnitude), _mm256_set1_ps(static_cast<float>(1 << (Mantissa + Bias - 1))));
    const __m256i subnormal = _mm256_cvtps_epi32(units);
    const __m256i is_sub = _mm256_cmpgt_epi32(_mm256_set1_epi32((128 - Bias) << 23), magnitude);
    __m256i code = _mm256_blendv_epi8(normal, subnormal, is_sub);
    // The overflow code is the one after the largest (e4m3fn: NaN, e5m2: inf), so a minimum
    // is the overflow rule; NaN and inf inputs have codes past it too.
    static_assert(kOverflow == kMaxCode + 1);
    code = _mm256_min_epi32(code, _mm256_set1_epi32(kOverflow));
    if constexpr (HasInf) {
        const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
        code = _mm256_blendv_epi8(code, _mm256_set1_epi32(kNan), nan);
    }
    return _mm256_or_si256(code, sign);
}

template <int Mantissa, int Bias, bool HasInf, narrow::F8 Format>
TSLICE_AVX2 void f4_to_f8(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    const auto one_by_one = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) {
            float f;
            std::memcpy(&f, src + 4 * i, 4);
            dst[i] = static_cast<std::byte>(narrow::f8_from_float_bits(Format, f));
        }
    };
    const bool stream = count >= kStreamBytes;
    std::size_t i = stream ? unaligned_head(dst, 32, 1, count) : 0;
    one_by_one(0, i);
    const auto* in = reinterpret_cast<const float*>(src);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= count; i += 32) {
        const __m256i a = f8_lanes<Mantissa, Bias, HasInf>(_mm256_loadu_ps(in + i));
        const __m256i b = f8_lanes<Mantissa, Bias, HasInf>(_mm256_loadu_ps(in + i + 8));
        const __m256i c = f8_lanes<Mantissa, Bias, HasInf>(_mm256_loadu_ps(in + i + 16));
        const __m256i d = f8_lanes<Mantissa, Bias, HasInf>(_mm256_loadu_ps(in + i + 24));
        const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
        store(dst + i, _mm256_permutevar8x32_epi32(bytes, order), stream);
    }
    if (stream) _mm_sfence();
    one_by_one(i, count);
}

TSLICE_AVX2 void f8_to_f4(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    const auto one_by_one = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) {
            double d;
            std::memcpy(&d, src + 8 * i, 8);
            const auto f = static_cast<float>(d);
            std::memcpy(dst + 4 * i, &f, 4);
        }
    };
    const bool stream = 4 * count >= kStreamBytes && unaligned_head(dst, 32, 4, count) < count;
    std::size_t i = stream ? unaligned_head(dst, 32, 4, count) : 0;
    one_by_one(0, i);
    const auto* in = reinterpret_cast<const double*>(src);
    for (; i + 8 <= count; i += 8) {
        const __m128 a = _mm256_cvtpd_ps(_mm256_loadu_pd(in + i));
        const __m128 b = _mm256_cvtpd_ps(_mm256_loadu_pd(in + i + 4));
        store(dst + 4 * i, _mm256_castps_si256(_mm256_set_m128(b, a)), stream);
    }
    if (stream) _mm_sfence();
    one_by_one(i, count);
}

// float8 (e4m3fn, e5m2) to float16, 32 codes a step, in bytes: every value of both is a
// float16 value, so this is a re-encoding, exact. e5m2 is float16's upper byte (a NaN code
// becomes the quiet NaN with its sign, as the codecs decode it). e4m3fn's
// normals move their exponent up by 8 (bias 7 to 15) and its mantissa by 7 bits; its
// subnormals m * 2^-9 are float16 normals whose upper bytes a table gives (the lower are 0);
// its NaN (s 1111 111) becomes float16's quiet NaN.
template <bool E4M3>
TSLICE_AVX2 void f8_to_f2(const std::byte* src, std::byte* dst, std::size_t count, const void* context) {
    std::size_t i = 0;
    const __m256i low7 = _mm256_set1_epi8(0x7F);
    const __m256i subnormal_high = _mm256_setr_epi8(0, 0x18, 0x1C, 0x1E, 0x20, 0x21, 0x22, 0x23, 0, 0, 0, 0, 0, 0, 0, 0,
                                                    0, 0x18, 0x1C, 0x1E, 0x20, 0x21, 0x22, 0x23, 0, 0, 0, 0, 0, 0, 0, 0);
    for (; i + 32 <= count; i += 32) {
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        __m256i high, low;
        if constexpr (E4M3) {
            const __m256i em = _mm256_and_si256(b, low7);
            const __m256i sign = _mm256_andnot_si256(low7, b);
            const __m256i normal_high =
                _mm256_add_epi8(_mm256_and_si256(_mm256_srli_epi16(em, 1), low7), _mm256_set1_epi8(0x20));
            const __m256i normal_low = _mm256_slli_epi16(_mm256_and_si256(em, _mm256_set1_epi8(1)), 7);
            const __m256i is_sub = _mm256_cmpgt_epi8(_mm256_set1_epi8(8), em);
            const __m256i is_nan = _mm256_cmpeq_epi8(em, low7);
            high = _mm256_blendv_epi8(normal_high, _mm256_shuffle_epi8(subnormal_high, em), is_sub);
            high = _mm256_or_si256(_mm256_blendv_epi8(high, _mm256_set1_epi8(0x7E), is_nan), sign);
            low = _mm256_andnot_si256(_mm256_or_si256(is_sub, is_nan), normal_low);
        } else {
            // NaN codes (s 11111 01-11) become the quiet NaN with their sign, as decoded.
            const __m256i is_nan = _mm256_cmpgt_epi8(_mm256_and_si256(b, low7), _mm256_set1_epi8(0x7C));
            high = _mm256_blendv_epi8(b, _mm256_or_si256(_mm256_andnot_si256(low7, b), _mm256_set1_epi8(0x7E)), is_nan);
            low = _mm256_setzero_si256();
        }
        const __m256i first = _mm256_unpacklo_epi8(low, high), second = _mm256_unpackhi_epi8(low, high);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * i), _mm256_permute2x128_si256(first, second, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * i + 32), _mm256_permute2x128_si256(first, second, 0x31));
    }
    // The rest through the caller's table of the 256 codes.
    const auto* table = static_cast<const std::byte*>(context);
    for (; i < count; ++i) std::memcpy(dst + 2 * i, table + 2 * std::to_integer<std::size_t>(src[i]), 2);
}

bool use_avx2() { return active_set_reaches("avx2"); }
#endif

}  // namespace

ConvertKernel avx2_kernel(AvxPair pair) {
#if defined(__x86_64__)
    if (!use_avx2()) return nullptr;
    switch (pair) {
        case AvxPair::F4ToBF16: return f4_to_bf16;
        case AvxPair::F4ToE4M3: return f4_to_f8<3, 7, false, narrow::F8::E4M3>;
        case AvxPair::F4ToE5M2: return f4_to_f8<2, 15, true, narrow::F8::E5M2>;
        case AvxPair::F8ToF4: return f8_to_f4;
        case AvxPair::E4M3ToF2: return f8_to_f2<true>;
        case AvxPair::E5M2ToF2: return f8_to_f2<false>;
    }
#else
    (void)pair;
#endif
    return nullptr;
}

}  // namespace tslice::kernels
