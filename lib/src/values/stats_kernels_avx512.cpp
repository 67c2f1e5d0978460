// The float32 stats kernel with AVX-512 (stats_kernels.hpp): the lanes of stats_lanes.hpp and
// the AVX2 kernel's order of additions, with masks in mask registers. A value takes part when
// it is not NaN (one comparison), and the deviation of one that is NaN is made 0 by the masked
// subtraction itself, with no blend. Infinities take part too, so a block that holds any (its
// extremes show it) is reduced again by the AVX2 kernel, which masks them: rare in data, they
// cost that block a second pass, and the result is the AVX2 kernel's, bit for bit.
#include "copy/kernels.hpp"
#include "values/stats_kernels.hpp"
#include "values/stats_lanes.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// GCC 12 takes the "undefined" registers inside its own AVX-512 intrinsics for uninitialised
// values (a false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace tslice::stats_kernels {

#if defined(__x86_64__)
namespace {

#define TSLICE_AVX512 [[gnu::target("avx512f,avx512vl,avx512dq,avx512bw,fma")]]

TSLICE_AVX512 Float32Block float32_avx512_kernel(const float* p, std::size_t n, float shift) {
    const float inf = std::numeric_limits<float>::infinity();
    const __m512d kd = _mm512_set1_pd(shift);
    __m512d sum = _mm512_setzero_pd(), squares = sum;
    __m256 lo = _mm256_set1_ps(inf), hi = _mm256_set1_ps(-inf);
    std::int64_t counted = 0;  // values that are not NaN
    std::size_t i = 0;
    for (; i + kRun <= n; i += kRun) {
        const __m256 x0 = _mm256_loadu_ps(p + i), x1 = _mm256_loadu_ps(p + i + 8);
        lo = _mm256_min_ps(x1, _mm256_min_ps(x0, lo));
        hi = _mm256_max_ps(x1, _mm256_max_ps(x0, hi));
        const __mmask8 a0 = _mm256_cmp_ps_mask(x0, x0, _CMP_ORD_Q), a1 = _mm256_cmp_ps_mask(x1, x1, _CMP_ORD_Q);
        counted += __builtin_popcount(static_cast<unsigned>(a0) | static_cast<unsigned>(a1) << 8);
        const __m512d d0 = _mm512_maskz_sub_pd(a0, _mm512_cvtps_pd(x0), kd);
        const __m512d d1 = _mm512_maskz_sub_pd(a1, _mm512_cvtps_pd(x1), kd);
        sum = _mm512_add_pd(_mm512_add_pd(sum, d0), d1);
        squares = _mm512_fmadd_pd(d1, d1, _mm512_fmadd_pd(d0, d0, squares));
    }
    Float32Lanes lanes;
    _mm256_storeu_ps(lanes.lo, lo), _mm256_storeu_ps(lanes.hi, hi);
    for (std::size_t j = 0; j < kLanes; ++j)
        if (lanes.lo[j] == -inf || lanes.hi[j] == inf) return float32_avx2()(p, n, shift);
    _mm512_storeu_pd(lanes.sum, sum), _mm512_storeu_pd(lanes.squares, squares);
    lanes.finite = counted;
    return finish_float32(lanes, p, i, n, shift);
}

}  // namespace

// (A CPU that runs the avx512 set runs the avx2 set too, which the kernel falls back on.)
Float32Kernel float32_avx512() {
    return kernels::cpu_runs("avx512") && kernels::cpu_has(kernels::Extension::Fma) ? float32_avx512_kernel : nullptr;
}
#else
Float32Kernel float32_avx512() { return nullptr; }
#endif

}  // namespace tslice::stats_kernels
