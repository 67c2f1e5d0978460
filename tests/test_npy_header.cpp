// The .npy header: format versions, the dict in any order, shapes, malformed headers, and
// make_npy_header byte for byte as numpy 1.24's np.save writes it.

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "npy_fixture.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/write.hpp"

using namespace tslice;
using namespace tslice_test;

TEST_CASE("format versions 1.0, 2.0 and 3.0") {
    const std::string dict = dict_for("'<f4'", "(3, 4)");
    for (int major : {1, 2, 3}) {
        CAPTURE(major);
        const std::string header = padded(dict, major);
        const NpyHeader parsed = parse(npy_bytes(header, major));
        CHECK(parsed.major == major);
        CHECK(parsed.minor == 0);
        CHECK(parsed.shape == std::vector<std::int64_t>{3, 4});
        CHECK(parsed.data_offset == (major == 1 ? 10u : 12u) + header.size());
        CHECK(parsed.data_offset % 64 == 0);
    }
    SUBCASE("3.0 holds UTF-8 field names") {
        const NpyHeader parsed =
            parse(npy_bytes(padded(dict_for("[('\xe6\x97\xa5\xe6\x9c\xac', '<i4')]", "(2,)"), 3), 3));
        CHECK(parsed.dtype.fields.at(0).name == "\xe6\x97\xa5\xe6\x9c\xac");
        CHECK(parsed.dtype.descr == "[('\xe6\x97\xa5\xe6\x9c\xac', '<i4')]");
    }
    SUBCASE("1.0 and 2.0 headers are Latin-1, as numpy writes them") {
        // np.save(f, np.zeros(2, [('café', '<i4')])) writes version 1.0 with the byte \xe9.
        for (int major : {1, 2}) {
            const NpyHeader parsed = parse(npy_bytes(padded(dict_for("[('caf\xe9', '<i4')]", "(2,)"), major), major));
            CHECK(parsed.dtype.fields.at(0).name == "caf\xc3\xa9");
        }
    }
    SUBCASE("a 1.0 header longer than 128 bytes") {
        std::string descr = "[";
        for (int i = 0; i < 60; ++i) descr += (i ? ", " : "") + std::string("('field") + std::to_string(i) + "', '<f8')";
        descr += "]";
        const std::string header = padded(dict_for(descr, "(7,)"));
        REQUIRE(header.size() > 1000);
        const NpyHeader parsed = parse(npy_bytes(header));
        CHECK(parsed.dtype.fields.size() == 60);
        CHECK(parsed.dtype.itemsize == 480);
        CHECK(parsed.data_offset == 10 + header.size());
    }
}

TEST_CASE("the header dict in any key order and spacing") {
    struct Case {
        const char* name;
        std::string header;
    };
    const Case cases[] = {
        {"numpy's own", padded("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }")},
        {"keys reordered", padded("{'shape': (2, 3), 'fortran_order': True, 'descr': '<i2'}")},
        {"no spaces, no trailing comma", padded("{'descr':'<i2','fortran_order':True,'shape':(2,3)}")},
        {"newlines and tabs inside", "{\n\t'descr' :\n '<i2' ,\r\n 'fortran_order'\t: True,\n 'shape' : ( 2 , 3 , ) ,\n}\n"},
        {"double quotes", padded(R"({"descr": "<i2", "fortran_order": True, "shape": (2, 3)})")},
        {"16-byte alignment (old writers)", padded("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }", 1, 16)},
        {"no padding at all", "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }"},
        {"leading spaces", "   {'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }\n"},
        {"Python 2 longs and unicode", padded("{'descr': u'<i2', 'fortran_order': True, 'shape': (2L, 3L), }")},
        {"parenthesised values", padded("{'descr': ('<i2'), 'fortran_order': (True), 'shape': ((2), +3)}")},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.name));
        const NpyHeader header = parse(npy_bytes(c.header));
        CHECK(header.dtype.type_string == "<i2");
        CHECK(header.fortran_order);
        CHECK(header.shape == std::vector<std::int64_t>{2, 3});
        CHECK(header.element_count() == 6);
        CHECK(header.data_bytes() == 12);
    }
}

TEST_CASE("shapes: 0-d, 1-d, empty, and their element counts") {
    NpyHeader header = parse(npy_bytes(padded(dict_for("'<f8'", "()"))));
    CHECK(header.shape.empty());
    CHECK(header.element_count() == 1);
    CHECK(header.data_bytes() == 8);
    header = parse(npy_bytes(padded(dict_for("'<f8'", "(5,)"))));
    CHECK(header.shape == std::vector<std::int64_t>{5});
    header = parse(npy_bytes(padded(dict_for("'<f8'", "(0, 3)"))));
    CHECK(header.element_count() == 0);
    CHECK(header.data_bytes() == 0);
    header = parse(npy_bytes(padded(dict_for("'<f8'", "(1152921504606846975,)"))));
    CHECK(header.data_bytes() == 9223372036854775800u);
}

TEST_CASE("malformed headers give a message that names the problem") {
    const std::string good = padded(dict_for("'<f4'"));
    struct Case {
        const char* name;
        std::string bytes;
        const char* message;
    };
    const Case cases[] = {
        {"empty input", "", "not a .npy file: the file is empty"},
        {"wrong magic", std::string("\x93NUMPZ\x01\x00", 8) + good, "not a .npy file: wrong magic"},
        {"text file", "hello world, this is not an array", "wrong magic (a .npy file starts with \\x93NUMPY, this one with \"hello \")"},
        {"an .npz archive", std::string("PK\x03\x04\x14\x00\x00\x00", 8) + "abcdefgh", "this is a zip archive"},
        {"truncated inside the magic", "\x93NUM", "cut short: it ends after 4 bytes, inside the magic string"},
        {"truncated before the version", "\x93NUMPY\x01", "cut short: it ends after 7 bytes"},
        {"version 4.0", npy_bytes(good, 4), "unsupported .npy format version 4.0 (tslice reads versions 1.0, 2.0 and 3.0)"},
        {"version 1.1", "\x93NUMPY\x01\x01" + good, "unsupported .npy format version 1.1"},
        {"version 0.0", std::string("\x93NUMPY\x00\x00", 8) + good, "unsupported .npy format version 0.0"},
        {"truncated length field", std::string("\x93NUMPY\x02\x00\x10\x00", 10), "the file ends inside the header length field"},
        {"header length past the end", npy_bytes(good.substr(0, 40), 1, {}, 118), "the .npy header is cut short: expected 118 bytes of header, file has 40"},
        {"truncated inside the header", npy_bytes(good).substr(0, 30), "expected 118 bytes of header, file has 20"},
        {"missing key", npy_bytes(padded("{'descr': '<f4', 'fortran_order': False}")), "the .npy header has no 'shape' key"},
        {"missing descr", npy_bytes(padded("{'shape': (3,), 'fortran_order': False}")), "the .npy header has no 'descr' key"},
        {"extra key", npy_bytes(padded("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}")), "the .npy header has an unexpected key 'extra'"},
        {"non-string key", npy_bytes(padded("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 5: 1}")), "unexpected key 5"},
        {"duplicate key", npy_bytes(padded("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}")), "the key 'descr' twice"},
        {"fortran_order 'no'", npy_bytes(padded(dict_for("'<f4'", "(3,)", "'no'"))), "the .npy header's fortran_order is 'no', not True or False"},
        {"fortran_order 0", npy_bytes(padded(dict_for("'<f4'", "(3,)", "0"))), "fortran_order is 0, not True or False"},
        {"shape a list", npy_bytes(padded(dict_for("'<f4'", "[3]"))), "the .npy header's shape [3] is not a tuple of integers"},
        {"shape of floats", npy_bytes(padded(dict_for("'<f4'", "(3.5,)"))), "the .npy header's shape (3.5,) is not a tuple of integers"},
        {"shape an int", npy_bytes(padded(dict_for("'<f4'", "3"))), "shape 3 is not a tuple"},
        {"shape True", npy_bytes(padded(dict_for("'<f4'", "(True,)"))), "shape (True,) is not a tuple of integers"},
        {"negative dimension", npy_bytes(padded(dict_for("'<f4'", "(3, -1)"))), "the .npy header's shape (3, -1) has a negative dimension"},
        {"element count overflow", npy_bytes(padded(dict_for("'|u1'", "(4294967296, 4294967296)"))), "shape (4294967296, 4294967296) is too large: its element count overflows 64 bits"},
        {"overflow beside a zero dimension", npy_bytes(padded(dict_for("'|u1'", "(0, 4294967296, 4294967296)"))), "its element count overflows 64 bits"},
        {"byte size overflow", npy_bytes(padded(dict_for("'<f8'", "(2305843009213693952,)"))), "shape (2305843009213693952,) is too large: its byte size overflows 64 bits"},
        {"integer beyond int64", npy_bytes(padded(dict_for("'<f8'", "(99999999999999999999,)"))), "the integer 99999999999999999999 does not fit in 64 bits"},
        {"zero itemsize", npy_bytes(padded(dict_for("'|S0'"))), "its elements have zero bytes"},
        {"object descr", npy_bytes(padded(dict_for("'|O'"))), "object arrays (descr '|O') are not supported: tslice copies fixed-size elements"},
        {"unknown descr", npy_bytes(padded(dict_for("'<q9'"))), "the dtype '<q9' is not valid"},
        {"unbalanced braces", npy_bytes(padded("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), ")), "the dict opened here is never closed"},
        {"unbalanced parentheses", npy_bytes(padded("{'descr': '<f4', 'fortran_order': False, 'shape': (3,}")), "the tuple opened at character 51 is closed with '}' instead of ')'"},
        {"unbalanced brackets", npy_bytes(padded("{'descr': [('a', '<f4'), 'fortran_order': False, 'shape': (3,)}")), "expected ',' or ']' in the list, found character ':'"},
        {"a list closed by a brace", npy_bytes(padded("{'descr': [('a', '<f4')}, 'fortran_order': False, 'shape': (3,)}")), "the list opened at character 11 is closed with '}' instead of ']'"},
        {"missing colon", npy_bytes(padded("{'descr' '<f4', 'fortran_order': False, 'shape': (3,)}")), "expected ':' after a dict key, found character \"'\""},
        {"unclosed string", npy_bytes(padded("{'descr': '<f4, 'fortran_order': False, 'shape': (3,)}")), "is not a valid Python literal"},
        {"string across a newline", npy_bytes("{'descr': '<f4\n', 'fortran_order': False, 'shape': (3,)}\n"), "the string that starts here is not closed on its line"},
        {"not a dict", npy_bytes(padded("['descr', '<f4']")), "the .npy header is a list, not a dict"},
        {"text after the dict", npy_bytes(padded(dict_for("'<f4'") + " x")), "unexpected text after the header dict"},
        {"two dicts", npy_bytes(padded(dict_for("'<f4'") + dict_for("'<f4'"))), "unexpected text after the header dict"},
        {"a name that is not a literal", npy_bytes(padded(dict_for("'<f4'", "(3,)", "false"))), "unexpected name 'false'"},
        {"an expression", npy_bytes(padded(dict_for("'<f4'", "(3*4,)"))), "expected ',' or ')' in the tuple, found character '*'"},
        {"a NUL byte", npy_bytes(std::string("{'descr': '<f4',") + '\0' + " 'fortran_order': False, 'shape': (3,)}\n"), "unexpected byte \\x00"},
        {"a non-ASCII byte outside strings", npy_bytes(padded("{'descr': '<f4', \xe9 'fortran_order': False, 'shape': (3,)}")), "unexpected character U+00E9"},
        {"invalid UTF-8 in 3.0", npy_bytes(padded("{'descr': [('\xe9', '<f4')], 'fortran_order': False, 'shape': (3,)}", 3), 3), "the .npy header (format 3.0) is not valid UTF-8 (at byte offset 25 of the file)"},
        {"a bad escape", npy_bytes(padded("{'descr': [('\\x4', '<f4')], 'fortran_order': False, 'shape': (3,)}")), "truncated \\x, \\u or \\U escape"},
        {"a surrogate escape", npy_bytes(padded("{'descr': [('\\ud800', '<f4')], 'fortran_order': False, 'shape': (3,)}")), "lone surrogate"},
        {"header length beyond 1 MiB", npy_bytes("{}", 2, {}, 0x7FFFFFFF), "the .npy header claims to be 2147483647 bytes long; tslice reads headers of at most 1 MiB"},
        {"blank header", npy_bytes(std::string(50, ' ') + "\n"), "it ends where a value should be"},
        {"deep nesting", npy_bytes(std::string(100000, '[') + "\n", 2), "nested more than 64 levels deep"},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.name));
        const std::string message = error_message([&] { parse(c.bytes); });
        CHECK_MESSAGE(message.find(c.message) != std::string::npos, message);
    }
}

TEST_CASE("make_npy_header writes exactly what np.save writes") {
    struct Case {
        const char* descr;
        std::vector<std::int64_t> shape;
        std::string expected;
    };
    // From numpy 1.24: np.save(f, np.zeros(shape, dtype)); the header bytes up to the '\n'.
    const Case cases[] = {
        {"'<f4'", {3, 4}, std::string("\x93NUMPY\x01\x00v\x00", 10) + "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" + std::string(58, ' ') + "\n"},
        {"'>i4'", {5}, std::string("\x93NUMPY\x01\x00v\x00", 10) + "{'descr': '>i4', 'fortran_order': False, 'shape': (5,), }" + std::string(60, ' ') + "\n"},
        {"'<f8'", {}, std::string("\x93NUMPY\x01\x00v\x00", 10) + "{'descr': '<f8', 'fortran_order': False, 'shape': (), }" + std::string(62, ' ') + "\n"},
        {"[(('title', 'x'), '<i4'), ('y', '<f8', (2,)), ('n', [('a', '|u1'), ('b', '|S3')], (2, 3))]", {2},
         std::string("\x93NUMPY\x01\x00\xb6\x00", 10) + "{'descr': [(('title', 'x'), '<i4'), ('y', '<f8', (2,)), ('n', [('a', '|u1'), ('b', '|S3')], (2, 3))], 'fortran_order': False, 'shape': (2,), }" + std::string(39, ' ') + "\n"},
        {"[('caf\xc3\xa9', '<i4')]", {2}, std::string("\x93NUMPY\x01\x00v\x00", 10) + "{'descr': [('caf\xe9', '<i4')], 'fortran_order': False, 'shape': (2,), }" + std::string(48, ' ') + "\n"},
        {"[('\xe6\x97\xa5\xe6\x9c\xac', '<i4')]", {2}, std::string("\x93NUMPY\x03\x00t\x00\x00\x00", 12) + "{'descr': [('\xe6\x97\xa5\xe6\x9c\xac', '<i4')], 'fortran_order': False, 'shape': (2,), }" + std::string(44, ' ') + "\n"},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.descr));
        const DType dtype = parse_dtype_descr(c.descr);
        const std::string header = make_npy_header(dtype, c.shape);
        CHECK(header == c.expected);
        CHECK(header.size() % 64 == 0);
        const NpyHeader parsed = parse(header);
        CHECK(parsed.dtype == dtype);
        CHECK(parsed.shape == c.shape);
        CHECK_FALSE(parsed.fortran_order);
        CHECK(parsed.data_offset == header.size());
    }
}

TEST_CASE("make_npy_header: alignment, the 2.0 switch, round trips") {
    SUBCASE("every header length lands the data on 64 bytes") {
        for (int fields = 1; fields < 80; ++fields) {
            std::string descr = "[";
            for (int i = 0; i < fields; ++i) descr += (i ? ", " : "") + std::string("('f") + std::to_string(i) + "', '<u2')";
            descr += "]";
            const DType dtype = parse_dtype_descr(descr);
            for (const std::vector<std::int64_t>& shape :
                 {std::vector<std::int64_t>{}, {0}, {7}, {123456789, 2}, {9223372036854775807 / 2 / fields}}) {
                const std::string header = make_npy_header(dtype, shape);
                CHECK(header.size() % 64 == 0);
                CHECK(header.back() == '\n');
                const NpyHeader parsed = parse(header);
                CHECK(parsed.major == 1);
                CHECK(parsed.dtype.descr == descr);
                CHECK(parsed.shape == shape);
                CHECK(parsed.data_offset == header.size());
            }
        }
    }
    SUBCASE("a header too long for 1.0 is written as 2.0") {
        std::string descr = "[";
        for (int i = 0; i < 4000; ++i) descr += (i ? ", " : "") + std::string("('field_") + std::to_string(i) + "', '<f4')";
        descr += "]";
        const DType dtype = parse_dtype_descr(descr);
        REQUIRE(dtype.descr.size() > 65535);
        const std::string header = make_npy_header(dtype, {3});
        CHECK(header[6] == 2);
        CHECK(header.size() % 64 == 0);
        const NpyHeader parsed = parse(header);
        CHECK(parsed.major == 2);
        CHECK(parsed.dtype.fields.size() == 4000);
        CHECK(parsed.data_offset == header.size());
    }
    SUBCASE("byte-order marks and spellings survive the round trip") {
        for (const char* type : {"'=f8'", "'>c16'", "'|S5'", "'<U3'", "'|V7'", "'<M8[ns]'", "'f8'", "'?'"}) {
            CAPTURE(type);
            const DType dtype = parse_dtype_descr(type);
            CHECK(parse(make_npy_header(dtype, {2, 2})).dtype.descr == type);
        }
    }
    SUBCASE("a DType with only its type string") {
        DType dtype;
        dtype.type_string = "<i8";
        dtype.itemsize = 8;
        CHECK(parse(make_npy_header(dtype, {1})).dtype.descr == "'<i8'");
    }
}
