// --astype's conversions and --stats' reduction, in process: float to integer defined for
// every value (NaN, infinities, out of range; run under UBSan too), every kernel against the
// element-by-element path (the F16C and lookup kernels, byte orders), the narrow codecs'
// corner cases, the names, and the statistics' accuracy over a large offset array and their
// independence of the thread count.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/half_float.hpp"
#include "library_internals.hpp"
#include "npy_fixture.hpp"
#include "values/narrow_floats.hpp"
#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/stats.hpp"
#include "tslice/text_values.hpp"
#include "tslice/write.hpp"

using namespace tslice;
using tslice_test::read_file;
using tslice_test::TempDir;

namespace {

template <class To, class From>
std::vector<To> convert(const std::vector<From>& in, const char* from, const char* to) {
    const Conversion conversion(parse_astype(from), parse_astype(to));
    const std::size_t count = in.size() * sizeof(From) / conversion.from_size();
    std::vector<To> out(count * conversion.to_size() / sizeof(To));
    conversion.run(reinterpret_cast<const std::byte*>(in.data()), reinterpret_cast<std::byte*>(out.data()),
                   static_cast<std::int64_t>(count));
    return out;
}

}  // namespace

TEST_CASE("convert: float to integer is defined for NaN, infinities and values out of range") {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> in = {nan, inf, -inf, 1e300, -1e300, 9.3e18, 1.8e19, -3.7, 3.9, 300.0, -1.0};
    const auto i8 = convert<std::int64_t>(in, "f8", "i8");
    CHECK(i8[0] == std::numeric_limits<std::int64_t>::min());
    CHECK(i8[1] == std::numeric_limits<std::int64_t>::min());
    CHECK(i8[3] == std::numeric_limits<std::int64_t>::min());
    CHECK(i8[7] == -3);
    CHECK(i8[8] == 3);
    const auto u8 = convert<std::uint64_t>(in, "f8", "u8");
    CHECK(u8[6] == 18000000000000000000ull);
    CHECK(u8[10] == std::numeric_limits<std::uint64_t>::max());  // numpy's -1.0 -> uint64 on x86
    const auto i1 = convert<std::int8_t>(in, "f8", "i1");
    CHECK(i1[9] == 44);  // 300 keeps its low byte, as numpy's cast does
    CHECK(i1[0] == 0);
    const std::vector<float> f = {std::nanf(""), 3e38f, -2.5f};
    CHECK(convert<std::int32_t>(f, "f4", "i4")[2] == -2);
    CHECK(convert<std::uint8_t>(f, "f4", "u1")[0] == 0);
}

TEST_CASE("convert: integers wrap, bool is nonzero, complex keeps its real part") {
    CHECK(convert<std::uint8_t>(std::vector<std::int32_t>{-1, 256, 257}, "i4", "u1") == std::vector<std::uint8_t>{255, 0, 1});
    CHECK(convert<std::uint8_t>(std::vector<double>{0.0, -0.0, 0.1, std::nan("")}, "f8", "bool") ==
          std::vector<std::uint8_t>{0, 0, 1, 1});
    const std::vector<float> complex = {1.5f, -2.0f, 0.0f, 3.0f};  // two complex64
    CHECK(convert<double>(complex, "c8", "f8") == std::vector<double>{1.5, 0.0});
    CHECK(convert<std::uint8_t>(complex, "c8", "bool") == std::vector<std::uint8_t>{1, 1});
}

TEST_CASE("convert: byte orders turned around the kernel, complex parts each on their own") {
    const std::vector<float> in = {1.0f, -2.0f};
    const auto big = convert<std::uint32_t>(in, "<f4", ">f4");
    std::uint32_t one;
    std::memcpy(&one, &in[0], 4);
    CHECK(big[0] == __builtin_bswap32(one));
    CHECK(convert<double>(convert<std::uint32_t>(in, "<f4", ">f4"), ">f4", "f8") == std::vector<double>{1.0, -2.0});
    const auto cbig = convert<std::uint32_t>(in, "<c8", ">c8");  // one complex: two floats, each swapped
    CHECK(cbig[0] == __builtin_bswap32(one));
}

TEST_CASE("convert: float32 <-> float16 kernels agree with the element path over many values") {
    std::mt19937 rng(7);
    std::vector<std::uint32_t> bits(100003);
    for (auto& b : bits) b = static_cast<std::uint32_t>(rng());
    std::vector<float> f(bits.size());
    std::memcpy(f.data(), bits.data(), bits.size() * 4);
    const auto h = convert<std::uint16_t>(f, "f4", "f2");
    for (std::size_t i = 0; i < f.size(); ++i) {
        if (std::isnan(f[i])) continue;
        const auto reference = static_cast<_Float16>(f[i]);
        std::uint16_t want;
        std::memcpy(&want, &reference, 2);
        REQUIRE(h[i] == want);
    }
    const auto back = convert<float>(h, "f2", "f4");
    for (std::size_t i = 0; i < h.size(); ++i) {
        _Float16 half;
        std::memcpy(&half, &h[i], 2);
        if (!std::isnan(static_cast<float>(half))) REQUIRE(back[i] == static_cast<float>(half));
    }
}

TEST_CASE("narrow: float8 corner cases") {
    using narrow::F8;
    CHECK(narrow::f8_from_double(F8::E4M3, 448) == 0x7E);
    CHECK(narrow::f8_from_double(F8::E4M3, 464) == 0x7E);  // the tie goes to the even code
    CHECK(narrow::f8_from_double(F8::E4M3, 465) == 0x7F);  // past it: NaN, e4m3fn has no inf
    CHECK(narrow::f8_from_double(F8::E4M3, -0.0) == 0x80);
    CHECK(narrow::f8_from_double(F8::E4M3, std::ldexp(1.0, -10)) == 0x00);  // half the least: tie to 0
    CHECK(narrow::f8_from_double(F8::E5M2, 61440) == 0x7C);  // overflow: inf
    CHECK(narrow::f8_from_double(F8::E5M2, 57344) == 0x7B);
    CHECK(narrow::f8_from_double(F8::E8M0, 0) == 0x00);
    CHECK(narrow::f8_from_double(F8::E8M0, -1) == 0xFF);
    CHECK(narrow::f8_from_double(F8::E8M0, 1.5) == 0x80);  // 1.5 ties: to the even code, 2.0
    CHECK(narrow::f8_from_double(F8::E8M0, 3.0) == 0x80);  // 1.5 * 2: the even code is 2.0's
    CHECK(narrow::f8_from_double(F8::E8M0, 1.25) == 0x7F);
    CHECK(narrow::f8_to_float(F8::E8M0, 0) == std::ldexp(1.0f, -127));
    CHECK(std::isnan(narrow::f8_to_float(F8::E8M0, 0xFF)));
    CHECK(narrow::bf16_from_float(std::numeric_limits<float>::max()) == 0x7F80);  // rounds to inf
    CHECK(narrow::bf16_from_float(-std::nanf("")) == 0xFFC0);
}

TEST_CASE("astype names: numpy's names and codes, narrow floats; anything else is Error(Usage)") {
    CHECK(parse_astype("float32").name() == "<f4");
    CHECK(parse_astype(">i2").name() == ">i2");
    CHECK(parse_astype("|u1").name() == "|u1");
    CHECK(parse_astype(">u1").name() == "|u1");
    CHECK(parse_astype("?").name() == "|b1");
    CHECK(parse_astype("b").name() == "|i1");
    CHECK(parse_astype("c8").name() == "<c8");
    CHECK(parse_astype("bf16").name() == "BF16");
    CHECK(parse_astype("float8_e8m0fnu").name() == "F8_E8M0");
    for (const char* bad : {"", "f3", "float33", ">float32", "S3", "U", "M8[s]", "object", "<V4", "bfloat"}) {
        try {
            parse_astype(bad);
            FAIL("accepted " << bad);
        } catch (const Error& error) {
            CHECK(error.kind() == ErrorKind::Usage);
            CHECK(std::string(error.what()).find("float8_e4m3fn") != std::string::npos);
        }
    }
}

TEST_CASE("stats: accurate over an offset array, the same digits on any thread count") {
    // 1e8 plus a small pattern: a sum of squares in float64 loses every digit of the std.
    const std::int64_t n = 5'000'000;
    std::vector<double> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = 1e8 + static_cast<double>(i % 7) * 1e-3;
    const ElementType type = parse_astype("f8");
    const View view = View::contiguous({n}, 8);
    const auto* data = reinterpret_cast<const std::byte*>(values.data());
    const ArrayStats one = compute_stats(data, view, type, std::nullopt, {}, 1);
    const ArrayStats four = compute_stats(data, view, type, std::nullopt, {}, 4);
    // The mean and std of the values as stored, in long double, two passes over deviations
    // from 1e8 (exact in double), which hold them exactly.
    long double sum = 0, sq = 0;
    for (const double v : values) sum += static_cast<long double>(v - 1e8);
    const long double mean = sum / n;
    for (const double v : values) sq += (static_cast<long double>(v - 1e8) - mean) * (static_cast<long double>(v - 1e8) - mean);
    const double std_exact = static_cast<double>(std::sqrt(sq / n));
    CHECK(std::fabs(*one.mean - static_cast<double>(1e8L + mean)) <= 1e-12 * 1e8);
    INFO("std ", *one.std, " exact ", std_exact);
    // The spread is 1e-11 of the values: relative to the values, the std is within 1e-12.
    CHECK(std::fabs(*one.std - std_exact) <= 1e-12 * 1e8);
    CHECK(std::fabs(*one.std - std_exact) <= 1e-9 * std_exact);
    CHECK(*one.mean == *four.mean);
    CHECK(*one.std == *four.std);
    CHECK(one.count == n);
}

TEST_CASE("stats: float32 in one pass, accurate over an offset, a trend and a jump, with NaNs") {
    // Deviations from the block before: an offset large beside the spread, a trend that moves
    // each block's mean away from the last's, a jump of 1e7 between two halves, NaNs.
    const std::int64_t n = 3'000'000;
    std::vector<float> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const double trend = static_cast<double>(i) * 1e-3, pattern = static_cast<double>(i % 7) * 0.25;
        values[static_cast<std::size_t>(i)] =
            i % 1000 == 3 ? std::nanf("") : static_cast<float>(1e6 + pattern + trend + (i >= n / 2 ? 1e7 : 0.0));
    }
    long double sum = 0, sq = 0;
    std::int64_t finite = 0;
    for (const float v : values)
        if (!std::isnan(v)) sum += v, ++finite;
    const long double mean = sum / finite;
    for (const float v : values)
        if (!std::isnan(v)) sq += (v - mean) * (v - mean);
    const double std_exact = static_cast<double>(std::sqrt(sq / finite));
    const auto* data = reinterpret_cast<const std::byte*>(values.data());
    for (const unsigned threads : {1u, 2u}) {
        const ArrayStats s = compute_stats(data, View::contiguous({n}, 4), parse_astype("f4"), std::nullopt, {}, threads);
        CHECK(s.nan == n / 1000);
        CHECK(std::fabs(*s.mean - static_cast<double>(mean)) <= 1e-12 * static_cast<double>(mean));
        CHECK(std::fabs(*s.std - std_exact) <= 1e-12 * std_exact);
    }
}

TEST_CASE("stats: integers' extremes exact, empty and all-NaN have none") {
    const std::vector<std::int64_t> big = {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), 5};
    const ArrayStats s = compute_stats(reinterpret_cast<const std::byte*>(big.data()), View::contiguous({3}, 8),
                                       parse_astype("i8"));
    CHECK(std::get<std::int64_t>(*s.max) == std::numeric_limits<std::int64_t>::max());
    CHECK(std::get<std::int64_t>(*s.min) == std::numeric_limits<std::int64_t>::min());
    const std::vector<float> nans = {std::nanf(""), std::nanf("")};
    const ArrayStats n = compute_stats(reinterpret_cast<const std::byte*>(nans.data()), View::contiguous({2}, 4),
                                       parse_astype("f4"));
    CHECK(n.nan == 2);
    CHECK(!n.min);
    CHECK(!n.mean);
    CHECK(stats_json(n, std::nullopt, parse_astype("f4"), {2}).find("\"mean\": null") != std::string::npos);
    const ArrayStats e = compute_stats(nullptr, View::contiguous({0}, 4), parse_astype("f4"));
    CHECK(e.count == 0);
    CHECK(!e.std);
    CHECK_THROWS_AS(check_stats_type(parse_astype("c8")), Error);
}

TEST_CASE("convert: outputs of 8 MiB and more, written with streaming stores, agree with the codecs and with pieces") {
    // Past the size from which the narrowing kernels stream their stores, from an odd start in
    // the output (the elements before its first 32-byte boundary go one by one).
    std::mt19937 rng(12);
    const std::size_t count = (std::size_t{8} << 20) + 37;
    std::vector<std::uint32_t> bits(count);
    for (auto& b : bits) b = static_cast<std::uint32_t>(rng());
    const auto* src = reinterpret_cast<const std::byte*>(bits.data());
    std::vector<std::uint16_t> bf16(count + 1);
    std::vector<std::uint8_t> e4m3(count + 3);
    Conversion(parse_astype("f4"), parse_astype("bf16")).run(src, reinterpret_cast<std::byte*>(bf16.data() + 1), count);
    Conversion(parse_astype("f4"), parse_astype("f8_e4m3")).run(src, reinterpret_cast<std::byte*>(e4m3.data() + 3), count);
    std::size_t wrong_bf16 = 0, wrong_e4m3 = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const float f = std::bit_cast<float>(bits[i]);
        wrong_bf16 += bf16[i + 1] != narrow::bf16_from_float(f);
        wrong_e4m3 += e4m3[i + 3] != narrow::f8_from_double(narrow::F8::E4M3, f);
    }
    CHECK(wrong_bf16 == 0);
    CHECK(wrong_e4m3 == 0);
    // Every narrowing kernel that streams: the same bytes as converted in pieces too small to.
    for (const auto& [from, to] : {std::pair{"f4", "f2"}, std::pair{"f8", "f4"}, std::pair{"f4", "bf16"},
                                   std::pair{"f4", "f8_e5m2"}}) {
        CAPTURE(from);
        CAPTURE(to);
        const Conversion conversion(parse_astype(from), parse_astype(to));
        const std::size_t n = (std::size_t{8} << 20) / conversion.to_size() + 37;
        std::vector<std::byte> in(n * conversion.from_size());
        for (std::size_t k = 0; k < in.size(); k += 4) {
            const auto r = static_cast<std::uint32_t>(rng());
            std::memcpy(in.data() + k, &r, 4);
        }
        // One element in: aligned to elements, not to a streaming store.
        std::vector<std::byte> whole((n + 1) * conversion.to_size()), pieces(n * conversion.to_size());
        conversion.run(in.data(), whole.data() + conversion.to_size(), static_cast<std::int64_t>(n));
        constexpr std::size_t kPiece = 65536;
        for (std::size_t k = 0; k < n; k += kPiece)
            conversion.run(in.data() + k * conversion.from_size(), pieces.data() + k * conversion.to_size(),
                           static_cast<std::int64_t>(std::min(kPiece, n - k)));
        CHECK(std::memcmp(whole.data() + conversion.to_size(), pieces.data(), pieces.size()) == 0);
    }
}

TEST_CASE("convert: the SIMD kernels (float32 -> bfloat16, float8; float8 -> float16) agree with the codecs") {
    std::mt19937 rng(11);
    // Random bits: every class of value (NaN, infinities, subnormals), and lengths with tails.
    for (const std::size_t count : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{100003}}) {
        std::vector<std::uint32_t> bits(count);
        for (auto& b : bits) b = static_cast<std::uint32_t>(rng());
        std::vector<float> f(count);
        std::memcpy(f.data(), bits.data(), count * 4);
        const auto bf16 = convert<std::uint16_t>(f, "f4", "bf16");
        const auto e4m3 = convert<std::uint8_t>(f, "f4", "f8_e4m3");
        const auto e5m2 = convert<std::uint8_t>(f, "f4", "f8_e5m2");
        for (std::size_t i = 0; i < count; ++i) {
            REQUIRE(bf16[i] == narrow::bf16_from_float(f[i]));
            REQUIRE(e4m3[i] == narrow::f8_from_double(narrow::F8::E4M3, f[i]));
            if (std::isnan(f[i])) REQUIRE(std::isnan(narrow::f8_to_float(narrow::F8::E5M2, e5m2[i])));
            else REQUIRE(e5m2[i] == narrow::f8_from_double(narrow::F8::E5M2, f[i]));
        }
        std::vector<std::uint8_t> codes(count);
        for (auto& c : codes) c = static_cast<std::uint8_t>(rng());
        for (const auto& [name, format] : {std::pair{"f8_e4m3", narrow::F8::E4M3}, std::pair{"f8_e5m2", narrow::F8::E5M2}}) {
            const auto halves = convert<std::uint16_t>(codes, name, "f2");
            for (std::size_t i = 0; i < count; ++i) {
                _Float16 h;
                std::memcpy(&h, &halves[i], 2);
                const float want = narrow::f8_to_float(format, codes[i]);
                // The same bits as the table of the element path: NaNs too (quiet, signed).
                if (std::isnan(want)) {
                    REQUIRE((halves[i] & 0x7fff) == 0x7e00);
                    REQUIRE((halves[i] >> 15) == (std::signbit(want) ? 1 : 0));
                } else {
                    REQUIRE(static_cast<float>(h) == want);
                }
            }
        }
        std::vector<double> d(count);
        for (auto& v : d) v = std::ldexp(static_cast<double>(rng()) - 2147483648.0, static_cast<int>(rng() % 300) - 150);
        const auto narrowed = convert<float>(d, "f8", "f4");
        for (std::size_t i = 0; i < count; ++i) REQUIRE(narrowed[i] == static_cast<float>(d[i]));
    }
}

TEST_CASE("double_to_half_bits rounds as the compiler's float16 does, for the builds without one") {
    // Half falls back on double_to_half_bits where the compiler has no _Float16 (clang 14):
    // it must give the bits GCC's conversion gives, edge by edge and at random.
    const auto bits_of = [](double value) {
#if defined(__FLT16_MAX__)
        return std::bit_cast<std::uint16_t>(static_cast<_Float16>(value));
#else
        return double_to_half_bits(value);
#endif
    };
    std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, 1e6, -1e300,
                                  std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                  std::ldexp(1.0, -24), std::ldexp(1.0, -25), std::ldexp(1.5, -25), std::ldexp(1.0, -26),
                                  std::ldexp(1.0, -14), std::ldexp(1023.5, -24), std::ldexp(1.0, -1074), 2049.0, 2051.0,
                                  1.0 + std::ldexp(1.0, -11), 1.0 + std::ldexp(3.0, -11)};
    std::mt19937_64 rng(20261127);
    for (int i = 0; i < 200000; ++i) {
        // Doubles near the half range's every exponent, with random mantissas (halfway cases too).
        const int exponent = static_cast<int>(rng() % 48) - 30;
        const double mantissa = 1.0 + static_cast<double>(rng() >> 11) * std::ldexp(1.0, -53);
        const double value = std::ldexp(mantissa, exponent) * (rng() % 2 ? 1 : -1);
        values.push_back(value);
        values.push_back(std::ldexp(std::round(std::ldexp(value, 12)) + 0.5, -12));
    }
    for (const double value : values) {
        CAPTURE(value);
        CHECK(double_to_half_bits(value) == bits_of(value));
    }
    // NaN stays NaN, sign kept.
    CHECK((double_to_half_bits(std::numeric_limits<double>::quiet_NaN()) & 0x7E00) == 0x7E00);
    CHECK((double_to_half_bits(-std::numeric_limits<double>::quiet_NaN()) & 0x8000) == 0x8000);
}

TEST_CASE("text with --astype: converted chunk by chunk, the same text as the converted result's") {
    // float64 walked backwards, every other element, to float32 and to int16: many chunks of
    // a test's 4 KiB, none converted whole.
    const std::int64_t n = 24000;
    std::vector<double> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = std::sin(static_cast<double>(i)) * 1e4;
    View view = View::contiguous({n / 2}, 8);
    view.byte_offset = (n - 1) * 8;
    view.byte_strides = {-16};
    const auto* data = reinterpret_cast<const std::byte*>(values.data());
    TempDir dir;
    for (const char* target : {"f4", ">i2", "bf16"}) {
        for (const TextFormat format : {TextFormat::Json, TextFormat::Csv}) {
            CAPTURE(target);
            const ElementType to = parse_astype(target);
            const Conversion conversion(parse_astype("f8"), to);
            set_read_chunk_for_tests(4096);
            write_values_as_text((dir.path / "streamed").string(), format, data, view, to, {}, {}, &conversion);
            set_read_chunk_for_tests(0);
            const std::vector<std::byte> whole = convert_view(data, view, conversion);
            write_values_as_text((dir.path / "whole").string(), format, whole.data(),
                                 View::contiguous(view.shape, to.itemsize()), to);
            const std::string streamed = read_file(dir.path / "streamed");
            CHECK(streamed.size() > 4 * 4096);
            CHECK(streamed == read_file(dir.path / "whole"));
        }
    }
}

TEST_CASE("write_view_converted: every element of chunks of several parts, on any thread count") {
    // 1,000,000 float32 (4 MB, past the size that starts threads) to bfloat16: chunks that a
    // conversion may split into parts, also reversed so that the reader copies them; the file
    // holds each element's code, in order.
    const std::int64_t n = 1000000;
    std::vector<float> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = static_cast<float>(i) * 0.37f - 5e4f;
    View reversed = View::contiguous({n}, 4);
    reversed.byte_offset = (n - 1) * 4;
    reversed.byte_strides = {-4};
    const auto* data = reinterpret_cast<const std::byte*>(values.data());
    TempDir dir;
    for (const View& view : {View::contiguous({n}, 4), reversed}) {
        for (const unsigned threads : {1u, 2u}) {
            CAPTURE(threads);
            WriteOptions options;
            options.threads = threads;
            const std::string path = (dir.path / "out.bin").string();
            write_view_converted(path, OutputFraming{"", 0, {}}, data, view, {}, options,
                                 Conversion(parse_astype("f4"), parse_astype("bf16")));
            const std::string bytes = read_file(path);
            REQUIRE(bytes.size() == static_cast<std::size_t>(2 * n));
            std::int64_t wrong = 0;
            for (std::int64_t i = 0; i < n; ++i) {
                const std::int64_t source = view.byte_strides[0] < 0 ? n - 1 - i : i;
                std::uint16_t got;
                std::memcpy(&got, bytes.data() + 2 * i, 2);
                wrong += got != narrow::bf16_from_float(values[static_cast<std::size_t>(source)]);
            }
            CHECK(wrong == 0);
        }
    }
}
