// .safetensors headers: the dtype table, every validation the format's reference makes, and
// the header tslice writes.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

// The 8-byte length, the header text, then `data` (or as many zero bytes as `data_size`).
std::string safetensors(const std::string& header, std::size_t data_size, std::optional<std::uint64_t> length = {}) {
    std::string out;
    const std::uint64_t n = length.value_or(header.size());
    for (int k = 0; k < 8; ++k) out += static_cast<char>((n >> (8 * k)) & 0xFF);
    return out + header + std::string(data_size, '\0');
}

std::vector<ArrayInFile> arrays_of(const std::string& file) {
    return list_arrays(reinterpret_cast<const std::byte*>(file.data()), file.size());
}

// The message of the input error that reading `file` throws.
std::string input_error(const std::string& file) {
    INFO("the file after its length: " << file.substr(8));
    return tslice_test::input_error([&] { arrays_of(file); });
}

}  // namespace

TEST_CASE("tensors by name, as safe_open().keys() lists them, each mapped where its offsets say") {
    const std::string file = safetensors(
        R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[24,32]},"__metadata__":{"format":"pt"},)"
        R"("z":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"e":{"dtype":"I64","shape":[0,5],"data_offsets":[32,32]}})",
        32);
    const auto arrays = arrays_of(file);
    REQUIRE(arrays.size() == 3);
    const std::size_t data_start = file.size() - 32;
    CHECK(*arrays[0].name == "a");
    CHECK(arrays[0].type.name() == "BF16");
    CHECK(arrays[0].type.itemsize() == 2);
    CHECK(arrays[0].bytes.offset == data_start + 24);
    CHECK(arrays[1].shape == std::vector<std::int64_t>{0, 5});
    CHECK(*arrays[2].name == "z");
    CHECK(arrays[2].type.name() == "<f4");
    CHECK(arrays[2].shape == std::vector<std::int64_t>{2, 3});
    CHECK(arrays[2].bytes.offset == data_start);
    CHECK(arrays[2].bytes.size == 24);
}

TEST_CASE("the header as a JSON object: a name given twice counts once, as its last value; other keys are ignored") {
    // The header is read entry by entry, each entry checked as it is read (as the reference's
    // serde reader checks it); the data offsets are checked once all are read.
    const std::string file = safetensors(
        R"({"t":{"dtype":"F64","shape":[9],"data_offsets":[0,999]},"u":{"dtype":"U8","shape":[1],"data_offsets":[2,3],)"
        R"("extra":{"deep":[[1,{"a":null}],-2.5e3,true,"s"]}},"__metadata__":{"k":"v","n":[1,{"m":{}}]},)"
        R"("t":{"dtype":"F32","shape":[],"data_offsets":[0,0]},"t":{"dtype":"I16","shape":[1],"data_offsets":[0,2],"dtype":"U16"}})",
        3);
    const auto arrays = arrays_of(file);
    REQUIRE(arrays.size() == 2);
    CHECK(*arrays[0].name == "t");
    CHECK(arrays[0].type.name() == "<u2");
    CHECK(arrays[0].shape == std::vector<std::int64_t>{1});
    CHECK(*arrays[1].name == "u");
    CHECK(arrays[1].bytes.offset == file.size() - 1);
    // The last of a name counts: an unknown dtype before it is forgotten.
    const auto last = arrays_of(safetensors(R"({"t":{"dtype":"X9","shape":[1],"data_offsets":[0,1]},)"
                                            R"("t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
                                            1));
    REQUIRE(last.size() == 1);
    CHECK(last[0].error.empty());
    CHECK(last[0].type.name() == "|u1");
    // A syntax error is reported before what is wrong with the tensor it is in.
    CHECK(input_error(safetensors(R"({"t": 3, "u": [})", 0)).find("not valid JSON") != std::string::npos);
    // Nothing after the object but spaces, and no second object.
    CHECK(input_error(safetensors("{} {}", 0)).find("not valid JSON") != std::string::npos);
    CHECK(input_error(safetensors("{}x", 0)).find("not valid JSON") != std::string::npos);
    CHECK(arrays_of(safetensors("{}   ", 0)).empty());
    // Names are sorted by their bytes.
    const auto sorted = arrays_of(safetensors(R"({"b":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},)"
                                              R"("B":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},)"
                                              R"("é":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},)"
                                              R"("a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}})",
                                              0));
    REQUIRE(sorted.size() == 4);
    CHECK(*sorted[0].name == "B");
    CHECK(*sorted[1].name == "a");
    CHECK(*sorted[2].name == "b");
    CHECK(*sorted[3].name == "\xc3\xa9");
}

TEST_CASE("the dtype table, both ways") {
    const std::pair<const char*, const char*> table[] = {
        {"BOOL", "|b1"}, {"U8", "|u1"},  {"I8", "|i1"},  {"I16", "<i2"}, {"U16", "<u2"},
        {"F16", "<f2"},  {"I32", "<i4"}, {"U32", "<u4"}, {"F32", "<f4"}, {"F64", "<f8"},
        {"I64", "<i8"},  {"U64", "<u8"}, {"BF16", "BF16"}, {"F8_E4M3", "F8_E4M3"}, {"F8_E5M2", "F8_E5M2"},
        {"F8_E8M0", "F8_E8M0"}, {"C64", "<c8"},
    };
    for (const auto& [name, numpy] : table) {
        CAPTURE(name);
        const auto type = safetensors_element_type(name);
        REQUIRE(type);
        CHECK(type->name() == numpy);
        CHECK(safetensors_name(*type) == std::string(name));
    }
    CHECK_FALSE(safetensors_element_type("F4"));
    CHECK_FALSE(safetensors_element_type("f32"));
    // Big-endian types are written under their little-endian name (the writer swaps them).
    CHECK(safetensors_name({parse_dtype_descr("'>f8'"), ""}) == std::string("F64"));
    CHECK(safetensors_name({parse_dtype_descr("'=i2'"), ""}) == std::string("I16"));
    CHECK(safetensors_name({parse_dtype_descr("'>c8'"), ""}) == std::string("C64"));
    for (const char* lacking : {"'<c16'", "'|S3'", "'<U2'", "'<M8[s]'", "'<m8[s]'", "'|V4'", "'<f16'",
                                "[('x', '<i4')]"}) {
        CAPTURE(lacking);
        CHECK_FALSE(safetensors_name({parse_dtype_descr(lacking), ""}));
    }
}

TEST_CASE("dtypes tslice does not slice are listed with why, and refused when chosen") {
    const std::string file = safetensors(R"({"a":{"dtype":"X9","shape":[2],"data_offsets":[0,8]},)"
                                         R"("b":{"dtype":"F4","shape":[2,3],"data_offsets":[8,11]},)"
                                         R"("c":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[11,14]},)"
                                         R"("d":{"dtype":"F32","shape":[1],"data_offsets":[16,20]}})",
                                         20);
    const auto arrays = arrays_of(file);
    REQUIRE(arrays.size() == 4);
    CHECK(arrays[0].error.find("\"X9\", which tslice does not know") != std::string::npos);
    CHECK(arrays[1].error.find("F4 of 4-bit elements") != std::string::npos);
    CHECK(arrays[2].error.find("F6_E2M3 of 6-bit elements") != std::string::npos);
    CHECK(arrays[3].error.empty());
    CHECK(arrays[0].type_name() == "X9");
    CHECK(arrays[1].shape == std::vector<std::int64_t>{2, 3});
    CHECK(input_error([&] { select_arrays(arrays, {"b"}); }) == arrays[1].error);
    CHECK(select_arrays(arrays, {"d"}).size() == 1);
    // Unknown dtypes still take part in the overlap check.
    CHECK(input_error(safetensors(R"({"a":{"dtype":"X9","shape":[2],"data_offsets":[0,8]},)"
                                  R"("d":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                  8))
              .find("overlap") != std::string::npos);
}

TEST_CASE("broken files: each refused with what is wrong") {
    const auto tensor = [](const std::string& dtype, const std::string& shape, const std::string& offsets) {
        return R"({"t":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}";
    };
    const Error cut_short = thrown_by([] { list_safetensors(reinterpret_cast<const std::byte*>("short"), 5); });
    CHECK(std::string(cut_short.what()).find("cut short") != std::string::npos);
    CHECK(input_error(safetensors("{}", 0, 1000)).find("beyond the end") != std::string::npos);
    CHECK(input_error(safetensors("{}", 0, 100'000'001)).find("100 MB") != std::string::npos);
    CHECK(input_error(safetensors("{\"a\": ", 0)).find("not valid JSON") != std::string::npos);
    CHECK(input_error(safetensors("{\"a\": 1}", 0)).find("not a JSON object") != std::string::npos);
    CHECK(input_error(safetensors(tensor("F32", "[2]", "[0,16]"), 16)).find("needs 8 bytes") != std::string::npos);
    CHECK(input_error(safetensors(tensor("F32", "[2]", "[0,8]"), 4)).find("past the end") != std::string::npos);
    CHECK(input_error(safetensors(tensor("F32", "[2]", "[8,0]"), 8)).find("ends before") != std::string::npos);
    // Sub-byte dtypes have their sizes checked as the reference checks them.
    CHECK(input_error(safetensors(tensor("F4", "[3]", "[0,2]"), 2)).find("4 bits each") != std::string::npos);
    CHECK(input_error(safetensors(tensor("F6_E3M2", "[4]", "[0,4]"), 4)).find("6 bits each") != std::string::npos);
    CHECK(input_error(safetensors(tensor("F32", "[-2]", "[0,8]"), 8)).find("non-negative") != std::string::npos);
    CHECK(input_error(safetensors(tensor("F32", "[2]", "[0]"), 8)).find("data_offsets") != std::string::npos);
    CHECK(input_error(safetensors(tensor("F32", "[4294967296,4294967296]", "[0,8]"), 8)) ==
          "safetensors tensor \"t\": shape (4294967296, 4294967296) is too large: its element count overflows 64 bits");
    CHECK(input_error(safetensors(R"({"t":{"dtype":"F32","shape":[2]}})", 8)).find("no \"data_offsets\"") !=
          std::string::npos);
    CHECK(input_error(safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                  R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                  12))
              .find("overlap") != std::string::npos);
    CHECK(input_error(safetensors(R"({"__metadata__": 3})", 0)).find("__metadata__") != std::string::npos);
}

TEST_CASE("every truncation of a file is an input error") {
    const std::string file =
        safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[3],"data_offsets":[8,11]}})",
                    11);
    for (std::size_t size = 9; size < file.size(); ++size) {
        CAPTURE(size);
        input_error(file.substr(0, size));
    }
}

TEST_CASE("the header tslice writes: padded to 8 bytes, and read back") {
    for (const std::string name : {std::string("arr_0"), std::string("a \"quoted\"\n name"), std::string("\xC3\xA9")}) {
        const std::string prefix = safetensors_prefix(name, "F32", {2, 3}, 24);
        CHECK(prefix.size() % 8 == 0);
        const std::string file = prefix + std::string(24, '\0');
        const auto arrays = arrays_of(file);
        REQUIRE(arrays.size() == 1);
        CHECK(*arrays[0].name == name);
        CHECK(arrays[0].type.name() == "<f4");
        CHECK(arrays[0].shape == std::vector<std::int64_t>{2, 3});
        CHECK(arrays[0].bytes.offset == prefix.size());
    }
    CHECK(safetensors_prefix("x", "U8", {}, 1).substr(8) ==
          R"({"x":{"dtype":"U8","shape":[],"data_offsets":[0,1]}})" + std::string(4, ' '));
}

TEST_CASE("a shape with a zero is still refused where its other dimensions overflow, as numpy refuses it") {
    // numpy: "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum
    // possible size", for the product of the non-zero dimensions and the item size past 2**63 - 1.
    const auto tensor = [](const std::string& dtype, const std::string& shape) {
        return safetensors(R"({"t":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":[0,0]}})", 0);
    };
    CHECK(input_error(tensor("F32", "[0,9223372036854775807]")) ==
          "safetensors tensor \"t\": shape (0, 9223372036854775807) is too large: its byte size overflows 64 bits "
          "(4 bytes per element)");
    CHECK(input_error(tensor("F32", "[9223372036854775807,0]")).find("is too large") != std::string::npos);
    CHECK(input_error(tensor("U16", "[0,4611686018427387904]")).find("is too large") != std::string::npos);
    CHECK(input_error(tensor("BOOL", "[2,0,4611686018427387904]")).find("is too large") != std::string::npos);
    CHECK(input_error(tensor("BF16", "[0,3,3074457345618258603]")).find("is too large") != std::string::npos);
    CHECK(input_error(tensor("BOOL", "[0,4294967296,4294967296]")).find("element count overflows") != std::string::npos);
    // Up to the limit they are empty arrays, as in numpy.
    for (const auto& [dtype, shape] : std::vector<std::pair<std::string, std::string>>{
             {"BOOL", "[9223372036854775807,0]"},
             {"BOOL", "[0,9223372036854775807]"},
             {"U16", "[0,4611686018427387903]"},
             {"F64", "[0,1,1152921504606846975,0]"}}) {
        INFO(dtype << " " << shape);
        const auto arrays = arrays_of(tensor(dtype, shape));
        REQUIRE(arrays.size() == 1);
        CHECK(arrays[0].data_bytes() == 0);
        CHECK(View::contiguous(arrays[0].shape, arrays[0].type.itemsize()).element_count() == 0);
    }
}

TEST_CASE("a message quotes the header's value as the file writes it, and a syntax error wins over the rest") {
    const auto message = [](const std::string& entry) {
        return input_error(safetensors(R"({"t":)" + entry + "}", 16));
    };
    CHECK(message(R"({"dtype":"F32","shape":[1,-2],"data_offsets":[0,8]})") ==
          "safetensors tensor \"t\": \"shape\" must be a list of non-negative integers, not [1,-2]");
    CHECK(message(R"({"dtype":"F32","shape": "2" ,"data_offsets":[0,8]})") ==
          "safetensors tensor \"t\": \"shape\" must be a list of non-negative integers, not \"2\"");
    CHECK(message(R"({"dtype":5,"shape":[2],"data_offsets":[0,8]})") ==
          "safetensors tensor \"t\": \"dtype\" must be a string, not 5");
    CHECK(message(R"({"dtype":{"a": [1]} ,"shape":[2],"data_offsets":[0,8]})") ==
          "safetensors tensor \"t\": \"dtype\" must be a string, not {\"a\": [1]}");
    CHECK(message(R"({"dtype":"F32","shape":[2],"data_offsets":[0, 8, 9]})") ==
          "safetensors tensor \"t\": \"data_offsets\" must be [begin, end], two non-negative integers, not [0, 8, 9]");
    CHECK(message(R"({"dtype":"F32","shape":[2],"data_offsets": 12.5 })") ==
          "safetensors tensor \"t\": \"data_offsets\" must be [begin, end], two non-negative integers, not 12.5");
    // The first problem in the text is the one reported...
    CHECK(input_error(safetensors(R"({"a": 1, "b": {"dtype": 5}})", 0)) ==
          "safetensors tensor \"a\" is not a JSON object with dtype, shape and data_offsets");
    // ...unless the text is not JSON at all, wherever that shows.
    CHECK(input_error(safetensors(R"({"t": 1, "u": [})", 0)).find("not valid JSON") != std::string::npos);
    CHECK(input_error(safetensors(std::string("{\"t\": 1}\0", 9), 0)).find("not valid JSON") != std::string::npos);
}

TEST_CASE("the header's __metadata__ is carried as its text") {
    const std::string file = safetensors(
        R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}, "__metadata__" : {"k": "v",  "n":"x"} })", 1);
    CHECK(safetensors_metadata(reinterpret_cast<const std::byte*>(file.data()), file.size()) ==
          R"({"k": "v",  "n":"x"})");
    const std::string none = safetensors(R"({"__metadata__": 3})", 0);
    CHECK(safetensors_metadata(reinterpret_cast<const std::byte*>(none.data()), none.size()).empty());
}
