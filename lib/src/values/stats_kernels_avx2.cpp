// The float32 stats kernel with AVX2 (stats_kernels.hpp): sixteen values a step, in the lanes
// of stats_lanes.hpp. Masks, not branches: a value is finite when |x| < inf (NaN compares
// false), and a value that is not is replaced by the shift before it is widened, so that its
// deviation is 0; min and max take their second operand where the first is NaN, so NaNs never
// reach the extremes. The finite values are counted in lanes (-1 per true mask); infinities,
// rare, after the loop where the extremes show any (stats_lanes.hpp). The loop is bound by
// its operations, not by memory: the fused multiply-add of the squares is one fewer.
#include "copy/kernels.hpp"
#include "values/stats_kernels.hpp"
#include "values/stats_lanes.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tslice::stats_kernels {

#if defined(__x86_64__)
namespace {

#define TSLICE_AVX2 [[gnu::target("avx2,fma")]]

TSLICE_AVX2 Float32Block float32_avx2_kernel(const float* p, std::size_t n, float shift) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
    const __m256 k = _mm256_set1_ps(shift);
    const __m256d kd = _mm256_set1_pd(shift);
    __m256d sum0 = _mm256_setzero_pd(), sum1 = sum0, sq0 = sum0, sq1 = sum0;
    __m256 lo = inf, hi = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    __m256i finite = _mm256_setzero_si256();
    std::size_t i = 0;
    for (; i + kRun <= n; i += kRun) {
        const __m256 x0 = _mm256_loadu_ps(p + i), x1 = _mm256_loadu_ps(p + i + 8);
        lo = _mm256_min_ps(x1, _mm256_min_ps(x0, lo));
        hi = _mm256_max_ps(x1, _mm256_max_ps(x0, hi));
        const __m256 f0 = _mm256_cmp_ps(_mm256_and_ps(x0, magnitude), inf, _CMP_LT_OQ);
        const __m256 f1 = _mm256_cmp_ps(_mm256_and_ps(x1, magnitude), inf, _CMP_LT_OQ);
        finite = _mm256_sub_epi32(finite, _mm256_add_epi32(_mm256_castps_si256(f0), _mm256_castps_si256(f1)));
        const __m256 y0 = _mm256_blendv_ps(k, x0, f0), y1 = _mm256_blendv_ps(k, x1, f1);
        const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(y0)), kd);
        const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(y0, 1)), kd);
        const __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(y1)), kd);
        const __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(y1, 1)), kd);
        sum0 = _mm256_add_pd(_mm256_add_pd(sum0, d0), d2), sum1 = _mm256_add_pd(_mm256_add_pd(sum1, d1), d3);
        sq0 = _mm256_fmadd_pd(d2, d2, _mm256_fmadd_pd(d0, d0, sq0));
        sq1 = _mm256_fmadd_pd(d3, d3, _mm256_fmadd_pd(d1, d1, sq1));
    }
    Float32Lanes lanes;
    _mm256_storeu_pd(lanes.sum, sum0), _mm256_storeu_pd(lanes.sum + 4, sum1);
    _mm256_storeu_pd(lanes.squares, sq0), _mm256_storeu_pd(lanes.squares + 4, sq1);
    _mm256_storeu_ps(lanes.lo, lo), _mm256_storeu_ps(lanes.hi, hi);
    alignas(32) std::int32_t counts[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(counts), finite);
    for (const std::int32_t c : counts) lanes.finite += c;
    return finish_float32(lanes, p, i, n, shift);
}

}  // namespace

Float32Kernel float32_avx2() {
    return kernels::cpu_runs("avx2") && kernels::cpu_has(kernels::Extension::Fma) ? float32_avx2_kernel : nullptr;
}
#else
Float32Kernel float32_avx2() { return nullptr; }
#endif

}  // namespace tslice::stats_kernels
