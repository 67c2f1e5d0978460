// The AVX-512 adapter of the kernel body (kernels_body.hpp), for the two AVX-512 sets: without
// VBMI (kernels_avx512.cpp: F, CD, BW, DQ, VL, as Skylake-SP has) and with it
// (kernels_avx512vbmi.cpp: Ice Lake, Zen 4 and later), whose byte permute (vpermb) moves
// single bytes across the whole register where the other set shuffles each 16-byte lane on
// its own. Include it from those two files only, after kernels_body.hpp: like the body, it
// has internal linkage.
#pragma once

#include <immintrin.h>

#include "copy/kernels_body.hpp"

namespace tslice::kernels {
namespace {

// Vbmi: whether the file including this is compiled with VBMI.
template <bool Vbmi>
struct Avx512 {
    using Arch = xsimd::avx512bw;
    using V = xsimd::batch<std::uint8_t, Arch>;
    static constexpr std::size_t kWidth = 64;

    static V load(const std::byte* p) { return V::load_unaligned(reinterpret_cast<const std::uint8_t*>(p)); }
    static void store(std::byte* p, const V& v) { v.store_unaligned(reinterpret_cast<std::uint8_t*>(p)); }
    static void stream(std::byte* p, const V& v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
    static void fence() { _mm_sfence(); }

    // xsimd 8.1 swizzles bytes on AVX-512 with vpermb, which needs VBMI: without it, bytes are
    // a pshufb inside each lane, then the four lanes reversed. Words (vpermw) and wider are
    // xsimd's.
    template <std::size_t S>
    static V reverse(const V& v) {
#ifdef __AVX512VBMI__
        if constexpr (S == 1 && Vbmi) {
            const __m512i order = _mm512_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                                  19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
                                                  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52,
                                                  53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);
            return _mm512_permutexvar_epi8(order, v);
        }
#endif
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

    // The longest step, in bytes, that the stepped kernel, or the merged kernel in its place
    // (merges<S>), takes for S-byte elements: where it beat the plain loop (see prepare_sized
    // in kernels_rows.hpp). 0: never.
    // Without VBMI bytes are shuffled lane by lane, and every 8th was the last step to gain.
    // The stepped kernel with VBMI beat the plain loop up to every 12th uint8 (39.6 ms against
    // 40.6; 8th: 34.0 against 43.5; 14th: 38.1 against 36.6). The merged kernel, which took its
    // rows, beat the plain loop unrolled (Zen 4, rows of 1 KiB read in order from 1 GiB in
    // memory held, one thread, bench/row_kernels.cpp, medians of 7 or 9 alternating pairs) at
    // every 2nd uint8 (0.51 of its time), 3rd 0.66, 5th 0.74, 7th 0.85 and 9th 0.88-0.91, but
    // not at every 10th (1.05-1.07 in three runs, 0.92 in one of an earlier program), 11th
    // (1.16) or 12th (1.06): merged_held_most_bytes. The tool, whose plain loop is not
    // unrolled, was faster merged there too (whole process, 12 alternating runs: every 11th
    // 0.78 of the plain loop's time, 0.97 of the stepped kernel's; every 12th 0.93 and 0.97).
    // int16 gained to every 5th (every 2nd 0.85, 3rd 0.92, 5th 0.85), and float32 every 2nd was
    // as fast (1.03; 0.44 of the time where the rows are in L2). float32 every
    // third (12 bytes) was faster in the plain loop unrolled, which reads such rows in order
    // without prefetches (copy_plan.cpp): 47.8-49.1 ms against 56.0-56.7 shuffled, numpy
    // 57-59 (Zen 4, 1 GiB in memory held, one thread, medians of 5, two alternating runs); the
    // tool, on a mapping, was as fast either way (three runs of 10 to 14 alternating pairs,
    // medians 0.98 to 1.09 of each other, fastest runs within 2%). (On Zen 4 such rows, and
    // int16 every 5th to 7th, read in order from more input than the last-level cache holds,
    // go to the plain loop, not unrolled: copy_machine.cpp.)
    template <std::size_t S>
    static constexpr std::int64_t stepped_most_bytes() {
        return S == 1 ? (Vbmi ? 12 : 8) : S == 2 ? 10 : S == 4 ? 8 : 0;
    }
    // The longest step the merged kernel takes in memory the process holds (see above).
    template <std::size_t S>
    static constexpr std::int64_t merged_held_most_bytes() {
        return S == 1 ? 9 : stepped_most_bytes<S>();
    }

    // vpermd / vpermw move 4-, 8- and 2-byte elements across the register; bytes go lane by
    // lane, or with VBMI across the register too (vpermb).
    template <std::size_t S>
    static constexpr Unit unit() {
        return S >= 4 ? Unit::kDwords : S == 2 ? Unit::kWords : Vbmi ? Unit::kBytes : Unit::kLanes;
    }
    template <std::size_t S>
    static V permute(const V& v, const std::uint8_t* mask) {
        const __m512i m = _mm512_load_si512(mask);
        if constexpr (S >= 4) return _mm512_permutexvar_epi32(m, v);
        else if constexpr (S == 2) return _mm512_permutexvar_epi16(m, v);
#ifdef __AVX512VBMI__
        else if constexpr (Vbmi) return _mm512_permutexvar_epi8(m, v);
#endif
        else return _mm512_shuffle_epi8(v, m);
    }
    template <int L>
    static void store_lane(std::byte* p, const V& v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_extracti32x4_epi32(v, L));
    }

    // The merged kernel (kernels_merged.hpp): whether the set has it for S-byte elements (bytes
    // need VBMI's vpermb), and its masked permute, loads and stores.
    template <std::size_t S>
    static constexpr bool merges() {
        return S == 1 ? Vbmi : S == 2 || S == 4 || S == 8;
    }
    // The elements of `v` that `indexes` names, in the lanes `lanes` has set; zero elsewhere.
    template <std::size_t S>
    static V pick(std::uint64_t lanes, const V& indexes, const V& v) {
        const __m512i m = indexes;
        if constexpr (S == 8) return _mm512_maskz_permutexvar_epi64(static_cast<__mmask8>(lanes), m, v);
        else if constexpr (S == 4) return _mm512_maskz_permutexvar_epi32(static_cast<__mmask16>(lanes), m, v);
        else if constexpr (S == 2) return _mm512_maskz_permutexvar_epi16(static_cast<__mmask32>(lanes), m, v);
#ifdef __AVX512VBMI__
        else if constexpr (S == 1 && Vbmi) return _mm512_maskz_permutexvar_epi8(static_cast<__mmask64>(lanes), m, v);
#endif
        else static_assert(S == 0, "no merged kernel for this element size");
    }
    static V merge(const V& a, const V& b) { return _mm512_or_si512(a, b); }
    static V zero() { return _mm512_setzero_si512(); }
    // The bytes `bytes` has set (the others zero, and never read: a masked load does not
    // fault on them); and a store of only those.
    static V load_part(const std::byte* p, std::uint64_t bytes) { return _mm512_maskz_loadu_epi8(bytes, p); }
    static void store_part(std::byte* p, std::uint64_t bytes, const V& v) { _mm512_mask_storeu_epi8(p, bytes, v); }
};

}  // namespace
}  // namespace tslice::kernels
