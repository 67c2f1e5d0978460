// .zarray read through the one JSON reading path (base/json_tree.hpp): a damaged file is an
// input error (exit 1) with the line and column, values are quoted as written, and the tree's
// member lookup takes the last of duplicate keys.

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/json_tree.hpp"
#include "source/zarr_meta.hpp"
#include "tslice/error.hpp"

using namespace tslice;

namespace {

std::string zarray(const std::string& dtype, const std::string& fill, const std::string& extra = "") {
    return R"({"zarr_format": 2, "shape": [5, 4], "chunks": [2, 3], "dtype": )" + dtype +
           R"(, "compressor": null, "fill_value": )" + fill + R"(, "filters": null)" + extra + "}";
}

std::string error_of(const std::string& text) {
    try {
        parse_zarray(text, "'a.zarr/.zarray'");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::Input);
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("zarr json: a damaged .zarray is an input error that says where") {
    CHECK(error_of("{\"zarr_format\": 2,\n \"shape\": [5, }") ==
          "'a.zarr/.zarray': not a JSON object: invalid JSON at line 2, column 15: unexpected '}'; expected '[', "
          "'{', or a literal");
    CHECK(error_of("").rfind("'a.zarr/.zarray': not a JSON object: invalid JSON at line 1, column 1: ", 0) == 0);
    CHECK(error_of(std::string("{\"zarr_format\": 2\0}", 19)).find("not a JSON object") != std::string::npos);
    CHECK(error_of(std::string(100, '[') + std::string(100, ']')).find("nested deeper than 64 levels") != std::string::npos);
    CHECK(error_of("[1, 2]") == "'a.zarr/.zarray': not a JSON object");
}

TEST_CASE("zarr json: values quoted as written") {
    CHECK(error_of(R"({"zarr_format": 2.50})") == "'a.zarr/.zarray': \"zarr_format\" is 2.50; tslice reads Zarr version 2");
    CHECK(error_of(R"({"zarr_format": "2"})") == "'a.zarr/.zarray': \"zarr_format\" is \"2\"; tslice reads Zarr version 2");
    CHECK(error_of(R"({"zarr_format": 2, "shape": [5, -1], "chunks": [1, 1], "dtype": "<f4"})") ==
          "'a.zarr/.zarray': \"shape\" holds -1, not a non-negative integer");
    CHECK(error_of(R"({"zarr_format": 2, "shape": [5, 99999999999999999999], "chunks": [1, 1], "dtype": "<f4"})") ==
          "'a.zarr/.zarray': \"shape\" holds 99999999999999999999, not a non-negative integer");
    CHECK(error_of(zarray("\"<f4\"", "0", R"(, "dimension_separator": "-")")) ==
          "'a.zarr/.zarray': \"dimension_separator\" is \"-\", not \".\" or \"/\"");
    CHECK(error_of(zarray("\"<i4\"", "1.5")) == "'a.zarr/.zarray': \"fill_value\" 1.5 is not an integer");
    CHECK(error_of(zarray("\"<i4\"", "1e300")) == "'a.zarr/.zarray': \"fill_value\" 1e300 is not an integer");
    CHECK(error_of(zarray("\"<f4\"", "[1]")) ==
          "'a.zarr/.zarray': \"fill_value\" [1] is not a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
    CHECK(error_of(zarray("\"<f4\"", "0").replace(zarray("\"<f4\"", "0").find("\"filters\": null"), 15,
                                                   R"("filters": [7])")) ==
          "'a.zarr/.zarray': the array has the filter '7'; tslice reads arrays without filters");
}

TEST_CASE("zarr json: \"order\" that is not a string is refused, not thrown past tslice") {
    CHECK(error_of(zarray("\"<f4\"", "0", R"(, "order": 1)")) == "'a.zarr/.zarray': \"order\" is 1, not 'C' or 'F'");
    CHECK(error_of(zarray("\"<f4\"", "0", R"(, "order": "K")")) == "'a.zarr/.zarray': \"order\" is 'K', not 'C' or 'F'");
    CHECK_FALSE(parse_zarray(zarray("\"<f4\"", "0"), "z").fortran_order);
    CHECK(parse_zarray(zarray("\"<f4\"", "0", R"(, "order": "F")"), "z").fortran_order);
}

TEST_CASE("zarr json: integers up to 2^64 - 1, whole floats and duplicate keys") {
    const auto fill = [](const std::string& dtype, const std::string& value) {
        return parse_zarray(zarray(dtype, value), "z").fill;
    };
    CHECK(fill("\"<u8\"", "18446744073709551615") == std::vector<std::byte>(8, std::byte{0xff}));
    CHECK(fill("\"<i2\"", "-1.0") == std::vector<std::byte>(2, std::byte{0xff}));
    CHECK(fill("\"|b1\"", "2") == std::vector<std::byte>{std::byte{1}});
    // The later "shape" wins, as it did with nlohmann's DOM.
    CHECK(parse_zarray(zarray("\"<f4\"", "0", R"(, "shape": [7, 8])"), "z").shape == std::vector<std::int64_t>{7, 8});
    json::Node object = json::parse_tree(R"({"a": 1, "a": [2, "x"]})", "t");
    const json::Node* a = json::member(object, "a");
    REQUIRE(a);
    CHECK(json::show(*a) == R"([2, "x"])");
    CHECK_FALSE(json::member(object, "b"));
    CHECK_FALSE(json::member(*a, "a"));
}

TEST_CASE("zarr json: a tree renders whole as it was written, for a group's consolidated metadata") {
    const std::string text =
        R"({"metadata": {"a/.zarray": {"shape": [5, 4], "fill_value": 1.50, "big": 18446744073709551616, )"
        R"("name": "\u00e9\"", "items": [1, "x", null, true, false, {}]}}, "zarr_consolidated_format": 1})";
    const json::Node tree = json::parse_tree(text, "'g.zarr/.zmetadata'");
    CHECK(json::render_whole(tree) ==
          R"({"metadata": {"a/.zarray": {"shape": [5, 4], "fill_value": 1.50, "big": 18446744073709551616, )"
          "\"name\": \"\xC3\xA9\\\"\", "
          R"("items": [1, "x", null, true, false, {}]}}, "zarr_consolidated_format": 1})");
    // Longer than a message's 60 characters, and never shortened.
    CHECK(json::render_whole(tree).size() > 150);
}
