// GGUF headers built byte by byte, and ggml's blocks decoded by hand. The differential test
// (tests/differential/gguf_differential.py) checks random files and blocks against Python.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "tslice/gguf.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

void le(std::string& out, std::uint64_t value, int bytes) {
    for (int k = 0; k < bytes; ++k) out += static_cast<char>((value >> (8 * k)) & 0xFF);
}
std::string str(const std::string& text) {
    std::string out;
    le(out, text.size(), 8);
    return out + text;
}

// A GGUF v3 with one u32 metadata entry and one tensor (name, ne, type, offset 0).
std::string gguf(const std::vector<std::uint64_t>& ne, std::uint32_t type, std::size_t data_bytes,
                 std::uint64_t tensors = 1) {
    std::string out = "GGUF";
    le(out, 3, 4);
    le(out, tensors, 8);
    le(out, 1, 8);
    out += str("general.architecture");
    le(out, 8, 4);
    out += str("llama");
    out += str("w");
    le(out, ne.size(), 4);
    for (const auto n : ne) le(out, n, 8);
    le(out, type, 4);
    le(out, 0, 8);
    out.append((32 - out.size() % 32) % 32, '\0');
    return out + std::string(data_bytes, '\x11');
}

std::vector<ArrayInFile> arrays_of(const std::string& file) {
    return list_arrays(reinterpret_cast<const std::byte*>(file.data()), file.size());
}

}  // namespace

TEST_CASE("gguf: shapes are ne reversed; plain types are numpy's, quantized ones named") {
    const auto f16 = arrays_of(gguf({4, 3}, 1, 24));
    REQUIRE(f16.size() == 1);
    CHECK(f16[0].shape == std::vector<std::int64_t>{3, 4});
    CHECK(f16[0].type.dtype.type_string == "<f2");
    CHECK(f16[0].bytes.size == 24);
    CHECK(f16[0].bytes.offset % 32 == 0);
    const auto q4k = arrays_of(gguf({512, 2}, 12, 4 * 144));
    CHECK(q4k[0].quantized == "Q4_K");
    CHECK(q4k[0].type.name() == "Q4_K");
    CHECK(q4k[0].bytes.size == 4 * 144);
    const std::string file = gguf({4}, 0, 16);
    CHECK(gguf_metadata_json(reinterpret_cast<const std::byte*>(file.data()), file.size()) ==
          R"({"general.architecture": "llama"})");
}

TEST_CASE("gguf: lies are input errors") {
    CHECK(input_error([] { arrays_of(gguf({4, 3}, 1, 23)); }).find("reaches past the end") != std::string::npos);
    CHECK(input_error([] { arrays_of(gguf({33}, 8, 34)); }).find("not a multiple") != std::string::npos);
    CHECK(input_error([] { arrays_of(gguf({4}, 0, 16, std::uint64_t{1} << 60)); }).find("too small") != std::string::npos);
    std::string cut = gguf({4}, 0, 16);
    cut.resize(30);
    CHECK(input_error([&] { arrays_of(cut); }).find("ends inside") != std::string::npos);
}

TEST_CASE("ggml: Q8_0 and Q5_0 blocks decoded as ggml's reference does") {
    // Q8_0: d = 0.5 (f16 0x3800), qs = -16 .. 15
    std::string q8("\x00\x38", 2);
    for (int j = 0; j < 32; ++j) q8 += static_cast<char>(j - 16);
    std::vector<float> out(32);
    ggml_dequantize(*ggml_type_named("Q8_0"), reinterpret_cast<const std::byte*>(q8.data()), 1, out.data());
    for (int j = 0; j < 32; ++j) CHECK(out[j] == 0.5f * static_cast<float>(j - 16));
    // Q5_0: d = 1, qh bit 0 and bit 16 set, qs[0] = 0x21: y[0] = (1 | 16) - 16 = 1,
    // y[16] = (2 | 16) - 16 = 2; every other nibble 0 without its high bit: -16.
    std::string q5("\x00\x3c", 2);
    le(q5, 0x00010001, 4);
    q5 += '\x21';
    q5.append(15, '\0');
    ggml_dequantize(*ggml_type_named("Q5_0"), reinterpret_cast<const std::byte*>(q5.data()), 1, out.data());
    CHECK(out[0] == 1.0f);
    CHECK(out[16] == 2.0f);
    CHECK(out[1] == -16.0f);
    CHECK(out[17] == -16.0f);
    CHECK(message_of(ErrorKind::Usage, [&] {
              ggml_dequantize(*ggml_type_named("Q6_K"), reinterpret_cast<const std::byte*>(q5.data()), 0, out.data());
          }).find("Q6_K") != std::string::npos);
}

TEST_CASE("gguf: a bool byte other than 0 or 1 is true, in the metadata as in the skipped arrays") {
    // The metadata of a file whose tensors list must read too (fuzz_gguf found one where a
    // bool array's 12 was skipped by the listing and refused by the metadata).
    std::string file = "GGUF";
    le(file, 3, 4);
    le(file, 0, 8);
    le(file, 2, 8);
    file += str("flag");
    le(file, 7, 4);
    file += '\x0c';
    file += str("flags");
    le(file, 9, 4);
    le(file, 7, 4);
    le(file, 2, 8);
    file += std::string("\x00\x02", 2);
    CHECK(arrays_of(file).empty());
    CHECK(gguf_metadata_json(reinterpret_cast<const std::byte*>(file.data()), file.size()) ==
          R"({"flag": true, "flags": [false,true]})");
}

TEST_CASE("gguf: a general.alignment that is a string of bytes that are not UTF-8 is named, not thrown about") {
    // fuzz_gguf found the message's JSON text of the value throwing (nlohmann refuses to dump
    // invalid UTF-8 unless told to replace it).
    std::string file = "GGUF";
    le(file, 3, 4);
    le(file, 0, 8);
    le(file, 1, 8);
    file += str("general.alignment");
    le(file, 8, 4);
    file += str("\xff\xfe");
    CHECK(input_error([&] { arrays_of(file); }).find("general.alignment is \"\xef\xbf\xbd\xef\xbf\xbd\"") !=
          std::string::npos);
}
