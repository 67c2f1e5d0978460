// The inner loops of --stats, a block of at most 2048 values at a time, with NaNs and
// infinities masked in the vector lanes (no branch, no second path).
//
// float32 (and the narrow floats and float16, widened to it) in one pass: the finite values'
// deviations from a shift K, d = x - K in float64, summed and squared, give the block's mean
// K + S1/n and its sum of squared deviations S2 - S1^2/n. With K the mean of the block before
// (stats.cpp), S1 is small and nothing cancels; K as far from the block as the block before
// was costs digits only of a total that its distance from that block dominates anyway. float32
// values and their differences cannot overflow float64, so the squares are never infinite.
// One kernel per instruction set (the portable loop is the reference; AVX2 and AVX-512 with
// FMA), with the same partial sums in the same lanes: the extremes and counts are the same on
// any CPU, the sums the same but for the rounding the fused multiply-add of the squares leaves
// out (the two SIMD kernels give the same bits).
//
// float64 in two passes over the block (it is in the cache for the second): its finite sum,
// then the squared deviations from its mean; a deviation of float64 values can overflow,
// and then is infinite, as numpy's is.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tslice::stats_kernels {

// Counts of a block's non-finite values, and its extremes.
template <class T>
struct Counts {
    std::int64_t finite = 0, nan = 0, posinf = 0, neginf = 0;
    T lo, hi;  // of the values that are not NaN; +inf and -inf when all are
};

// n <= 2048 (the counts are kept in 32-bit lanes).
struct Float32Block : Counts<float> {
    double shifted_sum = 0;      // of the finite values' x - shift
    double shifted_squares = 0;  // of their (x - shift)^2
};

using Float32Kernel = Float32Block (*)(const float* p, std::size_t n, float shift);

// The kernel of the kernel set the copy uses (TSLICE_KERNEL=scalar: the portable one).
Float32Kernel float32_kernel();
// Each kernel, for the tests; avx2 and avx512 are null where the CPU or the build has none.
Float32Block float32_portable(const float* p, std::size_t n, float shift);
Float32Kernel float32_avx2();
Float32Kernel float32_avx512();

struct Float64Block : Counts<double> {
    double sum = 0;  // of the finite values
};

// n <= 2048.
Float64Block sums(const double* p, std::size_t n);
// The sum of (x - mean)^2 over the finite values.
double squared_deviations(const double* p, std::size_t n, double mean);

}  // namespace tslice::stats_kernels
