// Python's text rules, as the .npy header and the printer use them: the expected strings are
// what Python 3.11's repr() prints for the same values.

#include <doctest/doctest.h>

#include <string>

#include "library_internals.hpp"

using namespace tslice;
using namespace std::string_literals;

TEST_CASE("python text: repr of str picks its quotes and escapes as Python does") {
    CHECK(str_repr(U"a'b") == "\"a'b\"");
    CHECK(str_repr(U"a'b\"") == "'a\\'b\"'");
    CHECK(str_repr(U"\t\n\r\u0000\u00e9\u200b\U0001F600\u007f\u00a0\u00ad"s) ==
          "'\\t\\n\\r\\x00\u00e9\\u200b\U0001F600\\x7f\\xa0\\xad'");
    // Unassigned code points are not printable; variation selectors are.
    CHECK(str_repr(U"\u0378") == "'\\u0378'");
    CHECK(str_repr(U"\U000E0100") == "'\U000E0100'");
    // The UTF-8 form decodes first, so both give the same text.
    CHECK(str_repr_utf8("a'b\xc3\xa9") == str_repr(U"a'b\u00e9"));
}

TEST_CASE("python text: repr of bytes") {
    CHECK(bytes_repr(std::string("a'\0\xff\\", 5)) == "b\"a'\\x00\\xff\\\\\"");
    CHECK(bytes_repr("") == "b''");
    CHECK(escape_bytes("ok\x01\\") == "ok\\x01\\x5c");
}

TEST_CASE("python text: UTF-8 and Latin-1") {
    CHECK(latin1_to_utf8("\xe9") == "\xc3\xa9");
    CHECK(utf8_to_latin1("\xc3\xa9") == std::optional<std::string>("\xe9"));
    CHECK_FALSE(utf8_to_latin1("\xe2\x82\xac").has_value());  // the euro sign is beyond U+00FF
    for (const std::string bad : {"\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
        std::size_t at = 0;
        CHECK_FALSE(next_utf8(bad, at).has_value());
        CHECK(at == 0);
    }
    std::size_t at = 0;
    CHECK(next_utf8("\xf0\x9f\x98\x80!", at) == std::optional<char32_t>(U'\U0001F600'));
    CHECK(at == 4);
}

TEST_CASE("python text: isprintable at the edges of its table") {
    CHECK(is_printable(U' '));
    CHECK_FALSE(is_printable(U'\u001f'));
    CHECK_FALSE(is_printable(U'\u007f'));
    CHECK_FALSE(is_printable(U'\u00a0'));
    CHECK(is_printable(U'\u00a1'));
    CHECK_FALSE(is_printable(U'\u2028'));
    CHECK(is_printable(U'\U0010FFFF') == false);
}
