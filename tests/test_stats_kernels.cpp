// The statistics' vector loops against the plain loop: every length around the vector and
// step widths, every offset of the start, values with NaNs, both infinities and both zeros.
// Counts and extremes are exact; the sums, added in another order, agree to rounding. Each
// float32 kernel (the portable one, AVX2 where the CPU has it) keeps the same lanes, so the
// same signs of zero extremes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "library_internals.hpp"
#include "machine_skips.hpp"

using namespace tslice;

namespace {

template <class T>
struct Plain {
    long double sum = 0, squares = 0;
    std::int64_t finite = 0, nan = 0, posinf = 0, neginf = 0;
    T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
};

// The sums of x - shift and of (x - shift)^2 over the finite values, in long double.
template <class T>
Plain<T> plain(const T* p, std::size_t n, long double shift) {
    Plain<T> out;
    for (std::size_t i = 0; i < n; ++i) {
        const T x = p[i];
        if (std::isnan(x)) {
            ++out.nan;
            continue;
        }
        out.lo = std::min(out.lo, x);
        out.hi = std::max(out.hi, x);
        if (std::isinf(x)) {
            ++(x > 0 ? out.posinf : out.neginf);
            continue;
        }
        ++out.finite;
        out.sum += static_cast<long double>(x) - shift;
        out.squares += (static_cast<long double>(x) - shift) * (static_cast<long double>(x) - shift);
    }
    return out;
}

template <class T>
std::vector<T> mixed_values(int mix, double scale) {
    std::mt19937_64 random(20 + mix);
    std::vector<T> values(2048 + 8);
    for (T& x : values) {
        const int r = static_cast<int>(random() % 100);
        const T ordinary = static_cast<T>(scale * std::ldexp(static_cast<double>(random() % 20001) - 10000, -8));
        if (mix == 0) x = ordinary;
        else if (r < 8) x = std::numeric_limits<T>::quiet_NaN();
        else if (r < 12) x = std::numeric_limits<T>::infinity();
        else if (r < 16) x = -std::numeric_limits<T>::infinity();
        else if (r < 24) x = r % 2 ? T(0) : -T(0);
        else x = ordinary;
    }
    return values;
}

template <class Block, class Want>
void check_counts(const Block& got, const Want& want) {
    CHECK(got.finite == want.finite);
    CHECK(got.nan == want.nan);
    CHECK(got.posinf == want.posinf);
    CHECK(got.neginf == want.neginf);
    CHECK(got.lo == want.lo);
    CHECK(got.hi == want.hi);
}

bool close(double got, long double want, long double scale) {
    return std::fabs(static_cast<long double>(got) - want) <= 1e-12L * (1 + scale);
}

void check_float32(stats_kernels::Float32Kernel kernel, int mix, double scale, float shift) {
    const std::vector<float> values = mixed_values<float>(mix, scale);
    for (std::size_t n = 0; n <= 2048; n += n < 80 ? 1 : 61) {
        for (std::size_t offset = 0; offset < 8; offset += 3) {
            CAPTURE(n);
            CAPTURE(offset);
            const float* p = values.data() + offset;
            const stats_kernels::Float32Block got = kernel(p, n, shift);
            const Plain<float> want = plain(p, n, shift);
            check_counts(got, want);
            CHECK(close(got.shifted_sum, want.sum, std::fabs(want.sum)));
            CHECK(close(got.shifted_squares, want.squares, want.squares));
            const stats_kernels::Float32Block reference = stats_kernels::float32_portable(p, n, shift);
            CHECK(std::signbit(got.lo) == std::signbit(reference.lo));
            CHECK(std::signbit(got.hi) == std::signbit(reference.hi));
        }
    }
}

}  // namespace

constexpr const char* kNotRun = "this CPU does not run it, or TSLICE_KERNEL_CAP leaves it out";

TEST_CASE("stats kernels: float32 blocks agree with the plain loop, in every kernel") {
    std::vector<stats_kernels::Float32Kernel> kernels = {stats_kernels::float32_portable};
    if (const auto avx2 = stats_kernels::float32_avx2()) kernels.push_back(avx2);
    else machine_skips::skip("the AVX2 float32 stats kernel", kNotRun);
    if (const auto avx512 = stats_kernels::float32_avx512()) kernels.push_back(avx512);
    else machine_skips::skip("the AVX-512 float32 stats kernel", kNotRun);
    for (const auto kernel : kernels) {
        for (const int mix : {0, 1}) {
            check_float32(kernel, mix, 1, 0);
            check_float32(kernel, mix, 1, 3.25f);
            // A shift far from the values: the sums are large, and still to rounding.
            check_float32(kernel, mix, 1e30, -1e31f);
            check_float32(kernel, mix, 1e-30, 1e-29f);
        }
    }
}

TEST_CASE("stats kernels: float64 blocks agree with the plain loop") {
    for (const int mix : {0, 1}) {
        const std::vector<double> values = mixed_values<double>(mix, 1);
        for (std::size_t n = 0; n <= 2048; n += n < 80 ? 1 : 61) {
            for (std::size_t offset = 0; offset < 8; offset += 3) {
                CAPTURE(n);
                CAPTURE(offset);
                const double* p = values.data() + offset;
                const stats_kernels::Float64Block got = stats_kernels::sums(p, n);
                const double mean = got.finite > 0 ? got.sum / static_cast<double>(got.finite) : 0.0;
                const Plain<double> want = plain(p, n, mean);
                check_counts(got, want);
                CHECK(close(got.sum, want.sum + mean * want.finite, std::fabs(want.sum + mean * want.finite)));
                CHECK(close(stats_kernels::squared_deviations(p, n, mean), want.squares, want.squares));
            }
        }
    }
}

TEST_CASE("stats kernels: the AVX2 and AVX-512 float32 kernels give the same bits, infinities or not") {
    const auto avx2 = stats_kernels::float32_avx2();
    const auto avx512 = stats_kernels::float32_avx512();
    if (!avx2 || !avx512) return machine_skips::skip("AVX2 against AVX-512 float32 stats", kNotRun);
    for (const int mix : {0, 1}) {
        const std::vector<float> values = mixed_values<float>(mix, 1);
        for (std::size_t n = 0; n <= 2048; n += n < 80 ? 1 : 61) {
            CAPTURE(n);
            const stats_kernels::Float32Block a = avx2(values.data() + 1, n, 2.5f);
            const stats_kernels::Float32Block b = avx512(values.data() + 1, n, 2.5f);
            CHECK(std::memcmp(&a.shifted_sum, &b.shifted_sum, sizeof(double)) == 0);
            CHECK(std::memcmp(&a.shifted_squares, &b.shifted_squares, sizeof(double)) == 0);
            CHECK(a.finite == b.finite);
            CHECK(a.nan == b.nan);
            CHECK(a.posinf == b.posinf);
            CHECK(a.neginf == b.neginf);
        }
    }
}
