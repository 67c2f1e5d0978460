// The lanes every float32 stats kernel keeps (stats_kernels.hpp), and what they all do after
// their vector loop, so that the kernels differ only in how they fill the lanes. The loop
// takes runs of 16 elements; lane j takes element j, then element j + 8 of each (the AVX2
// kernel's two vectors of four float64 sums and of squares, and one of eight float32 minima
// and maxima: few enough to stay in its 16 registers), and the rest goes through the same
// scalar tail.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "values/stats_kernels.hpp"

namespace tslice::stats_kernels {

constexpr std::size_t kRun = 16, kLanes = 8;

struct Float32Lanes {
    double sum[kLanes], squares[kLanes];
    float lo[kLanes], hi[kLanes];
    std::int64_t finite = 0;  // of the elements the lanes took
};

// Lanes 0-3 and 4-7 as vectors: the two added, then the four sums.
inline double lanes_total(const double* lanes) {
    double c[4];
    for (std::size_t l = 0; l < 4; ++l) c[l] = lanes[l] + lanes[4 + l];
    return (c[0] + c[1]) + (c[2] + c[3]);
}

// The block from the lanes, which took elements [0, from), and the elements [from, n) after.
inline Float32Block finish_float32(const Float32Lanes& lanes, const float* p, std::size_t from, std::size_t n,
                                   float shift) {
    const float inf = std::numeric_limits<float>::infinity();
    const double k = shift;
    Float32Block b;
    b.lo = inf, b.hi = -inf;
    for (std::size_t j = 0; j < kLanes; ++j) {
        b.lo = lanes.lo[j] < b.lo ? lanes.lo[j] : b.lo;
        b.hi = lanes.hi[j] > b.hi ? lanes.hi[j] : b.hi;
    }
    std::int64_t finite = lanes.finite;
    double sum = 0, squares = 0;
    for (std::size_t i = from; i < n; ++i) {
        const float x = p[i];
        b.lo = x < b.lo ? x : b.lo;
        b.hi = x > b.hi ? x : b.hi;
        if (std::fabs(x) < inf) {
            const double d = static_cast<double>(x) - k;
            sum += d;
            squares += d * d;
            ++finite;
        }
    }
    b.shifted_sum = lanes_total(lanes.sum) + sum;
    b.shifted_squares = lanes_total(lanes.squares) + squares;
    b.finite = finite;
    // Infinities are rare, and the extremes say whether there are any: only then are they
    // counted, here, so that the lanes count the finite values alone.
    if (b.hi == inf || b.lo == -inf) {
        for (std::size_t i = 0; i < n; ++i) {
            b.posinf += p[i] == inf;
            b.neginf += p[i] == -inf;
        }
    }
    b.nan = static_cast<std::int64_t>(n) - finite - b.posinf - b.neginf;
    return b;
}

}  // namespace tslice::stats_kernels
