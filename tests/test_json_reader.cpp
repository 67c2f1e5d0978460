// The JSON reader of the safetensors header: RFC 8259's grammar, strings decoded and their
// UTF-8 checked, integers without sign, fraction or exponent, and the text of skipped values.
#include <doctest/doctest.h>

#include <string>

#include "library_internals.hpp"
#include "thrown_error.hpp"

using tslice::json::Reader;
using tslice::json::SyntaxError;

namespace {

// Whether `text` is one JSON value and nothing else.
bool valid(const std::string& text) {
    try {
        Reader reader(text);
        reader.skip_value();
        reader.finish();
        return true;
    } catch (const SyntaxError&) {
        return false;
    }
}

std::string decoded(const std::string& text) { return Reader(text).string(); }

}  // namespace

TEST_CASE("values RFC 8259 allows, and only those") {
    for (const char* text : {"0", "-0", "12", "-1.5e+3", "1E-2", "0.25", "true", "false", "null", "\"\"", "[]", "{}",
                             " [1, [2, {\"a\": [null]}], \"x\"] ", "{\"a\":{\"b\":{}},\"c\":[]}", "\"\\u00e9\\ud83d\\ude00\"",
                             "\t\r\n{}\n", "1e-999", "18446744073709551616", "1.7e308", "\"\x7f\"", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""})
        CHECK_MESSAGE(valid(text), text);
    for (const char* text : {"", " ", "01", "-", "1.", ".5", "1e", "+1", "0x10", "tru", "nul", "True", "[1,]", "[,1]",
                             "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "[1 2]", "{} {}", "[", "]", "\"abc",
                             "\"\\x\"", "\"\\u12\"", "\"\\udc00\"", "\"\\ud800\"", "\"\\ud800\\u0041\"", "\"\t\"",
                             "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\x80\"", "\"\xe2\x82\"",
                             "NaN", "Infinity", "'a'", "[1]x", "/* */ 1", "1e999", "-2.5e308"})
        CHECK_MESSAGE(!valid(text), text);
    CHECK(!valid("1" + std::string(400, '0')));  // beyond a double, as serde_json refuses it
}

TEST_CASE("nesting: as deep as the limit, not deeper") {
    const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
    CHECK(valid(nested(Reader::kMaxDepth)));
    CHECK(!valid(nested(Reader::kMaxDepth + 1)));
    CHECK(!valid(std::string(1'000'000, '[')));  // refused at the limit, not after a million
}

TEST_CASE("strings: escapes and surrogate pairs decoded, UTF-8 kept") {
    CHECK(decoded(R"("a\"b\\c\/d\b\f\n\r\t")") == "a\"b\\c/d\b\f\n\r\t");
    CHECK(decoded(R"("\u0041\u00e9\u20ac\ud83d\ude00")") == "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    CHECK(decoded("\"\xc3\xa9\"") == "\xc3\xa9");
    CHECK(decoded(R"("\u0000")") == std::string(1, '\0'));
    CHECK_THROWS_AS(decoded("12"), SyntaxError);
}

TEST_CASE("unsigned integers: plain digits that fit 64 bits, else nothing read") {
    Reader reader("[0, 18446744073709551615, 18446744073709551616, 1.0, 2e3, -1, 7]");
    reader.expect('[', "'['");
    CHECK(reader.unsigned_integer() == 0u);
    reader.expect(',', "','");
    CHECK(reader.unsigned_integer() == 18446744073709551615u);
    for (const char* rest : {"18446744073709551616", "1.0", "2e3", "-1"}) {
        reader.expect(',', "','");
        CHECK_FALSE(reader.unsigned_integer().has_value());
        CHECK(reader.skip_value() == rest);
    }
    reader.expect(',', "','");
    CHECK(reader.unsigned_integer() == 7u);
    reader.expect(']', "']'");
    reader.finish();
}

TEST_CASE("a skipped value's text, and where an error is") {
    Reader reader(R"({"k": [1, {"x": "y"}] , "m": 2})");
    reader.expect('{', "'{'");
    CHECK(reader.string() == "k");
    reader.expect(':', "':'");
    CHECK(reader.skip_value() == R"([1, {"x": "y"}])");
    const SyntaxError error = tslice_test::thrown_by<SyntaxError>([] { Reader("[1, 2,, 3]").skip_value(); });
    CHECK(error.offset() == 6);
    CHECK(std::string(error.what()).find("at byte 6") != std::string::npos);
}
