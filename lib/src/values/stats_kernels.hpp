// The inner loops of --stats for float32 and float64 blocks, with NaNs and infinities masked
// in the vector lanes (no branch, no second path): a block's finite sum and count, its NaN and
// infinity counts and extremes, then the squared deviations of its finite values from a mean.
// Built for AVX2 and for the baseline, the better chosen when the program starts (GCC's
// target_clones); the lanes are the same partial sums in both, so the bits are too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tslice::stats_kernels {

template <class T>
struct Block {
    double sum = 0;  // of the finite values
    std::int64_t finite = 0, nan = 0, posinf = 0, neginf = 0;
    T lo, hi;  // of the values that are not NaN; +inf and -inf when all are
};

// n <= 2048 (the counts are kept in 32-bit lanes).
Block<float> sums(const float* p, std::size_t n);
Block<double> sums(const double* p, std::size_t n);

// The sum of (x - mean)^2 over the finite values.
double squared_deviations(const float* p, std::size_t n, double mean);
double squared_deviations(const double* p, std::size_t n, double mean);

}  // namespace tslice::stats_kernels
