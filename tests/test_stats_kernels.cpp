// The statistics' vector loops against the plain loop, for float32 and float64: every length
// around the vector and step widths, every offset of the start, values with NaNs, both
// infinities and both zeros. Counts and extremes are exact; the sums, added in another order,
// agree to rounding.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "library_internals.hpp"

using namespace tslice;

namespace {

template <class T>
struct Plain {
    long double sum = 0, squares = 0;
    std::int64_t finite = 0, nan = 0, posinf = 0, neginf = 0;
    T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
};

template <class T>
Plain<T> plain(const T* p, std::size_t n, double mean) {
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
        out.sum += x;
        out.squares += (static_cast<long double>(x) - mean) * (static_cast<long double>(x) - mean);
    }
    return out;
}

template <class T>
void check_against_plain(int mix) {
    std::mt19937_64 random(20 + mix);
    std::vector<T> values(2048 + 8);
    for (T& x : values) {
        const int r = static_cast<int>(random() % 100);
        const T ordinary = static_cast<T>(std::ldexp(static_cast<double>(random() % 20001) - 10000, -8));
        if (mix == 0) x = ordinary;
        else if (r < 8) x = std::numeric_limits<T>::quiet_NaN();
        else if (r < 12) x = std::numeric_limits<T>::infinity();
        else if (r < 16) x = -std::numeric_limits<T>::infinity();
        else if (r < 24) x = r % 2 ? T(0) : -T(0);
        else x = ordinary;
    }
    for (std::size_t n = 0; n <= 2048; n += n < 80 ? 1 : 61) {
        for (std::size_t offset = 0; offset < 8; offset += 3) {
            CAPTURE(n);
            CAPTURE(offset);
            const T* p = values.data() + offset;
            const stats_kernels::Block<T> got = stats_kernels::sums(p, n);
            const double mean = got.finite > 0 ? got.sum / static_cast<double>(got.finite) : 0.0;
            const Plain<T> want = plain(p, n, mean);
            CHECK(got.finite == want.finite);
            CHECK(got.nan == want.nan);
            CHECK(got.posinf == want.posinf);
            CHECK(got.neginf == want.neginf);
            CHECK(got.lo == want.lo);
            CHECK(got.hi == want.hi);
            CHECK(std::fabs(got.sum - static_cast<double>(want.sum)) <= 1e-12 * (1 + std::fabs(static_cast<double>(want.sum))));
            const double squares = stats_kernels::squared_deviations(p, n, mean);
            CHECK(std::fabs(squares - static_cast<double>(want.squares)) <=
                  1e-12 * (1 + static_cast<double>(want.squares)));
        }
    }
}

}  // namespace

TEST_CASE("stats kernels: float32 blocks agree with the plain loop") {
    check_against_plain<float>(0);
    check_against_plain<float>(1);
}

TEST_CASE("stats kernels: float64 blocks agree with the plain loop") {
    check_against_plain<double>(0);
    check_against_plain<double>(1);
}
