// The AVX2 kernel set: the one kernel body (kernels_body.hpp) over 32-byte registers. This
// file alone is compiled with -mavx2 (CMakeLists.txt); the dispatcher (kernels.cpp) calls
// avx2_set() only on a CPU that has AVX2.
#include "copy/kernels.hpp"

#if defined(__AVX2__)

#include <immintrin.h>

#include "copy/kernels_body.hpp"

namespace tslice::kernels {
namespace {

struct Avx2 {
    using Arch = xsimd::avx2;
    using V = xsimd::batch<std::uint8_t, Arch>;
    static constexpr std::size_t kWidth = 32;

    static V load(const std::byte* p) { return V::load_unaligned(reinterpret_cast<const std::uint8_t*>(p)); }
    static void store(std::byte* p, const V& v) { v.store_unaligned(reinterpret_cast<std::uint8_t*>(p)); }
    static void stream(std::byte* p, const V& v) { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v); }
    static void fence() { _mm_sfence(); }

    // xsimd 8.1 swizzles 4- and 8-byte elements on AVX2 but not bytes or words: those are a
    // pshufb inside each lane, then the two lanes swapped.
    template <std::size_t S>
    static V reverse(const V& v) {
        if constexpr (S == 1 || S == 2) {
            const __m256i in_lane = S == 1 ? _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                                              15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
                                           : _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
                                                              14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
            return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, in_lane), 0x4E);
        }
        if constexpr (S == 4) return swizzled<std::uint32_t, ReversedOrder>(v);
        if constexpr (S == 8) return swizzled<std::uint64_t, ReversedOrder>(v);
        if constexpr (S == 16) return swizzled<std::uint64_t, ReversedPairs>(v);
    }

    // The longest step, in bytes, that the stepped kernel takes for S-byte elements: where it
    // beat the plain loop (see prepare_sized in kernels_rows.hpp). 0: never.
    // Bytes stop at every 5th, as in the SSE4.2 set: these limits were first timed on Zen 4
    // with this set forced, where every 7th byte still gained, but the CPUs that run this set
    // by default have no AVX-512, and on one of them (a 2-core AMD EPYC with AVX2 only) every
    // 7th byte took 145.8 ms shuffled against 118.0 plain. The shuffle costs per register and
    // the plain loop per element, so that 1.24x at every 7th puts the break-even near every
    // 5.7th (1.24 x 6/7 = 1.06 at every 6th, 0.88 at every 5th). Steps of 2- and 4-byte
    // items measured even there (float32 every 2nd: 166.2 against 166.1 ms).
    template <std::size_t S>
    static constexpr std::int64_t stepped_most_bytes() {
        return S == 1 ? 5 : S == 2 ? 6 : S == 4 ? 8 : 0;
    }

    // vpermd moves 4- and 8-byte elements across the register; bytes and words go lane by lane.
    template <std::size_t S>
    static constexpr Unit unit() {
        return S >= 4 ? Unit::kDwords : Unit::kLanes;
    }
    template <std::size_t S>
    static V permute(const V& v, const std::uint8_t* mask) {
        const __m256i m = _mm256_load_si256(reinterpret_cast<const __m256i*>(mask));
        if constexpr (S >= 4) return _mm256_permutevar8x32_epi32(v, m);
        else return _mm256_shuffle_epi8(v, m);
    }
    template <int L>
    static void store_lane(std::byte* p, const V& v) {
        const __m128i lane = L == 0 ? _mm256_castsi256_si128(v) : _mm256_extracti128_si256(v, 1);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), lane);
    }
};

constexpr KernelSet kSet = Body<Avx2>::make("avx2");

}  // namespace

const KernelSet* avx2_set() { return &kSet; }

}  // namespace tslice::kernels

#else

const tslice::kernels::KernelSet* tslice::kernels::avx2_set() { return nullptr; }

#endif
