// dtypes from a .npy header's descr: simple type strings of every kind and byte order, numpy's
// one-letter codes, structured dtypes; and the reasons invalid ones are refused.

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

namespace {

// A dtype string and what it parses to.
struct Case {
    const char* type;
    char kind;
    std::size_t itemsize;
    char byte_order;
};

}  // namespace

TEST_CASE("simple dtype strings: every kind, both byte orders") {
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
