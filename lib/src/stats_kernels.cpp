// stats_kernels.hpp, with GCC's vector extensions: eight values a step, in float64 partial sums
// (two vectors of four) and vector min and max. A lane's order of additions is fixed, so
// the AVX2 and baseline builds give the same bits.
#include "stats_kernels.hpp"

#include <cstring>

// The 32-byte vectors never cross a call that is not inlined here, so the note that passing
// them changes the ABI without AVX concerns nothing.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tslice::stats_kernels {
namespace {

typedef float F8v __attribute__((vector_size(32)));
typedef float F4v __attribute__((vector_size(16)));
typedef double D4v __attribute__((vector_size(32)));

#define TSLICE_CLONES [[gnu::target_clones("avx2", "default")]]

inline F8v load8(const float* p) {
    F8v v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline D4v load4(const double* p) {
    D4v v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline D4v low_half(F8v v) { return __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3), D4v); }
inline D4v high_half(F8v v) { return __builtin_convertvector(__builtin_shufflevector(v, v, 4, 5, 6, 7), D4v); }
inline double total(D4v a, D4v b) { return ((a[0] + b[0]) + (a[1] + b[1])) + ((a[2] + b[2]) + (a[3] + b[3])); }

}  // namespace

TSLICE_CLONES double sum_min_max(const float* p, std::size_t n, float& lo, float& hi) {
    D4v s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
    float l = p[0], h = p[0];
    std::size_t i = 0;
    if (n >= 8) {
        F8v vl = load8(p), vh = vl;
        for (; i + 8 <= n; i += 8) {
            const F8v x = load8(p + i);
            vl = x < vl ? x : vl;
            vh = x > vh ? x : vh;
            s0 += low_half(x);
            s1 += high_half(x);
        }
        for (int k = 0; k < 8; ++k) {
            l = vl[k] < l ? vl[k] : l;
            h = vh[k] > h ? vh[k] : h;
        }
    }
    double rest = 0;
    for (; i < n; ++i) {
        rest += static_cast<double>(p[i]);
        l = p[i] < l ? p[i] : l;
        h = p[i] > h ? p[i] : h;
    }
    lo = l, hi = h;
    return total(s0, s1) + rest;
}

TSLICE_CLONES double sum_min_max(const double* p, std::size_t n, double& lo, double& hi) {
    D4v s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
    double l = p[0], h = p[0];
    std::size_t i = 0;
    if (n >= 8) {
        D4v l0 = load4(p), l1 = l0, h0 = l0, h1 = l0;
        for (; i + 8 <= n; i += 8) {
            const D4v a = load4(p + i), b = load4(p + i + 4);
            l0 = a < l0 ? a : l0;
            l1 = b < l1 ? b : l1;
            h0 = a > h0 ? a : h0;
            h1 = b > h1 ? b : h1;
            s0 += a;
            s1 += b;
        }
        for (int k = 0; k < 4; ++k) {
            l = l0[k] < l ? l0[k] : l;
            l = l1[k] < l ? l1[k] : l;
            h = h0[k] > h ? h0[k] : h;
            h = h1[k] > h ? h1[k] : h;
        }
    }
    double rest = 0;
    for (; i < n; ++i) {
        rest += p[i];
        l = p[i] < l ? p[i] : l;
        h = p[i] > h ? p[i] : h;
    }
    lo = l, hi = h;
    return total(s0, s1) + rest;
}

TSLICE_CLONES double squared_deviations(const float* p, std::size_t n, double mean) {
    const D4v m = {mean, mean, mean, mean};
    D4v s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const F8v x = load8(p + i);
        const D4v a = low_half(x) - m, b = high_half(x) - m;
        s0 += a * a;
        s1 += b * b;
    }
    double rest = 0;
    for (; i < n; ++i) {
        const double d = static_cast<double>(p[i]) - mean;
        rest += d * d;
    }
    return total(s0, s1) + rest;
}

TSLICE_CLONES double squared_deviations(const double* p, std::size_t n, double mean) {
    const D4v m = {mean, mean, mean, mean};
    D4v s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const D4v a = load4(p + i) - m, b = load4(p + i + 4) - m;
        s0 += a * a;
        s1 += b * b;
    }
    double rest = 0;
    for (; i < n; ++i) {
        const double d = p[i] - mean;
        rest += d * d;
    }
    return total(s0, s1) + rest;
}

}  // namespace tslice::stats_kernels
