// float32 <-> float16 with the F16C instructions, eight at a time; the rest through the same
// instructions one at a time, so every element rounds alike.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "copy/kernels.hpp"
#include "values/convert_kernels.hpp"

namespace tslice::kernels {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// Elements [from, to) one at a time, through the same instruction.
[[gnu::target("avx,f16c")]] void f4_to_f2_one_by_one(const std::byte* src, std::byte* dst, std::size_t from,
                                                     std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
        float f;
        std::memcpy(&f, src + 4 * i, 4);
        const __m128i h = _mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT);
        const auto bits = static_cast<std::uint16_t>(_mm_extract_epi16(h, 0));
        std::memcpy(dst + 2 * i, &bits, 2);
    }
}

[[gnu::target("avx,f16c")]] void f4_to_f2(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    // A large output with streaming stores (convert_kernels.hpp).
    const bool stream = 2 * count >= kStreamBytes && unaligned_head(dst, 16, 2, count) < count;
    std::size_t i = stream ? unaligned_head(dst, 16, 2, count) : 0;
    f4_to_f2_one_by_one(src, dst, 0, i);
    for (; i + 8 <= count; i += 8) {
        const __m256 v = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 4 * i));
        auto* at = reinterpret_cast<__m128i*>(dst + 2 * i);
        if (stream) _mm_stream_si128(at, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        else _mm_storeu_si128(at, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    if (stream) _mm_sfence();
    f4_to_f2_one_by_one(src, dst, i, count);
}

[[gnu::target("avx,f16c")]] void f2_to_f4(const std::byte* src, std::byte* dst, std::size_t count, const void*) {
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
        _mm256_storeu_ps(reinterpret_cast<float*>(dst + 4 * i), _mm256_cvtph_ps(h));
    }
    for (; i < count; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, src + 2 * i, 2);
        const float f = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(bits)));
        std::memcpy(dst + 4 * i, &f, 4);
    }
}

// F16C is VEX-encoded, an AVX-era extension: the set in use must be avx2 or above.
bool use_f16c() { return active_set_reaches("avx2") && cpu_has(Extension::F16c); }
#else
bool use_f16c() { return false; }
void f4_to_f2(const std::byte*, std::byte*, std::size_t, const void*) {}
void f2_to_f4(const std::byte*, std::byte*, std::size_t, const void*) {}
#endif

}  // namespace

ConvertKernel f16c_f4_to_f2() { return use_f16c() ? f4_to_f2 : nullptr; }
ConvertKernel f16c_f2_to_f4() { return use_f16c() ? f2_to_f4 : nullptr; }

void swap_units(std::byte* bytes, std::size_t count, std::size_t unit) {
    switch (unit) {
        case 2:
            for (std::size_t i = 0; i < count; ++i) {
                std::uint16_t v;
                std::memcpy(&v, bytes + 2 * i, 2);
                v = __builtin_bswap16(v);
                std::memcpy(bytes + 2 * i, &v, 2);
            }
            return;
        case 4:
            for (std::size_t i = 0; i < count; ++i) {
                std::uint32_t v;
                std::memcpy(&v, bytes + 4 * i, 4);
                v = __builtin_bswap32(v);
                std::memcpy(bytes + 4 * i, &v, 4);
            }
            return;
        case 8:
            for (std::size_t i = 0; i < count; ++i) {
                std::uint64_t v;
                std::memcpy(&v, bytes + 8 * i, 8);
                v = __builtin_bswap64(v);
                std::memcpy(bytes + 8 * i, &v, 8);
            }
            return;
        default:
            for (std::size_t i = 0; i < count; ++i)
                for (std::size_t a = i * unit, b = a + unit - 1; a < b; ++a, --b) std::swap(bytes[a], bytes[b]);
    }
}

}  // namespace tslice::kernels
