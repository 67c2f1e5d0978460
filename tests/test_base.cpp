// The ground floor every stage stands on: one error helper per kind, one little-endian
// reader, one hexadecimal digit, one UTF-8 encoder and decoder.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "library_internals.hpp"
#include "tslice/error.hpp"

using namespace tslice;

TEST_CASE("base: fail_input and fail_usage raise their kind with the message unchanged") {
    try {
        fail_input("the zip archive spans several disks", "'a.npz'");
        FAIL("fail_input returned");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::Input);
        CHECK(error.exit_code() == 1);
        CHECK(std::string(error.what()) == "the zip archive spans several disks");
        CHECK(error.file() == "'a.npz'");
    }
    try {
        fail_usage("ops[0].axis: out of range");
        FAIL("fail_usage returned");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::Usage);
        CHECK(error.exit_code() == 2);
        CHECK(std::string(error.what()) == "ops[0].axis: out of range");
        CHECK(error.file().empty());
    }
}

TEST_CASE("base: load_le reads little-endian fields of any width and alignment") {
    const unsigned char raw[] = {0xEE, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
    const auto* bytes = reinterpret_cast<const std::byte*>(raw);
    // At an odd address, as zip and pickle fields are.
    CHECK(load_le<std::uint16_t>(bytes + 1) == 0x0201);
    CHECK(load_le<std::uint32_t>(bytes + 1) == 0x04030201u);
    CHECK(load_le<std::uint64_t>(bytes + 1) == 0x8807060504030201ull);
    CHECK(load_le<std::uint8_t>(bytes) == 0xEE);
    // A width the data gives, 0 to 8 bytes; the fixed widths agree with it.
    CHECK(load_le(bytes + 1, 0) == 0);
    CHECK(load_le(bytes + 1, 3) == 0x030201u);
    CHECK(load_le(bytes + 1, 8) == load_le<std::uint64_t>(bytes + 1));
    CHECK(load_le(bytes + 7, 2) == 0x8807u);  // the top byte's high bit is not a sign
}

TEST_CASE("base: store_le writes what load_le reads, byte by byte, at any alignment") {
    unsigned char raw[10] = {};
    auto* bytes = reinterpret_cast<std::byte*>(raw);
    // The byte order itself, not only a round trip: least significant byte first.
    store_le<std::uint32_t>(bytes + 1, 0x04030201u);
    CHECK(raw[0] == 0);
    CHECK(raw[1] == 0x01);
    CHECK(raw[2] == 0x02);
    CHECK(raw[3] == 0x03);
    CHECK(raw[4] == 0x04);
    CHECK(raw[5] == 0);
    store_le<std::uint64_t>(bytes + 1, 0x8807060504030201ull);
    CHECK(load_le<std::uint64_t>(bytes + 1) == 0x8807060504030201ull);
    CHECK(raw[8] == 0x88);
    store_le<std::uint16_t>(bytes + 3, 0xBEEF);
    CHECK(load_le<std::uint16_t>(bytes + 3) == 0xBEEF);
    CHECK(raw[3] == 0xEF);
    // A width the caller gives: only that many bytes change, and the value's higher bytes are
    // dropped, as a narrower field holds only the low ones.
    raw[4] = 0x55;
    store_le(bytes + 1, 0x0000'0000'00AB'CDEFull, 3);
    CHECK(load_le(bytes + 1, 3) == 0xABCDEFu);
    CHECK(raw[4] == 0x55);
    store_le(bytes + 1, 0x1122'3344'5566'7788ull, 2);
    CHECK(load_le(bytes + 1, 2) == 0x7788u);
    CHECK(raw[3] == 0xAB);
    const std::uint64_t values[] = {0, 1, 0xFF, 0x100, 0xFFFF'FFFF, ~std::uint64_t{0}, 0x8000'0000'0000'0001};
    for (const std::uint64_t value : values) {
        store_le(bytes + 2, value, 8);
        CHECK(load_le<std::uint64_t>(bytes + 2) == value);
        store_le<std::uint64_t>(bytes + 1, value);
        CHECK(load_le(bytes + 1, 8) == value);
    }
    // Appended to a header built as text, as the .npy, safetensors and zip writers do.
    std::string out = "x";
    append_le(out, 0x0A0B0C, 4);
    CHECK(out == std::string("x\x0C\x0B\x0A\x00", 5));
    append_le(out, 0x1234, 0);
    CHECK(out.size() == 5);
}

TEST_CASE("base: hex_digit reads either case and refuses every other character") {
    CHECK(hex_digit('0') == 0);
    CHECK(hex_digit('9') == 9);
    CHECK(hex_digit('a') == 10);
    CHECK(hex_digit('F') == 15);
    int digits = 0;
    for (int c = -128; c < 128; ++c) {
        const int value = hex_digit(static_cast<char>(c));
        CHECK(value >= -1);
        CHECK(value < 16);
        digits += value >= 0;
    }
    CHECK(digits == 22);  // 0-9, a-f, A-F
    for (const char c : std::string("gG/:@`_ x"))
        CHECK(hex_digit(c) == -1);
}

TEST_CASE("base: UTF-8 encodes every width and decodes what it encodes") {
    const char32_t samples[] = {U'\0', U'A', U'\u007f', U'\u0080', U'\u00e9', U'\u07ff', U'\u0800',
                                U'\u20ac', U'\uffff', U'\U00010000', U'\U0001F600', U'\U0010FFFF'};
    const std::size_t widths[] = {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4};
    for (std::size_t k = 0; k < std::size(samples); ++k) {
        std::string text;
        append_utf8(text, samples[k]);
        CHECK(text.size() == widths[k]);
        std::size_t at = 0;
        CHECK(next_utf8(text, at) == std::optional<char32_t>(samples[k]));
        CHECK(at == text.size());
    }
    std::string euro;
    append_utf8(euro, U'\u20ac');
    CHECK(euro == "\xe2\x82\xac");
    // Overlong, a surrogate, past U+10FFFF, cut short, a stray continuation byte: refused,
    // and the position left where it was.
    for (const std::string bad : {"\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\x80"}) {
        std::size_t at = 0;
        CHECK_FALSE(next_utf8(bad, at).has_value());
        CHECK(at == 0);
    }
}
