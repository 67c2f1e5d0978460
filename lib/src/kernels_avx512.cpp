// The AVX-512 kernel set (F, CD, BW, DQ, VL: Skylake-SP, Ice Lake, Zen 4 and later; no VBMI,
// which Skylake lacks): the one kernel body (kernels_body.hpp) over 64-byte registers. This
// file alone is compiled with the AVX-512 flags (CMakeLists.txt); the dispatcher
// (kernels.cpp) calls avx512_set() only on a CPU that has them all.
#include "kernels.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) && defined(__AVX512DQ__) && \
    defined(__AVX512VL__)

#include <immintrin.h>

#include "kernels_body.hpp"

namespace tslice::kernels {
namespace {

struct Avx512 {
    using Arch = xsimd::avx512bw;
    using V = xsimd::batch<std::uint8_t, Arch>;
    static constexpr std::size_t kWidth = 64;

    static V load(const std::byte* p) { return V::load_unaligned(reinterpret_cast<const std::uint8_t*>(p)); }
    static void store(std::byte* p, const V& v) { v.store_unaligned(reinterpret_cast<std::uint8_t*>(p)); }
    static void stream(std::byte* p, const V& v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
    static void fence() { _mm_sfence(); }

    // xsimd 8.1 swizzles bytes on AVX-512 with vpermb, which needs VBMI: bytes are a pshufb
    // inside each lane, then the four lanes reversed. Words (vpermw) and wider are xsimd's.
    template <std::size_t S>
    static V reverse(const V& v) {
        if constexpr (S == 1) {
            const __m512i in_lane = _mm512_broadcast_i32x4(
                _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
            const __m512i shuffled = _mm512_shuffle_epi8(v, in_lane);
            return _mm512_shuffle_i64x2(shuffled, shuffled, 0x1B);
        }
        if constexpr (S == 2) return swizzled<std::uint16_t, ReversedOrder>(v);
        if constexpr (S == 4) return swizzled<std::uint32_t, ReversedOrder>(v);
        if constexpr (S == 8) return swizzled<std::uint64_t, ReversedOrder>(v);
        if constexpr (S == 16) return swizzled<std::uint64_t, ReversedPairs>(v);
    }

    // The longest step, in bytes, that the stepped kernel takes for S-byte elements: where it
    // beat the plain loop (see stepped_most_bytes in kernels_body.hpp). 0: never.
    template <std::size_t S>
    static constexpr std::int64_t stepped_most_bytes() {
        return S == 1 ? 8 : S == 2 ? 10 : S == 4 ? 12 : 0;
    }

    // vpermd / vpermw move 4-, 8- and 2-byte elements across the register; bytes go lane by lane.
    template <std::size_t S>
    static constexpr Unit unit() {
        return S >= 4 ? Unit::kDwords : S == 2 ? Unit::kWords : Unit::kLanes;
    }
    template <std::size_t S>
    static V permute(const V& v, const std::uint8_t* mask) {
        const __m512i m = _mm512_load_si512(mask);
        if constexpr (S >= 4) return _mm512_permutexvar_epi32(m, v);
        else if constexpr (S == 2) return _mm512_permutexvar_epi16(m, v);
        else return _mm512_shuffle_epi8(v, m);
    }
    template <int L>
    static void store_lane(std::byte* p, const V& v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_extracti32x4_epi32(v, L));
    }
};

constexpr KernelSet kSet = Body<Avx512>::make("avx512");

}  // namespace

const KernelSet* avx512_set() { return &kSet; }

}  // namespace tslice::kernels

#else

const tslice::kernels::KernelSet* tslice::kernels::avx512_set() { return nullptr; }

#endif
