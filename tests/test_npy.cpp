// .npy headers, dtypes, reading and writing. Expected header bytes come from numpy 1.24's
// np.save; malformed inputs are built here byte by byte.

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

#include "input_error.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/write.hpp"

using namespace tslice;
namespace fs = std::filesystem;

namespace {

// magic + version + little-endian header length + header + data. `length` overrides the
// length field (to lie about it).
std::string npy_bytes(const std::string& header, int major = 1, const std::string& data = {},
                      std::optional<std::uint32_t> length = std::nullopt) {
    std::string out = "\x93NUMPY";
    out += static_cast<char>(major);
    out += '\0';
    const std::uint32_t value = length.value_or(static_cast<std::uint32_t>(header.size()));
    const int size = major == 1 ? 2 : 4;
    for (int k = 0; k < size; ++k) out += static_cast<char>((value >> (8 * k)) & 0xFF);
    return out + header + data;
}

// A numpy-style header dict padded with spaces and '\n' to `align` bytes.
std::string padded(const std::string& dict, int major = 1, std::size_t align = 64) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    std::string header = dict;
    while ((prefix + header.size() + 1) % align != 0) header += ' ';
    return header + '\n';
}

std::string dict_for(const std::string& descr, const std::string& shape = "(3,)",
                     const std::string& fortran = "False") {
    return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

NpyHeader parse(const std::string& bytes) {
    return parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
}

// The message of the tslice::Error that `action` throws; fails the test if it throws none.
std::string error_message(const std::function<void()>& action) { return tslice_test::input_error(action); }

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string name = (fs::temp_directory_path() / "tslice-npy-test-XXXXXX").string();
        REQUIRE(::mkdtemp(name.data()) != nullptr);
        path = name;
    }
    ~TempDir() { fs::remove_all(path); }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(path)) names.push_back(entry.path().filename());
        return names;
    }
};

// Fills element i of a 4-byte dtype with the little-endian value i.
void fill_counting(std::byte* dst, std::int64_t first, std::int64_t count) {
    for (std::int64_t i = 0; i < count; ++i) {
        const auto value = static_cast<std::uint32_t>(first + i);
        for (int k = 0; k < 4; ++k) dst[4 * i + k] = static_cast<std::byte>((value >> (8 * k)) & 0xFF);
    }
}

}  // namespace

TEST_CASE("simple dtype strings: every kind, both byte orders") {
    struct Case {
        const char* type;
        char kind;
        std::size_t itemsize;
        char byte_order;
    };
    const Case cases[] = {
        {"|b1", 'b', 1, '|'},       {"<i4", 'i', 4, '<'},        {">i4", 'i', 4, '>'},
        {"|i1", 'i', 1, '|'},       {"<i2", 'i', 2, '<'},        {">i8", 'i', 8, '>'},
        {"|u1", 'u', 1, '|'},       {"<u2", 'u', 2, '<'},        {">u4", 'u', 4, '>'},
        {"<u8", 'u', 8, '<'},       {"=f8", 'f', 8, '='},        {"<f2", 'f', 2, '<'},
        {">f4", 'f', 4, '>'},       {"<f16", 'f', 16, '<'},      {"<f12", 'f', 12, '<'},
        {"<c8", 'c', 8, '<'},       {">c16", 'c', 16, '>'},      {"<c32", 'c', 32, '<'},
        {"|S5", 'S', 5, '|'},       {"|a5", 'S', 5, '|'},        {"<U3", 'U', 12, '<'},
        {">U1", 'U', 4, '>'},       {"|V7", 'V', 7, '|'},        {"<M8[ns]", 'M', 8, '<'},
        {">M8[D]", 'M', 8, '>'},    {"<M8", 'M', 8, '<'},        {"<m8[25s]", 'm', 8, '<'},
        {">m8[us]", 'm', 8, '>'},   {"<M8[generic]", 'M', 8, '<'},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.type));
        const std::string descr = std::string("'") + c.type + "'";
        const NpyHeader header = parse(npy_bytes(padded(dict_for(descr))));
        CHECK(header.dtype.kind == c.kind);
        CHECK(header.dtype.itemsize == c.itemsize);
        CHECK(header.dtype.byte_order == c.byte_order);
        CHECK(header.dtype.type_string == c.type);
        CHECK(header.dtype.descr == descr);
        CHECK_FALSE(header.dtype.structured);
        CHECK(header.dtype.fields.empty());
        CHECK(parse_dtype_descr(descr) == header.dtype);
    }
}

TEST_CASE("dtype strings without a byte-order mark, and numpy's one-letter codes") {
    struct Case {
        const char* type;
        char kind;
        std::size_t itemsize;
        char byte_order;
    };
    const Case cases[] = {
        {"f8", 'f', 8, '='}, {"i1", 'i', 1, '|'}, {"S3", 'S', 3, '|'}, {"U2", 'U', 8, '='},
        {"b1", 'b', 1, '|'}, {"?", 'b', 1, '|'},  {"b", 'i', 1, '|'},  {"B", 'u', 1, '|'},
        {"i", 'i', 4, '='},  {"<d", 'f', 8, '<'}, {"e", 'f', 2, '='},  {"D", 'c', 16, '='},
        {"c", 'S', 1, '|'},  {"M", 'M', 8, '='},  {">q", 'i', 8, '>'},
        {"float32", 'f', 4, '='}, {"uint8", 'u', 1, '|'}, {"bool", 'b', 1, '|'},
        {"datetime64[ns]", 'M', 8, '='}, {"complex128", 'c', 16, '='},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.type));
        const DType dtype = parse_dtype_descr(std::string("'") + c.type + "'");
        CHECK(dtype.kind == c.kind);
        CHECK(dtype.itemsize == c.itemsize);
        CHECK(dtype.byte_order == c.byte_order);
        CHECK(dtype.type_string == c.type);  // kept as written, so the output names the same dtype
    }
}

TEST_CASE("invalid dtype strings are refused with the reason") {
    struct Case {
        const char* descr;
        const char* message;
    };
    const Case cases[] = {
        {"'|O'", "object arrays (descr '|O') are not supported: tslice copies fixed-size elements"},
        {"'O'", "object arrays (descr 'O') are not supported"},
        {"'|S0'", "the dtype '|S0' is not valid: its elements have zero bytes"},
        {"'|V0'", "zero bytes"},
        {"'<U0'", "zero bytes"},
        {"'S'", "zero bytes"},
        {"'<i3'", "the dtype '<i3' is not valid: signed integers ('i') come in sizes 1, 2, 4 and 8 bytes, not 3"},
        {"'<f5'", "floats ('f') come in sizes 2, 4, 8, 12 and 16 bytes, not 5"},
        {"'|b2'", "booleans ('b') come in sizes 1 bytes, not 2"},
        {"'<c4'", "complex numbers ('c') come in sizes"},
        {"'<M4'", "datetimes ('M') come in sizes 8"},
        {"'<M8[fortnights]'", "'[fortnights]' is not a time unit"},
        {"'<x4'", "'x' is not a numpy type kind"},
        {"'<'", "it has no type code"},
        {"''", "it has no type code"},
        {"'float33'", "the dtype 'float33' is not valid: a .npy header names a type by byte order, kind and size in bytes, such as '<f4'"},
        {"'<fx'", "such as '<f4'"},
        {"'<i4x'", "the dtype '<i4x' is not valid: a .npy header names a type by"},
        {"'|S99999999999999999999'", "its size does not fit in 64 bits"},
        {"'<U3000000000000000000'", "its size does not fit in 64 bits"},
        {"3", "the descr 3 is an integer, not a dtype string or a list of fields"},
        {"('<f8', (2,))", "is a sub-array dtype"},
        {"[]", "the dtype [] has zero-byte elements"},
        {"[('a', '|O')]", "field 'a' of the dtype: object arrays"},
        {"[('a', '<i4'), ('a', '<f8')]", "the dtype uses 'a' twice as a field name or title"},
        {"[(('t', 'a'), '<i4'), ('t', '<f8')]", "the dtype uses 't' twice as a field name or title"},
        {"[('', '<i4'), ('', '|V4'), ('', '<f8')]", "the dtype uses '' twice as a field name or title"},
        {"'<i4[ns]'", "only datetimes and timedeltas take a unit in brackets"},
        {"'<M8[ns'", "'[ns' is not a time unit"},
        {"'Ox'", "not valid"},
        {"[('a',)]", "field 0 of the dtype, ('a',), is not a (name, type) or (name, type, shape) tuple"},
        {"[(3, '<i4')]", "has the name 3, which is neither a string nor a (title, name) pair"},
        {"[('a', '<i4', (-1,))]", "field 'a' of the dtype: its shape (-1,) has a negative dimension"},
        {"[('a', '<i4', 'x')]", "its shape 'x' is not a tuple of integers"},
        {"[('a', '<f8', (4611686018427387904,))]", "field 'a' of the dtype is too large"},
        {"'<f4' x", "unexpected text after the descr"},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.descr));
        const std::string message = error_message([&] { parse_dtype_descr(c.descr); });
        CHECK_MESSAGE(message.find(c.message) != std::string::npos, message);
    }
}

TEST_CASE("structured dtype: nested fields, titles, sub-array shapes, padding") {
    // np.dtype([(('title', 'x'), '<i4'), ('y', '<f8', (2,)),
    //           ('n', [('a', 'u1'), ('b', 'S3')], (2, 3))]).descr, as np.save writes it.
    const std::string numpy_descr =
        "[(('title', 'x'), '<i4'), ('y', '<f8', (2,)), ('n', [('a', '|u1'), ('b', '|S3')], (2, 3))]";
    // The same dtype written loosely: other spacing, a trailing comma, an int shape.
    const std::string loose =
        "[ ( ('title','x') , '<i4' ) , ('y','<f8',(2,)),\n ('n',[('a','|u1'),('b','|S3'),],(2,3)),]";
    for (const std::string& written : {numpy_descr, loose}) {
        CAPTURE(written);
        const NpyHeader header = parse(npy_bytes(padded(dict_for(written, "(2,)"))));
        const DType& dtype = header.dtype;
        CHECK(dtype.structured);
        CHECK(dtype.kind == 'V');
        CHECK(dtype.byte_order == '|');
        CHECK(dtype.type_string.empty());
        CHECK(dtype.descr == numpy_descr);
        CHECK(dtype.itemsize == 4 + 16 + 4 * 6);
        REQUIRE(dtype.fields.size() == 3);
        CHECK(dtype.fields[0].name == "x");
        CHECK(dtype.fields[0].offset == 0);
        CHECK(dtype.fields[0].type->type_string == "<i4");
        CHECK(dtype.fields[0].subshape.empty());
        CHECK(dtype.fields[1].name == "y");
        CHECK(dtype.fields[1].offset == 4);
        CHECK(dtype.fields[1].type->itemsize == 8);
        CHECK(dtype.fields[1].subshape == std::vector<std::int64_t>{2});
        CHECK(dtype.fields[2].name == "n");
        CHECK(dtype.fields[2].offset == 20);
        CHECK(dtype.fields[2].subshape == std::vector<std::int64_t>{2, 3});
        const DType& nested = *dtype.fields[2].type;
        CHECK(nested.structured);
        CHECK(nested.itemsize == 4);
        REQUIRE(nested.fields.size() == 2);
        CHECK(nested.fields[1].name == "b");
        CHECK(nested.fields[1].offset == 1);
        CHECK(nested.fields[1].type->kind == 'S');
    }

    SUBCASE("numpy's explicit padding fields are kept") {
        // np.dtype({'names': ['a', 'b'], 'formats': ['<i4', '<f8'], 'offsets': [0, 8],
        //           'itemsize': 24}).descr
        const std::string descr = "[('a', '<i4'), ('', '|V4'), ('b', '<f8'), ('', '|V8')]";
        const DType dtype = parse_dtype_descr(descr);
        CHECK(dtype.descr == descr);
        CHECK(dtype.itemsize == 24);
        REQUIRE(dtype.fields.size() == 4);
        CHECK(dtype.fields[2].name == "b");
        CHECK(dtype.fields[2].offset == 8);
    }
    SUBCASE("zero-byte fields are allowed as long as the element has bytes") {
        const DType dtype = parse_dtype_descr("[('a', '|S0'), ('b', []), ('c', '<f8', (0,)), ('d', '<i2')]");
        CHECK(dtype.itemsize == 2);
        CHECK(dtype.fields.at(3).offset == 0);
        CHECK(error_message([] { parse_dtype_descr("[('a', '|S0')]"); }).find("zero-byte elements") != std::string::npos);
    }
    SUBCASE("numpy's (type, shape) form and an int shape name the same dtype") {
        CHECK(parse_dtype_descr("[('a', ('<f8', (2,)), (3,))]").descr == "[('a', '<f8', (3, 2))]");
        CHECK(parse_dtype_descr("[('a', '<f8', 2)]").descr == "[('a', '<f8', (2,))]");
        CHECK(parse_dtype_descr("[('a', '<f8', ())]").descr == "[('a', '<f8')]");
    }
    SUBCASE("names are re-quoted the way Python's repr quotes them") {
        // np.save of [("it's", '<i4'), ('a"b\\', 'u1'), ('\xa0\x01\t', 'u1')]
        const std::string descr =
            R"([("it's", '<i4'), ('a"b\\', '|u1'), ('\xa0\x01\t', '|u1')])";
        const DType dtype = parse_dtype_descr(descr);
        CHECK(dtype.descr == descr);
        CHECK(dtype.fields[0].name == "it's");
        CHECK(dtype.fields[1].name == "a\"b\\");
        CHECK(dtype.fields[2].name == "\xc2\xa0\x01\t");
        CHECK(parse_dtype_descr(R"([(u'caf\u00e9', '<i4'), ('\x41\102', '|u1')])").descr ==
              "[('caf\xc3\xa9', '<i4'), ('AB', '|u1')]");
    }
}

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

TEST_CASE("NpyArray::from_bytes: data, views, sizes") {
    const std::string data = "ABCDEFGHIJKLMNOPQRSTUVWX";  // 24 bytes: 2x3 of <i4
    SUBCASE("C order") {
        const NpyArray array = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)")), 1, data));
        CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        const View view = array.view();
        CHECK(view.shape == std::vector<std::int64_t>{2, 3});
        CHECK(view.byte_strides == std::vector<std::int64_t>{12, 4});
        CHECK(view.itemsize == 4);
        CHECK(view.byte_offset == 0);
    }
    SUBCASE("Fortran order") {
        const NpyArray array =
            NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)", "True")), 1, data));
        CHECK(array.view().byte_strides == std::vector<std::int64_t>{4, 8});
    }
    SUBCASE("trailing bytes after the data are allowed") {
        const NpyArray array = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)")), 1, data + "junk"));
        CHECK(array.header().data_bytes() == 24);
    }
    SUBCASE("an empty array needs no data") {
        const NpyArray array = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<f4'", "(0, 3)"))));
        CHECK(array.header().element_count() == 0);
    }
    SUBCASE("data cut short") {
        const std::string message = error_message(
            [&] { NpyArray::from_bytes(npy_bytes(padded(dict_for("'<f4'", "(2, 3)")), 1, data.substr(0, 20))); });
        CHECK(message == "the file is too short for its header: shape (2, 3) of '<f4' needs 24 data bytes, the file has 20");
    }
    SUBCASE("a 0-d array needs its one element") {
        const std::string message =
            error_message([&] { NpyArray::from_bytes(npy_bytes(padded(dict_for("'<f8'", "()")), 1, "1234")); });
        CHECK(message.find("shape () of '<f8' needs 8 data bytes, the file has 4") != std::string::npos);
    }
    SUBCASE("moving keeps data() pointing at the data") {
        // Short enough for the small-string buffer: the bytes move with the object.
        NpyArray first = NpyArray::from_bytes(npy_bytes("{'descr':'|u1','fortran_order':False,'shape':(2,)}", 1, "xy"));
        NpyArray second = std::move(first);
        CHECK(std::memcmp(second.data(), "xy", 2) == 0);
        NpyArray third = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)")), 1, data));
        third = std::move(second);
        CHECK(std::memcmp(third.data(), "xy", 2) == 0);
        CHECK(third.header().shape == std::vector<std::int64_t>{2});
    }
}

TEST_CASE("NpyArray::open and read_header on files") {
    TempDir dir;
    const std::string data(48, 'z');
    const std::string bytes = make_npy_header(parse_dtype_descr("'<f4'"), {3, 4}) + data;
    const fs::path good = dir.path / "good.npy";
    write_file(good, bytes);

    SUBCASE("a good file is mapped") {
        NpyArray array = NpyArray::open(good.string());
        CHECK(array.header().shape == std::vector<std::int64_t>{3, 4});
        CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        NpyArray moved = std::move(array);
        CHECK(std::memcmp(moved.data(), data.data(), data.size()) == 0);
    }
    SUBCASE("read_header refuses a file too short for its header, from its size alone") {
        const fs::path headless = dir.path / "headless.npy";
        write_file(headless, bytes.substr(0, 128));  // all its data missing
        const std::string expected = "'" + headless.string() + "'" +
                                     ": the file is too short for its header: shape (3, 4) of '<f4' needs 48 "
                                     "data bytes, the file has 0";
        CHECK(error_message([&] { NpyArray::read_header(headless.string()); }) == expected);
        CHECK(error_message([&] { NpyArray::open(headless.string()); }) == expected);
    }
    SUBCASE("read_header of a file cut inside its header") {
        const fs::path cut = dir.path / "cut.npy";
        write_file(cut, bytes.substr(0, 40));
        CHECK(error_message([&] { NpyArray::read_header(cut.string()); }) ==
              "'" + cut.string() + "': the .npy header is cut short: expected 118 bytes of header, file has 30");
    }
    SUBCASE("read_header of a big file that is not a .npy reads only its start") {
        const fs::path other = dir.path / "other.bin";
        write_file(other, std::string("\x93NUMPX\x02\x00\xff\xff\xff\xff", 12) + std::string(1000, 'x'));
        CHECK(error_message([&] { NpyArray::read_header(other.string()); }).find("wrong magic") != std::string::npos);
    }
    SUBCASE("errors name the file") {
        const fs::path missing = dir.path / "missing.npy";
        CHECK(error_message([&] { NpyArray::open(missing.string()); }) ==
              "cannot open '" + missing.string() + "': No such file or directory");
        CHECK(error_message([&] { NpyArray::read_header(missing.string()); }) ==
              "cannot open '" + missing.string() + "': No such file or directory");
        CHECK(error_message([&] { NpyArray::open(dir.path.string()); }) ==
              "'" + dir.path.string() + "' is a directory, not a .npy file");
        CHECK(error_message([&] { NpyArray::read_header(dir.path.string()); }) ==
              "'" + dir.path.string() + "' is a directory, not a .npy file");
        const fs::path empty = dir.path / "empty.npy";
        write_file(empty, "");
        CHECK(error_message([&] { NpyArray::open(empty.string()); }) ==
              "'" + empty.string() + "': not a .npy file: the file is empty");
        CHECK(error_message([&] { NpyArray::read_header(empty.string()); }) ==
              "'" + empty.string() + "': not a .npy file: the file is empty");
        const fs::path text = dir.path / "text.npy";
        write_file(text, "just text\n");
        CHECK(error_message([&] { NpyArray::open(text.string()); }).rfind("'" + text.string() + "': not a .npy file: wrong magic", 0) == 0);
    }
    SUBCASE("a non-regular file (a pipe) is read rather than mapped") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        ::close(fds[1]);
        const std::string path = "/dev/fd/" + std::to_string(fds[0]);
        const NpyArray array = NpyArray::open(path);
        ::close(fds[0]);
        CHECK(array.header().shape == std::vector<std::int64_t>{3, 4});
        CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
    }
}

namespace {

// Runs `action` with file descriptor `target` (0 or 1) replaced by `replacement`.
template <typename Action>
void with_fd(int target, int replacement, Action action) {
    const int saved = ::dup(target);
    REQUIRE(saved >= 0);
    REQUIRE(::dup2(replacement, target) == target);
    try {
        action();
    } catch (...) {
        ::dup2(saved, target);
        ::close(saved);
        throw;
    }
    ::dup2(saved, target);
    ::close(saved);
}

}  // namespace

TEST_CASE("standard input and standard output") {
    TempDir dir;
    const DType i4 = parse_dtype_descr("'<i4'");
    std::string data(12, '\0');
    fill_counting(reinterpret_cast<std::byte*>(data.data()), 0, 3);
    const std::string bytes = make_npy_header(i4, {3}) + data;

    SUBCASE("a pipe on standard input is read whole") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        ::close(fds[1]);
        with_fd(0, fds[0], [&] {
            const NpyArray array = NpyArray::open("-");
            CHECK(array.header().shape == std::vector<std::int64_t>{3});
            CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        });
        ::close(fds[0]);
    }
    SUBCASE("read_header takes only the header from standard input") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        ::close(fds[1]);
        with_fd(0, fds[0], [&] {
            CHECK(NpyArray::read_header("-").shape == std::vector<std::int64_t>{3});
            char rest[64];
            CHECK(::read(0, rest, sizeof rest) == 12);  // the data is still there
        });
        ::close(fds[0]);
    }
    SUBCASE("a regular file on standard input is mapped from its current offset") {
        const fs::path file = dir.path / "in.npy";
        write_file(file, "skip" + bytes);
        const int fd = ::open(file.c_str(), O_RDONLY);
        REQUIRE(::lseek(fd, 4, SEEK_SET) == 4);
        with_fd(0, fd, [&] {
            const NpyArray array = NpyArray::open("-");
            CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        });
        ::close(fd);
    }
    SUBCASE("empty standard input") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        ::close(fds[1]);
        with_fd(0, fds[0], [&] {
            CHECK(error_message([] { NpyArray::open("-"); }) ==
                  "standard input: not a .npy file: standard input is empty");
        });
        ::close(fds[0]);
    }
    SUBCASE("-o - writes the .npy bytes to standard output") {
        const fs::path file = dir.path / "stdout.npy";
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        with_fd(1, fd, [&] { write_npy("-", i4, {3}, fill_counting); });
        ::close(fd);
        CHECK(read_file(file) == bytes);
    }
    SUBCASE("a closed pipe on standard output") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        ::close(fds[0]);
        const auto old_handler = std::signal(SIGPIPE, SIG_IGN);
        with_fd(1, fds[1], [&] {
            CHECK(error_message([&] { write_npy("-", i4, {3}, fill_counting); }) ==
                  "cannot write to standard output: Broken pipe");
        });
        std::signal(SIGPIPE, old_handler);
        ::close(fds[1]);
    }
}

TEST_CASE("write_npy writes numpy's bytes and only whole files") {
    TempDir dir;
    const DType i4 = parse_dtype_descr("'<i4'");
    const std::string target = (dir.path / "out.npy").string();

    SUBCASE("the content is the header and the filled chunks") {
        write_npy(target, i4, {3, 4}, fill_counting);
        const std::string written = read_file(target);
        std::string expected = make_npy_header(i4, {3, 4});
        std::string data(48, '\0');
        fill_counting(reinterpret_cast<std::byte*>(data.data()), 0, 12);
        CHECK(written == expected + data);
        CHECK(dir.entries() == std::vector<std::string>{"out.npy"});
        struct stat info {};
        REQUIRE(::stat(target.c_str(), &info) == 0);
        const mode_t mask = ::umask(0);
        ::umask(mask);
        CHECK((info.st_mode & 07777) == (0666 & ~mask));
    }
    SUBCASE("large outputs are produced in bounded chunks") {
        std::int64_t next = 0, largest = 0;
        const std::int64_t total = 3'000'000;  // 12 MB of <i4
        write_npy(target, i4, {total}, [&](std::byte* dst, std::int64_t first, std::int64_t count) {
            CHECK(first == next);
            CHECK(count >= 1);
            next = first + count;
            largest = std::max(largest, count);
            fill_counting(dst, first, count);
        });
        CHECK(next == total);
        CHECK(largest * 4 <= (4 << 20));
        const NpyArray array = NpyArray::open(target);
        const auto* data = reinterpret_cast<const unsigned char*>(array.data());
        CHECK(data[4 * 2999999] == (2999999 & 0xFF));
    }
    SUBCASE("an element larger than a chunk is written one at a time") {
        const DType huge = parse_dtype_descr("'|V5000000'");
        int calls = 0;
        write_npy(target, huge, {3}, [&](std::byte* dst, std::int64_t, std::int64_t count) {
            CHECK(count == 1);
            std::memset(dst, 'a' + calls++, 5000000);
        });
        CHECK(calls == 3);
        CHECK(fs::file_size(target) == 128 + 15000000);
    }
    SUBCASE("an empty array and a 0-d array") {
        write_npy(target, i4, {0, 5}, [](std::byte*, std::int64_t, std::int64_t) { FAIL("no data to fill"); });
        CHECK(read_file(target) == make_npy_header(i4, {0, 5}));
        write_npy(target, i4, {}, fill_counting);
        CHECK(read_file(target).size() == 128 + 4);
    }
    SUBCASE("a failing fill leaves no file behind") {
        const auto failing = [](std::byte* dst, std::int64_t first, std::int64_t count) {
            if (first > 0) throw Error(ErrorKind::Usage, "the copy failed");
            fill_counting(dst, first, count);
        };
        CHECK_THROWS_WITH(write_npy(target, i4, {5'000'000}, failing), "the copy failed");
        CHECK(dir.entries().empty());
    }
    SUBCASE("a failing fill leaves an existing target byte for byte") {
        write_file(target, "precious bytes");
        ::chmod(target.c_str(), 0640);
        CHECK_THROWS_AS(write_npy(target, i4, {5'000'000},
                                  [](std::byte*, std::int64_t first, std::int64_t) {
                                      if (first > 0) throw std::runtime_error("boom");
                                  }),
                        std::runtime_error);
        CHECK(read_file(target) == "precious bytes");
        CHECK(dir.entries() == std::vector<std::string>{"out.npy"});
    }
    SUBCASE("replacing a file keeps its mode") {
        write_file(target, "old");
        ::chmod(target.c_str(), 0640);
        write_npy(target, i4, {2}, fill_counting);
        struct stat info {};
        REQUIRE(::stat(target.c_str(), &info) == 0);
        CHECK((info.st_mode & 07777) == 0640);
        CHECK(NpyArray::open(target).header().shape == std::vector<std::int64_t>{2});
    }
    SUBCASE("writing through a symbolic link replaces the file it points to") {
        const fs::path real = dir.path / "real.npy";
        write_file(real, "old");
        fs::create_symlink("real.npy", dir.path / "link.npy");
        write_npy((dir.path / "link.npy").string(), i4, {2}, fill_counting);
        CHECK(fs::is_symlink(dir.path / "link.npy"));
        CHECK(read_file(real).size() == 128 + 8);
    }
    SUBCASE("a directory, a missing directory, an empty path") {
        CHECK(error_message([&] { write_npy(dir.path.string(), i4, {2}, fill_counting); }) ==
              "cannot write '" + dir.path.string() + "': it is a directory");
        const std::string nowhere = (dir.path / "no" / "such" / "out.npy").string();
        CHECK(error_message([&] { write_npy(nowhere, i4, {2}, fill_counting); }) ==
              "cannot write '" + nowhere + "': No such file or directory");
        CHECK(error_message([&] { write_npy("", i4, {2}, fill_counting); }).find("the output path is empty") != std::string::npos);
        CHECK(dir.entries().empty());
    }
    SUBCASE("a full device reports the error") {
        if (fs::exists("/dev/full")) {
            CHECK(error_message([&] { write_npy("/dev/full", i4, {2}, fill_counting); }) ==
                  "cannot write '/dev/full': No space left on device");
        }
    }
    SUBCASE("remove_pending_temporary removes the file being written") {
        bool checked = false;
        CHECK_THROWS_AS(write_npy(target, i4, {3'000'000},
                                  [&](std::byte* dst, std::int64_t first, std::int64_t count) {
                                      fill_counting(dst, first, count);
                                      if (first == 0) {
                                          CHECK(dir.entries().size() == 1);  // the temporary
                                          remove_pending_temporary();
                                          CHECK(dir.entries().empty());
                                          checked = true;
                                      }
                                  }),
                        Error);
        CHECK(checked);
        CHECK(dir.entries().empty());
        remove_pending_temporary();  // nothing pending: must do nothing
    }
    SUBCASE("bad shapes are refused before anything is written") {
        CHECK(error_message([&] { write_npy(target, i4, {-1}, fill_counting); }).find("negative dimension") != std::string::npos);
        CHECK(error_message([&] { write_npy(target, i4, {1LL << 62}, fill_counting); }).find("byte size overflows") != std::string::npos);
        CHECK(dir.entries().empty());
    }
}

#ifdef TSLICE_SOURCE_DIR
TEST_CASE("the sample files in data/ open") {
    struct Case {
        const char* name;
        std::vector<std::int64_t> shape;
        const char* descr;
        bool fortran;
    };
    const Case cases[] = {
        {"arange_2x3x4_f4.npy", {2, 3, 4}, "'<f4'", false},
        {"fortran_3x4_i8.npy", {3, 4}, "'<i8'", true},
        {"bigendian_5_i4.npy", {5}, "'>i4'", false},
        {"strings_4_U3.npy", {4}, "'<U3'", false},
        {"structured_3.npy", {3}, "[('x', '<i4'), ('y', '<f8')]", false},
        {"scalar_f8.npy", {}, "'<f8'", false},
        {"empty_0x3_f4.npy", {0, 3}, "'<f4'", false},
        {"image_8x8x3_u1.npy", {8, 8, 3}, "'|u1'", false},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.name));
        const NpyArray array = NpyArray::open(std::string(TSLICE_SOURCE_DIR) + "/data/" + c.name);
        CHECK(array.header().shape == c.shape);
        CHECK(array.header().dtype.descr == c.descr);
        CHECK(array.header().fortran_order == c.fortran);
    }
}
#endif

TEST_CASE("write_npy writes a source's own bytes, and release keeps the data readable") {
    const auto dir = std::filesystem::temp_directory_path() / ("tslice-release-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    DType i4;
    i4.descr = "'<i4'";
    i4.type_string = "<i4";
    i4.kind = 'i';
    i4.byte_order = '<';
    i4.itemsize = 4;
    // A source that hands out its own bytes: nothing is copied into the scratch buffer.
    std::vector<std::int32_t> values(3'000'000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * 3);
    const std::string path = (dir / "direct.npy").string();
    write_npy(path, i4, {static_cast<std::int64_t>(values.size())},
              ChunkSource([&](std::int64_t first, std::int64_t, std::byte*) {
                  return reinterpret_cast<const std::byte*>(values.data() + first);
              }));
    const NpyArray array = NpyArray::open(path);
    REQUIRE(array.header().shape == std::vector<std::int64_t>{3'000'000});
    CHECK(std::memcmp(array.data(), values.data(), values.size() * 4) == 0);
    // Released pages come back from the file when read again.
    array.release(0, 12'000'000);
    array.release(5, 9);
    CHECK(std::memcmp(array.data(), values.data(), values.size() * 4) == 0);
    std::filesystem::remove_all(dir);
}
