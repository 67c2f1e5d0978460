// stats_kernels.hpp: the portable float32 kernel (the reference the others are tested
// against), the choice among them, and the float64 kernels.
//
// float64 with GCC's vector extensions, built for AVX2 and for the baseline (target_clones),
// two 32-byte vectors a step: a lane is finite when x - x == 0 (NaN and the infinities give
// NaN); the finite values go into partial sums, NaNs lose every comparison, so the extremes
// skip them, and the masks, -1 where true, count NaNs and infinities by subtraction. The lanes
// are the same partial sums in both clones, so the bits are too.
#include "values/stats_kernels.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "copy/kernels.hpp"
#include "values/stats_lanes.hpp"

// The 32-byte vectors never cross a call that is not inlined here, so the note that passing
// them changes the ABI without AVX concerns nothing. They go to the helpers by reference all
// the same: clang 14 refuses a 32-byte vector passed or returned by value in the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tslice::stats_kernels {

Float32Block float32_portable(const float* p, std::size_t n, float shift) {
    const float inf = std::numeric_limits<float>::infinity();
    const double k = shift;
    Float32Lanes lanes;
    for (std::size_t j = 0; j < kLanes; ++j) {
        lanes.sum[j] = lanes.squares[j] = 0;
        lanes.lo[j] = inf, lanes.hi[j] = -inf;
    }
    std::size_t i = 0;
    for (; i + kRun <= n; i += kRun) {
        for (std::size_t e = 0; e < kRun; ++e) {
            const std::size_t j = e % kLanes;
            const float x = p[i + e];
            lanes.lo[j] = x < lanes.lo[j] ? x : lanes.lo[j];
            lanes.hi[j] = x > lanes.hi[j] ? x : lanes.hi[j];
            const bool finite = std::fabs(x) < inf;
            lanes.finite += finite;
            // A value that is not finite is taken as the shift: its deviation is 0.
            const double d = static_cast<double>(finite ? x : shift) - k;
            lanes.sum[j] += d;
            lanes.squares[j] += d * d;
        }
    }
    return finish_float32(lanes, p, i, n, shift);
}

Float32Kernel float32_kernel() {
    if (kernels::active_set_reaches("avx512"))
        if (const Float32Kernel avx512 = float32_avx512()) return avx512;
    if (kernels::active_set_reaches("avx2"))
        if (const Float32Kernel avx2 = float32_avx2()) return avx2;
    return float32_portable;
}

namespace {

typedef double D4v __attribute__((vector_size(32)));
typedef std::int64_t M4v __attribute__((vector_size(32)));

#define TSLICE_CLONES [[gnu::target_clones("avx2", "default")]]

inline void load(const double* p, D4v& v) { std::memcpy(&v, p, sizeof v); }
inline double total(const D4v& a, const D4v& b) {
    return ((a[0] + b[0]) + (a[1] + b[1])) + ((a[2] + b[2]) + (a[3] + b[3]));
}
inline std::int64_t lanes_total(const M4v& v) { return v[0] + v[1] + v[2] + v[3]; }

// Four values a vector, two vectors a step, each into sums and extremes of its own. The
// additions' latency, not their count, bounds these loops, hence the several accumulators.
// They are named, not in an array, so that the compiler keeps them in registers.
[[gnu::always_inline]] inline Float64Block sums_of(const double* p, std::size_t n) {
    const double inf = std::numeric_limits<double>::infinity();
    Float64Block b;
    b.lo = inf, b.hi = -inf;
    const D4v zero = D4v{} * 0, pinf = zero + inf;
    D4v s0 = zero, s1 = zero;
    D4v lo0 = pinf, lo1 = pinf, hi0 = -pinf, hi1 = -pinf;
    M4v nan = M4v{} * 0, posinf = nan, neginf = nan;  // the lanes' other values are finite
    const auto step = [&](const D4v& x, D4v& sum, D4v& low, D4v& high) {
        const M4v is_finite = (x - x) == zero;
        nan -= x != x;
        posinf -= x == pinf;
        neginf -= x == -pinf;
        low = x < low ? x : low;
        high = x > high ? x : high;
        sum += is_finite ? x : zero;
    };
    std::size_t i = 0;
    D4v x0, x1;
    for (; i + 8 <= n; i += 8) {
        load(p + i, x0);
        load(p + i + 4, x1);
        step(x0, s0, lo0, hi0);
        step(x1, s1, lo1, hi1);
    }
    for (std::size_t k = 0; k < 4; ++k) {
        b.lo = lo0[k] < b.lo ? lo0[k] : b.lo;
        b.lo = lo1[k] < b.lo ? lo1[k] : b.lo;
        b.hi = hi0[k] > b.hi ? hi0[k] : b.hi;
        b.hi = hi1[k] > b.hi ? hi1[k] : b.hi;
    }
    b.nan = lanes_total(nan), b.posinf = lanes_total(posinf), b.neginf = lanes_total(neginf);
    b.finite = static_cast<std::int64_t>(i) - b.nan - b.posinf - b.neginf;
    double rest = 0;
    for (; i < n; ++i) {
        const double x = p[i];
        const bool finite = x - x == 0;
        b.nan += x != x;
        b.posinf += x == inf;
        b.neginf += x == -inf;
        b.finite += finite;
        rest += finite ? x : 0.0;
        b.lo = x < b.lo ? x : b.lo;
        b.hi = x > b.hi ? x : b.hi;
    }
    b.sum = total(s0, s1) + rest;
    return b;
}

[[gnu::always_inline]] inline double squared_deviations_of(const double* p, std::size_t n, double mean) {
    const D4v zero = D4v{} * 0, m = zero + mean;
    D4v s0 = zero, s1 = zero;
    const auto add = [&](const D4v& x, D4v& sum) {
        const D4v d = x - m;
        sum += (x - x) == zero ? d * d : zero;
    };
    std::size_t i = 0;
    D4v x0, x1;
    for (; i + 8 <= n; i += 8) {
        load(p + i, x0);
        load(p + i + 4, x1);
        add(x0, s0);
        add(x1, s1);
    }
    double rest = 0;
    for (; i < n; ++i) {
        const double x = p[i], d = x - mean;
        rest += x - x == 0 ? d * d : 0.0;
    }
    return total(s0, s1) + rest;
}

}  // namespace

TSLICE_CLONES Float64Block sums(const double* p, std::size_t n) { return sums_of(p, n); }
TSLICE_CLONES double squared_deviations(const double* p, std::size_t n, double mean) {
    return squared_deviations_of(p, n, mean);
}

}  // namespace tslice::stats_kernels
