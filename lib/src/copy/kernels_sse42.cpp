// The SSE4.2 kernel set (with SSSE3's byte shuffle): the one kernel body (kernels_body.hpp)
// over 16-byte registers. This file alone is compiled with -msse4.2 (CMakeLists.txt); the
// dispatcher (kernels.cpp) calls sse42_set() only on a CPU that has SSE4.2.
#include "copy/kernels.hpp"

#if defined(__SSE4_2__) && defined(__SSSE3__)

#include <immintrin.h>

#include "copy/kernels_body.hpp"

namespace tslice::kernels {
namespace {

struct Sse42 {
    using Arch = xsimd::sse4_2;
    using V = xsimd::batch<std::uint8_t, Arch>;
    static constexpr std::size_t kWidth = 16;

    static V load(const std::byte* p) { return V::load_unaligned(reinterpret_cast<const std::uint8_t*>(p)); }
    static void store(std::byte* p, const V& v) { v.store_unaligned(reinterpret_cast<std::uint8_t*>(p)); }
    static void stream(std::byte* p, const V& v) { _mm_stream_si128(reinterpret_cast<__m128i*>(p), v); }
    static void fence() { _mm_sfence(); }

    // xsimd has every reversal here (pshufb for bytes and words).
    template <std::size_t S>
    static V reverse(const V& v) {
        if constexpr (S == 1) return swizzled<std::uint8_t, ReversedOrder>(v);
        if constexpr (S == 2) return swizzled<std::uint16_t, ReversedOrder>(v);
        if constexpr (S == 4) return swizzled<std::uint32_t, ReversedOrder>(v);
        if constexpr (S == 8) return swizzled<std::uint64_t, ReversedOrder>(v);
        if constexpr (S == 16) return v;
    }

    // The longest step, in bytes, that the stepped kernel takes for S-byte elements: where it
    // beat the plain loop (see prepare_sized in kernels_rows.hpp). 0: never.
    template <std::size_t S>
    static constexpr std::int64_t stepped_most_bytes() {
        return S == 1 ? 5 : S == 2 ? 6 : 0;
    }

    // One lane: pshufb does every element size.
    template <std::size_t S>
    static constexpr Unit unit() {
        return Unit::kLanes;
    }
    template <std::size_t S>
    static V permute(const V& v, const std::uint8_t* mask) {
        return _mm_shuffle_epi8(v, _mm_load_si128(reinterpret_cast<const __m128i*>(mask)));
    }
    template <int L>
    static void store_lane(std::byte* p, const V& v) {
        store(p, v);
    }
};

constexpr KernelSet kSet = Body<Sse42>::make("sse4.2");

}  // namespace

const KernelSet* sse42_set() { return &kSet; }

}  // namespace tslice::kernels

#else

const tslice::kernels::KernelSet* tslice::kernels::sse42_set() { return nullptr; }

#endif
