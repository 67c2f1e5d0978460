// Golden tests of the printer: each expected text is what numpy 1.24.2's str() gave for the
// same bytes, dtype and view. The tables kCases and kBigCases (print_golden_cases.inc) and
// the structured cases' bytes and texts (below) are printed by
//   /usr/bin/python3 tests/differential/print_differential.py --emit-golden
// which lists the numpy arrays behind each case; add cases there and paste its output.
// The same script's default mode compares random arrays through the tslice binary.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/print.hpp"
#include "tslice/view.hpp"

using tslice::DType;
using tslice::View;

namespace {

// A simple DType from numpy's dtype.str ("<f8", "|b1", ">U3", "<M8[D]"), filled by hand so
// these tests do not depend on the .npy reader.
DType make_dtype(std::string_view str) {
    DType dtype;
    dtype.type_string = std::string(str);
    dtype.descr = "'" + dtype.type_string + "'";
    dtype.byte_order = str[0];
    dtype.kind = str[1];
    std::size_t k = 2, size = 0;
    while (k < str.size() && str[k] >= '0' && str[k] <= '9') size = size * 10 + static_cast<std::size_t>(str[k++] - '0');
    dtype.itemsize = dtype.kind == 'U' ? 4 * size : size;
    return dtype;
}

std::vector<std::byte> from_hex(std::string_view hex) {
    std::vector<std::byte> bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        bytes.push_back(static_cast<std::byte>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    return bytes;
}

View make_view(std::int64_t offset, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
               std::size_t itemsize) {
    View view;
    view.byte_offset = offset;
    view.shape = std::move(shape);
    view.byte_strides = std::move(strides);
    view.itemsize = itemsize;
    return view;
}

std::string print(const std::vector<std::byte>& bytes, const View& view, const DType& dtype) {
    return tslice::format_array(bytes.data(), view, dtype);
}

struct PrintCase {
    const char* name;
    const char* dtype;  // numpy's dtype.str
    const char* hex;    // the whole buffer the view looks into
    std::int64_t offset;
    std::vector<std::int64_t> shape, strides;
    const char* expected;
};

// Arrays over numpy's 1000-element threshold, viewing a buffer of arange(count): int64
// (squared if `square`) or float64 (divided by `divisor`).
struct BigCase {
    const char* name;
    const char* dtype;  // "<i8" or "<f8"
    std::int64_t count;
    int divisor;
    bool square;
    std::int64_t offset;
    std::vector<std::int64_t> shape, strides;
    const char* expected;
};

std::vector<std::byte> arange_bytes(const BigCase& c) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(c.count) * 8);
    for (std::int64_t i = 0; i < c.count; ++i) {
        if (std::string_view(c.dtype) == "<f8") {
            const double value = static_cast<double>(i) / c.divisor;
            std::memcpy(bytes.data() + 8 * i, &value, 8);
        } else {
            const std::int64_t value = c.square ? i * i : i;
            std::memcpy(bytes.data() + 8 * i, &value, 8);
        }
    }
    return bytes;
}

// kCases and kBigCases, generated (see the top of this file).
#include "print_golden_cases.inc"

std::shared_ptr<const DType> type_of(std::string_view str) { return std::make_shared<const DType>(make_dtype(str)); }

DType::Field field(std::string name, std::size_t offset, std::string_view type,
                   std::vector<std::int64_t> subshape = {}) {
    return {std::move(name), offset, type_of(type), std::move(subshape)};
}

DType structured(std::vector<DType::Field> fields, std::size_t itemsize) {
    DType dtype;
    dtype.structured = true;
    dtype.kind = 'V';
    dtype.byte_order = '|';
    dtype.itemsize = itemsize;
    dtype.fields = std::move(fields);
    dtype.descr = "[...]";
    return dtype;
}

std::string print_structured(const DType& dtype, std::string_view hex, std::vector<std::int64_t> shape) {
    const auto bytes = from_hex(hex);
    const View view = View::contiguous(shape, dtype.itemsize);
    return print(bytes, view, dtype);
}

}  // namespace

TEST_CASE("format_array matches numpy's str() for every golden case") {
    for (const PrintCase& c : kCases) {
        const std::string name = c.name;
        CAPTURE(name);
        const DType dtype = make_dtype(c.dtype);
        const auto bytes = from_hex(c.hex);
        CHECK(print(bytes, make_view(c.offset, c.shape, c.strides, dtype.itemsize), dtype) == std::string(c.expected));
    }
}

TEST_CASE("arrays over the threshold summarise exactly as numpy's _leading_trailing") {
    for (const BigCase& c : kBigCases) {
        const std::string name = c.name;
        CAPTURE(name);
        const DType dtype = make_dtype(c.dtype);
        const auto bytes = arange_bytes(c);
        CHECK(print(bytes, make_view(c.offset, c.shape, c.strides, 8), dtype) == std::string(c.expected));
    }
}

TEST_CASE("a huge summarised view reads only the elements it shows") {
    // 10^12 x 10^12 elements over one int16: zero strides make it cheap to describe; the
    // printer must not visit more than the corners.
    const DType dtype = make_dtype("<i2");
    const std::vector<std::byte> bytes = from_hex("0700");
    const View view = make_view(0, {1000000000000, 1000000000000}, {0, 0}, 2);
    CHECK(print(bytes, view, dtype) ==
          "[[7 7 7 ... 7 7 7]\n [7 7 7 ... 7 7 7]\n [7 7 7 ... 7 7 7]\n ...\n"
          " [7 7 7 ... 7 7 7]\n [7 7 7 ... 7 7 7]\n [7 7 7 ... 7 7 7]]");
}

TEST_CASE("structured arrays print tuples with one formatter per field") {
    SUBCASE("numeric fields share each field's padding") {
        const DType dtype = structured({field("a", 0, "<i4"), field("b", 4, "<f8")}, 12);
        CHECK(print_structured(dtype, "010000000000000000000040030000000000000000001240", {2}) ==
              "[(1, 2. ) (3, 4.5)]");
    }
    SUBCASE("bool, bytes and str fields") {
        const DType dtype = structured(
            {field("a", 0, "<i2"), field("b", 2, "|b1"), field("c", 3, "|S3"), field("d", 6, "<U2")}, 14);
        CHECK(print_structured(dtype, "010001780079e900000000000000ecff000000006100000062000000", {2}) ==
              "[(  1,  True, b'x\\x00y', '\xC3\xA9') (-20, False, b'', 'ab')]");
    }
    SUBCASE("a single field keeps Python's trailing comma") {
        const DType dtype = structured({field("a", 0, "<i4")}, 4);
        CHECK(print_structured(dtype, "0100000016000000", {2}) == "[( 1,) (22,)]");
    }
    SUBCASE("sub-array fields print as lists formatted together") {
        const DType dtype = structured({field("v", 0, "<f8", {2})}, 16);
        CHECK(print_structured(dtype, "000000000000f83f000000000000f87f00000000000000000000000000000040", {2}) ==
              "[([1.5, nan],) ([0. , 2. ],)]");
    }
    SUBCASE("2-D sub-array field") {
        const DType dtype = structured({field("m", 0, "<i2", {2, 2})}, 8);
        CHECK(print_structured(dtype, "0100020003000400", {1}) == "[([[1, 2], [3, 4]],)]");
    }
    SUBCASE("nested structured field") {
        const DType inner = structured({field("p", 0, "<u2"), field("q", 2, "|b1")}, 3);
        DType::Field nested{"y", 4, std::make_shared<const DType>(inner), {}};
        const DType dtype = structured({field("x", 0, ">f4"), nested}, 7);
        CHECK(print_structured(dtype, "3fc00000020001c0400000280000", {2}) ==
              "[( 1.5, ( 2,  True)) (-3. , (40, False))]");
    }
    SUBCASE("0-d structured array prints its scalar: bools unpadded") {
        const DType dtype = structured({field("a", 0, "<i4"), field("b", 4, "|b1"), field("c", 5, "<f8")}, 13);
        CHECK(print_structured(dtype, "0700000001000000000000e03f", {}) == "(7, True, 0.5)");
    }
    SUBCASE("big-endian fields") {
        const DType dtype = structured({field("a", 0, ">i8"), field("b", 8, ">f8")}, 16);
        CHECK(print_structured(dtype, "00000000000000014004000000000000ffffffffffffffffbfe0000000000000", {2}) ==
              "[( 1,  2.5) (-1, -0.5)]");
    }
    SUBCASE("nameless void padding fields are not shown, as numpy drops them on load") {
        const DType dtype = structured({field("a", 0, "<i4"), field("", 4, "|V4"), field("b", 8, "<f4")}, 12);
        CHECK(print_structured(dtype, "01000000000000000000003f02000000000000000000c03f", {2}) ==
              "[(1, 0.5) (2, 1.5)]");
    }
    SUBCASE("empty structured array") {
        const DType dtype = structured({field("a", 0, "<i4")}, 4);
        CHECK(print_structured(dtype, "", {0}) == "[]");
    }
}

TEST_CASE("dtypes the printer cannot show throw a usage error naming -o") {
    const auto expect_usage_error = [](const DType& dtype, std::string_view hex) {
        const auto bytes = from_hex(hex);
        const std::string message = tslice_test::message_of(tslice::ErrorKind::Usage, [&] {
            print(bytes, make_view(0, {1}, {static_cast<std::int64_t>(dtype.itemsize)}, dtype.itemsize), dtype);
        });
        CHECK(message.find("write the result with -o FILE") != std::string::npos);
    };
    SUBCASE("object arrays") { expect_usage_error(make_dtype("|O8"), "0000000000000000"); }
    SUBCASE("a float size numpy does not have here") { expect_usage_error(make_dtype("<f3"), "000000"); }
    SUBCASE("generic-unit datetimes other than NaT (numpy cannot show them either)") {
        expect_usage_error(make_dtype("<M8"), "0100000000000000");
    }
}

TEST_CASE("generic-unit NaT prints as numpy does") {
    const DType dtype = make_dtype("<M8");
    const auto bytes = from_hex("0000000000000080");
    CHECK(print(bytes, make_view(0, {}, {}, 8), dtype) == "NaT");
    CHECK(print(bytes, make_view(0, {1}, {8}, 8), dtype) == "['NaT']");
}

TEST_CASE("native byte order '=' reads like the host's") {
    DType dtype = make_dtype("<i4");
    dtype.byte_order = '=';
    const auto bytes = from_hex("feffffff07000000");
    CHECK(print(bytes, make_view(0, {2}, {4}, 4), dtype) == "[-2  7]");
}

TEST_CASE("a code point beyond Unicode is an input error") {
    const DType dtype = make_dtype("<U1");
    const auto bytes = from_hex("00001100");
    CHECK_THROWS_AS(print(bytes, make_view(0, {1}, {4}, 4), dtype), tslice::Error);
}
