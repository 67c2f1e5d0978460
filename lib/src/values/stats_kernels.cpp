// stats_kernels.hpp, with GCC's vector extensions: eight values a step. A lane is finite when
// x - x == 0 (NaN and the infinities give NaN); the finite values go into float64 partial sums
// (two vectors of four), NaNs lose every comparison, so the extremes skip them, and the masks,
// -1 where true, count by subtraction.
#include "values/stats_kernels.hpp"

#include <cstring>
#include <limits>

// The 32-byte vectors never cross a call that is not inlined here, so the note that passing
// them changes the ABI without AVX concerns nothing. They go to the helpers by reference all
// the same: clang 14 refuses a 32-byte vector passed or returned by value in the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tslice::stats_kernels {
namespace {

typedef float F8v __attribute__((vector_size(32)));
typedef std::int32_t I8v __attribute__((vector_size(32)));
typedef double D4v __attribute__((vector_size(32)));
typedef std::int64_t L4v __attribute__((vector_size(32)));

#define TSLICE_CLONES [[gnu::target_clones("avx2", "default")]]

inline void load8(const float* p, F8v& v) { std::memcpy(&v, p, sizeof v); }
inline void load4(const double* p, D4v& v) { std::memcpy(&v, p, sizeof v); }
inline void add_low_half(const F8v& v, D4v& sum) {
    sum += __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3), D4v);
}
inline void add_high_half(const F8v& v, D4v& sum) {
    sum += __builtin_convertvector(__builtin_shufflevector(v, v, 4, 5, 6, 7), D4v);
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

}  // namespace

TSLICE_CLONES Block<float> sums(const float* p, std::size_t n) {
    const float inf = std::numeric_limits<float>::infinity();
    Block<float> b;
    b.lo = inf, b.hi = -inf;
    // Four float64 accumulators, sixteen values a step: the additions' latency, not their
    // count, bounds this loop.
    D4v s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
    const F8v pinf = {inf, inf, inf, inf, inf, inf, inf, inf};
    F8v lo = pinf, hi = -pinf;
    const F8v zero = {0, 0, 0, 0, 0, 0, 0, 0};
    I8v finite = {0, 0, 0, 0, 0, 0, 0, 0}, nan = finite, posinf = finite, neginf = finite;
    std::size_t i = 0;
    const auto step = [&](const F8v& x, D4v& a, D4v& b) {
        const I8v is_finite = (x - x) == zero;
        const F8v kept = is_finite ? x : zero;
        finite -= is_finite;
        nan -= x != x;
        posinf -= x == pinf;
        neginf -= x == -pinf;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        add_low_half(kept, a);
        add_high_half(kept, b);
    };
    F8v x0, x1;
    for (; i + 16 <= n; i += 16) {
        load8(p + i, x0);
        load8(p + i + 8, x1);
        step(x0, s0, s1);
        step(x1, s2, s3);
    }
    for (; i + 8 <= n; i += 8) {
        load8(p + i, x0);
        step(x0, s0, s1);
    }
    s0 += s2;
    s1 += s3;
    for (int k = 0; k < 8; ++k) {
        b.lo = lo[k] < b.lo ? lo[k] : b.lo;
        b.hi = hi[k] > b.hi ? hi[k] : b.hi;
    }
    b.finite = lanes_total(finite), b.nan = lanes_total(nan), b.posinf = lanes_total(posinf);
    b.neginf = lanes_total(neginf);
    double rest = 0;
    tail(p, i, n, b, rest);
    b.sum = total(s0, s1) + rest;
    return b;
}

TSLICE_CLONES Block<double> sums(const double* p, std::size_t n) {
    const double inf = std::numeric_limits<double>::infinity();
    Block<double> b;
    b.lo = inf, b.hi = -inf;
    const D4v zero = {0, 0, 0, 0}, pinf = {inf, inf, inf, inf};
    D4v s0 = zero, s1 = zero, lo0 = pinf, lo1 = pinf, hi0 = -pinf, hi1 = -pinf;
    L4v finite = {0, 0, 0, 0}, nan = finite, posinf = finite, neginf = finite;
    std::size_t i = 0;
    D4v a, c;
    for (; i + 8 <= n; i += 8) {
        load4(p + i, a);
        load4(p + i + 4, c);
        const L4v fa = (a - a) == zero, fc = (c - c) == zero;
        finite -= fa + fc;
        nan -= (a != a) + (c != c);
        posinf -= (a == pinf) + (c == pinf);
        neginf -= (a == -pinf) + (c == -pinf);
        lo0 = a < lo0 ? a : lo0;
        lo1 = c < lo1 ? c : lo1;
        hi0 = a > hi0 ? a : hi0;
        hi1 = c > hi1 ? c : hi1;
        s0 += fa ? a : zero;
        s1 += fc ? c : zero;
    }
    for (int k = 0; k < 4; ++k) {
        b.lo = lo0[k] < b.lo ? lo0[k] : b.lo;
        b.lo = lo1[k] < b.lo ? lo1[k] : b.lo;
        b.hi = hi0[k] > b.hi ? hi0[k] : b.hi;
        b.hi = hi1[k] > b.hi ? hi1[k] : b.hi;
    }
    b.finite = lanes_total(finite), b.nan = lanes_total(nan), b.posinf = lanes_total(posinf);
    b.neginf = lanes_total(neginf);
    double rest = 0;
    tail(p, i, n, b, rest);
    b.sum = total(s0, s1) + rest;
    return b;
}

TSLICE_CLONES double squared_deviations(const float* p, std::size_t n, double mean) {
    const D4v m = {mean, mean, mean, mean}, zero = {0, 0, 0, 0};
    D4v s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    std::size_t i = 0;
    const auto step = [&](const F8v& x, D4v& sa, D4v& sc) {
        D4v a = zero, c = zero;
        add_low_half(x, a);
        add_high_half(x, c);
        const D4v da = a - m, dc = c - m;
        sa += (a - a) == zero ? da * da : zero;
        sc += (c - c) == zero ? dc * dc : zero;
    };
    F8v x0, x1;
    for (; i + 16 <= n; i += 16) {
        load8(p + i, x0);
        load8(p + i + 8, x1);
        step(x0, s0, s1);
        step(x1, s2, s3);
    }
    for (; i + 8 <= n; i += 8) {
        load8(p + i, x0);
        step(x0, s0, s1);
    }
    s0 += s2;
    s1 += s3;
    double rest = 0;
    for (; i < n; ++i) {
        const double x = p[i], d = x - mean;
        rest += x - x == 0 ? d * d : 0.0;
    }
    return total(s0, s1) + rest;
}

TSLICE_CLONES double squared_deviations(const double* p, std::size_t n, double mean) {
    const D4v m = {mean, mean, mean, mean}, zero = {0, 0, 0, 0};
    D4v s0 = zero, s1 = zero;
    std::size_t i = 0;
    D4v a, c;
    for (; i + 8 <= n; i += 8) {
        load4(p + i, a);
        load4(p + i + 4, c);
        const D4v da = a - m, dc = c - m;
        s0 += (a - a) == zero ? da * da : zero;
        s1 += (c - c) == zero ? dc * dc : zero;
    }
    double rest = 0;
    for (; i < n; ++i) {
        const double d = p[i] - mean;
        rest += p[i] - p[i] == 0 ? d * d : 0.0;
    }
    return total(s0, s1) + rest;
}

}  // namespace tslice::stats_kernels
