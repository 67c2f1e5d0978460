// The inner loops of --stats for float32 and float64 blocks: the sum, min and max of a block,
// then the sum of its squared deviations from a mean. Built for AVX2 and for the baseline,
// the better chosen when the program starts (GCC's target_clones); the vector lanes are the
// partial sums, so the result is the same on either.
#pragma once

#include <cstddef>

namespace tslice::stats_kernels {

// n >= 1. Returns the sum in float64; lo and hi the least and greatest of the values, valid
// when none is NaN (the caller checks the sum is finite first).
double sum_min_max(const float* p, std::size_t n, float& lo, float& hi);
double sum_min_max(const double* p, std::size_t n, double& lo, double& hi);

double squared_deviations(const float* p, std::size_t n, double mean);
double squared_deviations(const double* p, std::size_t n, double mean);

}  // namespace tslice::stats_kernels
