// stats_kernels.hpp, with GCC's vector extensions: one template for float32 and float64, two
// 32-byte vectors a step. A lane is finite when x - x == 0 (NaN and the infinities give NaN);
// the finite values go into float64 partial sums (vectors of four), NaNs lose every
// comparison, so the extremes skip them, and the masks, -1 where true, count NaNs and
// infinities by subtraction (the finite are the values left).
#include "values/stats_kernels.hpp"

#include <cstring>
#include <limits>

// The 32-byte vectors never cross a call that is not inlined here, so the note that passing
// them changes the ABI without AVX concerns nothing. They go to the helpers by reference all
// the same: clang 14 refuses a 32-byte vector passed or returned by value in the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tslice::stats_kernels {
namespace {

typedef double D4v __attribute__((vector_size(32)));

// A 32-byte vector of T as the loops see it: float32 is eight values, each half widened to a
// float64 vector; float64 is four values, already one. Both loops take two vectors a step,
// so float32 sums into four float64 accumulators and float64 into two; float32 keeps its
// extremes in one vector, float64 in two (one per vector of the step). These layouts fix the
// order of every addition and comparison, so the bits of a result (a sum's rounding, the sign
// of a zero extreme): they are those of the loops written for each type before, kept so.
template <class T>
struct Lanes;

template <>
struct Lanes<float> {
    typedef float V __attribute__((vector_size(32)));
    typedef std::int32_t Mask __attribute__((vector_size(32)));
    static constexpr bool kWidened = true;
    static void widen(const V& v, D4v& low, D4v& high) {
        low = __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3), D4v);
        high = __builtin_convertvector(__builtin_shufflevector(v, v, 4, 5, 6, 7), D4v);
    }
};

template <>
struct Lanes<double> {
    typedef D4v V;
    typedef std::int64_t Mask __attribute__((vector_size(32)));
    static constexpr bool kWidened = false;
};

#define TSLICE_CLONES [[gnu::target_clones("avx2", "default")]]

template <class V>
inline void load(const void* p, V& v) {
    std::memcpy(&v, p, sizeof v);
}
inline double total(const D4v& a, const D4v& b) {
    return ((a[0] + b[0]) + (a[1] + b[1])) + ((a[2] + b[2]) + (a[3] + b[3]));
}
template <class V>
inline std::int64_t lanes_total(const V& v) {
    std::int64_t out = 0;
    for (std::size_t k = 0; k < sizeof(V) / sizeof(v[0]); ++k) out += v[k];
    return out;
}

// The scalar tail, as the lanes do it.
template <class T>
void tail(const T* p, std::size_t from, std::size_t n, Block<T>& b, double& rest) {
    const T inf = std::numeric_limits<T>::infinity();
    for (std::size_t i = from; i < n; ++i) {
        const T x = p[i];
        const bool finite = x - x == 0;
        b.nan += x != x;
        b.posinf += x == inf;
        b.neginf += x == -inf;
        b.finite += finite;
        rest += finite ? static_cast<double>(x) : 0.0;
        b.lo = x < b.lo ? x : b.lo;
        b.hi = x > b.hi ? x : b.hi;
    }
}

// Vectors of N values, two a step; float32 then takes one more vector before the scalar tail.
// The additions' latency, not their count, bounds these loops, hence the several accumulators.
// They are named, not in an array, so that the compiler keeps them in registers.
template <class T>
[[gnu::always_inline]] inline Block<T> sums_of(const T* p, std::size_t n) {
    using L = Lanes<T>;
    using V = typename L::V;
    using Mask = typename L::Mask;
    constexpr std::size_t N = sizeof(V) / sizeof(T);
    const T inf = std::numeric_limits<T>::infinity();
    Block<T> b;
    b.lo = inf, b.hi = -inf;
    const V zero = V{} * 0, pinf = zero + inf;
    D4v s0 = D4v{} * 0, s1 = s0, s2 = s0, s3 = s0;
    V lo0 = pinf, lo1 = pinf, hi0 = -pinf, hi1 = -pinf;
    Mask nan = Mask{} * 0, posinf = nan, neginf = nan;  // the lanes' other values are finite
    const auto step = [&](const V& x, D4v& sum, D4v& sum_high, V& low, V& high) {
        const Mask is_finite = (x - x) == zero;
        nan -= x != x;
        posinf -= x == pinf;
        neginf -= x == -pinf;
        low = x < low ? x : low;
        high = x > high ? x : high;
        if constexpr (L::kWidened) {
            D4v wide_low, wide_high;
            L::widen(is_finite ? x : zero, wide_low, wide_high);
            sum += wide_low;
            sum_high += wide_high;
        } else {
            sum += is_finite ? x : zero;
        }
    };
    std::size_t i = 0;
    V x0, x1;
    for (; i + 2 * N <= n; i += 2 * N) {
        load(p + i, x0);
        load(p + i + N, x1);
        step(x0, s0, s1, lo0, hi0);
        if constexpr (L::kWidened)
            step(x1, s2, s3, lo0, hi0);
        else
            step(x1, s1, s3, lo1, hi1);  // (s3 unused)
    }
    if constexpr (L::kWidened) {
        for (; i + N <= n; i += N) {
            load(p + i, x0);
            step(x0, s0, s1, lo0, hi0);
        }
        s0 += s2;
        s1 += s3;
    }
    for (std::size_t k = 0; k < N; ++k) {
        b.lo = lo0[k] < b.lo ? lo0[k] : b.lo;
        if constexpr (!L::kWidened) b.lo = lo1[k] < b.lo ? lo1[k] : b.lo;
        b.hi = hi0[k] > b.hi ? hi0[k] : b.hi;
        if constexpr (!L::kWidened) b.hi = hi1[k] > b.hi ? hi1[k] : b.hi;
    }
    b.nan = lanes_total(nan), b.posinf = lanes_total(posinf), b.neginf = lanes_total(neginf);
    b.finite = static_cast<std::int64_t>(i) - b.nan - b.posinf - b.neginf;
    double rest = 0;
    tail(p, i, n, b, rest);
    b.sum = total(s0, s1) + rest;
    return b;
}

template <class T>
[[gnu::always_inline]] inline double squared_deviations_of(const T* p, std::size_t n, double mean) {
    using L = Lanes<T>;
    using V = typename L::V;
    constexpr std::size_t N = sizeof(V) / sizeof(T);
    const D4v zero = D4v{} * 0, m = zero + mean;
    D4v s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    const auto add = [&](const D4v& x, D4v& sum) {
        const D4v d = x - m;
        sum += (x - x) == zero ? d * d : zero;
    };
    const auto step = [&](const V& x, D4v& sum, D4v& sum_high) {
        if constexpr (L::kWidened) {
            D4v low, high;
            L::widen(x, low, high);
            add(low, sum);
            add(high, sum_high);
        } else {
            add(x, sum);
        }
    };
    std::size_t i = 0;
    V x0, x1;
    for (; i + 2 * N <= n; i += 2 * N) {
        load(p + i, x0);
        load(p + i + N, x1);
        step(x0, s0, s1);
        if constexpr (L::kWidened)
            step(x1, s2, s3);
        else
            step(x1, s1, s3);  // (s3 unused)
    }
    if constexpr (L::kWidened) {
        for (; i + N <= n; i += N) {
            load(p + i, x0);
            step(x0, s0, s1);
        }
        s0 += s2;
        s1 += s3;
    }
    double rest = 0;
    for (; i < n; ++i) {
        const double x = p[i], d = x - mean;
        rest += x - x == 0 ? d * d : 0.0;
    }
    return total(s0, s1) + rest;
}

}  // namespace

TSLICE_CLONES Block<float> sums(const float* p, std::size_t n) { return sums_of(p, n); }
TSLICE_CLONES Block<double> sums(const double* p, std::size_t n) { return sums_of(p, n); }
TSLICE_CLONES double squared_deviations(const float* p, std::size_t n, double mean) {
    return squared_deviations_of(p, n, mean);
}
TSLICE_CLONES double squared_deviations(const double* p, std::size_t n, double mean) {
    return squared_deviations_of(p, n, mean);
}

}  // namespace tslice::stats_kernels
